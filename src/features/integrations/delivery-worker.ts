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
import { type EventCursor, type LoggedEvent, readEventsAfter } from '../events/event-log.ts'
import { type Attempt, createDeliveryStore, type DueAddon } from './delivery-store.ts'
import { send, SENDING_PROVIDERS, type SendOptions } from './senders.ts'

const LEASE_MS = 60_000
const PAGE = 100
/** A delivering integration commits its tries and its step past them after this many sends, or this long. */
const COMMIT_EVERY = 50
const COMMIT_MS = 100
/** An integration's log is pruned after this many new tries. */
const PRUNE_EVERY = 100
/** The least time between two rounds that changes asked for. */
const ROUND_GAP_MS = 20
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

/** One page of the log as a round read it, each event's head parsed once for every integration. */
interface Page {
  events: Array<LoggedEvent & { head: EventHead }>
  cursor: EventCursor
}
type EventHead = { type: string; project: string | null; environment: string | null }

export function createDeliveryWorker(options: DeliveryOptions) {
  const { db, retryMaxSeconds, retentionHours, pollMs, log } = options
  const sendOptions: SendOptions = { allowedHosts: options.allowedHosts, slackApiUrl: options.slackApiUrl, publicUrl: options.publicUrl }
  const store = createDeliveryStore(db)
  const leaseUntil = () => new Date(Date.now() + LEASE_MS).toISOString()
  /** Tries recorded per integration since its log was last pruned. */
  const unpruned = new Map<number, number>()
  let running: Promise<void> | undefined
  let again = false
  let stopped = false

  async function recordTries(id: number, tries: Attempt[], step: (trx: ReturnType<typeof createDeliveryStore>) => Promise<boolean>) {
    // The tries and the step past them in one commit, which need not wait for the disk: losing
    // it in a crash only sends those events again (at least once).
    const result = await db.transaction().execute(async (trx) => {
      await relaxedCommit(trx)
      const trxStore = createDeliveryStore(trx)
      await trxStore.recordAll(tries)
      return step(trxStore)
    })
    const count = (unpruned.get(id) ?? 0) + tries.length
    if (count < PRUNE_EVERY) unpruned.set(id, count)
    else {
      unpruned.delete(id)
      await store.prune(id, LOG_KEPT)
    }
    return result
  }

  async function deliver(addon: DueAddon, readPage: (cursor: EventCursor) => Promise<Page>): Promise<void> {
    let cursor = addon.cursor
    let { attempts, failingSince } = addon
    let tries: Attempt[] = []
    let lastCommit = Date.now()
    /** Records the tries so far and moves past them; whether the integration is still enabled. */
    const commit = (release: boolean) => {
      const done = tries
      tries = []
      lastCommit = Date.now()
      return recordTries(addon.id, done, (trx) => trx.advance(addon.id, cursor, release ? null : leaseUntil()))
    }
    for (;;) {
      const page = await readPage(cursor)
      for (const event of page.events) {
        if (stopped) break
        if (!takes(addon, event.head)) {
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
        tries.push(attempt)
        // A failure no try can mend (final) is recorded and passed, as one given up.
        if (result.state === 'failed' && !givenUp && !result.final) {
          attempts += 1
          const retryAt = new Date(now.getTime() + Math.min(2 ** (attempts - 1), retryMaxSeconds) * 1000).toISOString()
          const since = failingSince ?? now.toISOString()
          await recordTries(addon.id, tries, async (trx) => {
            await trx.retryLater(addon.id, cursor, attempts, retryAt, since)
            return true
          })
          return
        }
        cursor = event.cursor
        attempts = 0
        failingSince = null
        // Committed now and then, not after every send: a few commits a second per integration
        // however many events go. An integration disabled meanwhile stops at the next commit.
        if ((tries.length >= COMMIT_EVERY || Date.now() - lastCommit >= COMMIT_MS) && !(await commit(false))) return store.release(addon.id)
      }
      if (page.cursor !== cursor && !stopped) cursor = page.cursor
      const last = page.events.length < PAGE || stopped
      const stillEnabled = await commit(last)
      // Disabled meanwhile: its backlog is not sent (an integration enabled again starts from then).
      if (!stillEnabled) return store.release(addon.id)
      if (last) return
    }
  }

  async function run(): Promise<void> {
    do {
      again = false
      const now = new Date()
      // Integrations that stand at the same place (most of the time, all of them) share each read.
      const pages = new Map<EventCursor, Promise<Page>>()
      const readPage = (cursor: EventCursor) => {
        let page = pages.get(cursor)
        if (!page) {
          page = readEventsAfter(db, cursor, PAGE).then((read) => ({
            cursor: read.cursor,
            events: read.events.map((event) => ({ ...event, head: JSON.parse(event.json) as EventHead })),
          }))
          pages.set(cursor, page)
        }
        return page
      }
      // Only those with an event after their cursor are taken: a round with nothing to send
      // writes nothing, so its own writes never wake the next round.
      const candidates = await store.due(SENDING_PROVIDERS, now.toISOString())
      const waiting = await Promise.all(candidates.map(async ({ id, cursor }) => ((await readPage(cursor)).events.length > 0 ? id : -1)))
      const due = await store.claim(
        waiting.filter((id) => id >= 0),
        now.toISOString(),
        new Date(now.getTime() + LEASE_MS).toISOString(),
      )
      // Integrations side by side; each one's events in order.
      await Promise.all(
        due.map((addon) =>
          (stopped ? store.release(addon.id) : deliver(addon, readPage)).catch(async (error: unknown) => {
            log.warn({ err: error, integration: addon.id }, 'delivering to an integration failed; it is tried again later')
            await store.release(addon.id).catch(() => {})
          }),
        ),
      )
      // Under a stream of changes, rounds at most every ROUND_GAP_MS, each taking what came meanwhile.
      if (again && !stopped) await new Promise((resolve) => setTimeout(resolve, ROUND_GAP_MS))
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
