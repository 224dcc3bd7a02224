/**
 * Delivers events to integrations, at least once and in order per integration. The event log is
 * the outbox: every change wrote its event in its own transaction, and each integration's cursor
 * says which it has had (read in commit order, events/event-log.ts). An instance takes an
 * integration for a while (a lease, so one instance sends for it at a time), sends each matching
 * event after its cursor, records the attempt, and moves the cursor past it only once it was
 * received: a crash or a lost lease sends it again (the same `webhook-id`). A failed send stops
 * that integration there, tried again with exponential backoff (1 s, 2 s, … up to
 * INTEGRATIONS_RETRY_MAX_SECONDS) until it is received or has failed for longer than
 * INTEGRATIONS_RETENTION_HOURS, when it is given up (recorded as failed) and the next goes.
 */
import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { readEventsAfter } from '../events/event-log.ts'
import { createDeliveryStore, type DueAddon } from './delivery-store.ts'
import { send, SENDING_PROVIDERS, type SendOptions } from './senders.ts'

const LEASE_MS = 60_000
const PAGE = 100
/** Tries kept in an integration's delivery log. */
export const LOG_KEPT = 1000

export interface DeliveryOptions extends SendOptions {
  db: Kysely<Database>
  changes: ChangeWatch
  retryMaxSeconds: number
  retentionHours: number
  pollMs: number
  log: { warn(object: unknown, message: string): void }
}

/** Whether an integration takes this event: its type, and its project and environment when it names some (empty or `*` first: all). */
export function takes(
  addon: Pick<DueAddon, 'events' | 'projects' | 'environments'>,
  event: { type: string; project: string | null; environment: string | null },
): boolean {
  const within = (value: string | null, list: string[]) => value === null || list.length === 0 || list[0] === '*' || list.includes(value)
  return addon.events.includes(event.type) && within(event.project, addon.projects) && within(event.environment, addon.environments)
}

/** PostgreSQL: this transaction's commit does not wait for its log flush (SQLite's never does: synchronous=NORMAL). */
async function relaxedCommit(trx: Kysely<Database>): Promise<void> {
  if (dialectOf(trx) === 'postgres') await sql`set local synchronous_commit = off`.execute(trx)
}

export function createDeliveryWorker(options: DeliveryOptions) {
  const { db, retryMaxSeconds, retentionHours, pollMs, log } = options
  const sendOptions: SendOptions = { allowedHosts: options.allowedHosts, slackApiUrl: options.slackApiUrl, publicUrl: options.publicUrl }
  const store = createDeliveryStore(db)
  const leaseUntil = () => new Date(Date.now() + LEASE_MS).toISOString()
  let running: Promise<void> | undefined
  let again = false
  let stopped = false

  async function deliver(addon: DueAddon): Promise<void> {
    let cursor = addon.cursor
    let { attempts, failingSince } = addon
    for (;;) {
      const page = await readEventsAfter(db, cursor, PAGE)
      for (const event of page.events) {
        if (stopped) break
        const parsed = JSON.parse(event.json) as { type: string; project: string | null; environment: string | null }
        if (!takes(addon, parsed)) {
          cursor = event.cursor
          continue
        }
        const result = await send(addon.provider, addon.parameters, event.json, `pennon-${addon.id}-${event.id}`, sendOptions)
        const now = new Date()
        const givenUp =
          result.state === 'failed' && failingSince !== null && now.getTime() - Date.parse(failingSince) > retentionHours * 3_600_000
        const attempt = {
          integrationId: addon.id,
          createdAt: now.toISOString(),
          state: result.state,
          stateDetails: givenUp ? `${result.stateDetails}\nGiven up: failing for more than ${retentionHours} hours.` : result.stateDetails,
          event: event.json,
          details: result.details,
        }
        // A failure no try can mend (final) is recorded and passed, as one given up.
        if (result.state === 'failed' && !givenUp && !result.final) {
          attempts += 1
          const retryAt = new Date(now.getTime() + Math.min(2 ** (attempts - 1), retryMaxSeconds) * 1000).toISOString()
          const since = failingSince ?? now.toISOString()
          await db.transaction().execute(async (trx) => {
            await relaxedCommit(trx)
            await createDeliveryStore(trx).record(attempt)
            await createDeliveryStore(trx).retryLater(addon.id, cursor, attempts, retryAt, since)
          })
          await store.prune(addon.id, LOG_KEPT)
          return
        }
        cursor = event.cursor
        attempts = 0
        failingSince = null
        // The try and the step past it in one commit, which need not wait for the disk: losing
        // it in a crash only sends the event again (at least once).
        const stillEnabled = await db.transaction().execute(async (trx) => {
          await relaxedCommit(trx)
          await createDeliveryStore(trx).record(attempt)
          return createDeliveryStore(trx).advance(addon.id, cursor, leaseUntil())
        })
        // Disabled meanwhile: its backlog is not sent (an integration enabled again starts from then).
        if (!stillEnabled) return store.release(addon.id)
      }
      if (page.cursor !== cursor && !stopped) cursor = page.cursor
      const stillEnabled = await store.advance(addon.id, cursor, leaseUntil())
      await store.prune(addon.id, LOG_KEPT)
      if (!stillEnabled) return store.release(addon.id)
      if (page.events.length < PAGE || stopped) break
    }
    await store.release(addon.id)
  }

  async function run(): Promise<void> {
    do {
      again = false
      const now = new Date()
      const due = await store.claimDue(SENDING_PROVIDERS, now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString())
      // Integrations side by side; each one's events in order.
      await Promise.all(
        due.map((addon) =>
          (stopped ? store.release(addon.id) : deliver(addon)).catch(async (error: unknown) => {
            log.warn({ err: error, integration: addon.id }, 'delivering to an integration failed; it is tried again later')
            await store.release(addon.id).catch(() => {})
          }),
        ),
      )
    } while (again && !stopped)
  }

  /** Runs a round now, or once more after the one under way. */
  function tick(): void {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = run()
      .catch((error: unknown) => log.warn({ err: error }, 'the integrations delivery round failed'))
      .finally(() => {
        running = undefined
      })
  }

  const timer = setInterval(tick, pollMs)
  timer.unref()
  // A change here (or, on PostgreSQL, anywhere) may have written an event: look at once.
  const unsubscribe = options.changes.subscribe?.(() => setImmediate(tick))

  return {
    tick,
    async stop(): Promise<void> {
      stopped = true
      clearInterval(timer)
      unsubscribe?.()
      await running
    },
  }
}
