/**
 * Delivers events to integrations, at least once and in order per integration. The event log is
 * the outbox: every change wrote its event in its own transaction, and each integration's cursor
 * says which it has had (read in commit order, events/event-log.ts). An instance takes an
 * integration that has events after its cursor (a lease, so one instance sends for it at a time)
 * and keeps it while they come: it sends each matching event, and commits the tries and the
 * step past them every COMMIT_EVERY sends or COMMIT_MS; idle for LINGER_MS, it gives it back. A
 * crash or a lost lease sends the events since the last commit again (the same `webhook-id`s).
 * An instance with nothing to send writes nothing. A failed send stops
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
/**
 * An integration's log is pruned after this many new tries: finding the oldest try kept reads
 * LOG_KEPT index entries, so pruning as often as every 100 tries cost the database more than
 * recording them (bench/integrations.ts on PostgreSQL: 60% of the worker's statement time).
 */
const PRUNE_EVERY = 1000
/** The least time between two looks for integrations to take, while changes keep coming. */
const ROUND_GAP_MS = 20
/** How long an integration is kept with nothing to send before its lease is given back. */
const LINGER_MS = 1000
/** Tries kept in an integration's delivery log (up to PRUNE_EVERY more until the next prune). */
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

/** A page of the log, each event's head parsed once for every integration that reads it. */
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
  /** The integrations this instance is sending for. */
  const active = new Map<number, Promise<void>>()
  let running: Promise<void> | undefined
  let again = false
  // After a look that found nothing to take: the integrations' version then, and when the first
  // retry pending is due. Until either moves, a change heard is no reason to look again (where
  // no integration is enabled, no write pays a look); the interval's tick looks anyway (a lease
  // of a stopped instance running out).
  let nothingDue: { version: number; until: number } | undefined
  let stopped = false

  // Pages read since the last change heard: integrations at the same place share one read, and
  // one that read nothing new waits for the next change (or pollMs) before reading again.
  let pages = new Map<EventCursor, Promise<Page>>()
  let changed: { promise: Promise<void>; resolve(): void } = Promise.withResolvers<void>()
  const heard = () => {
    pages = new Map()
    const { resolve } = changed
    changed = Promise.withResolvers<void>()
    resolve()
  }
  const readPage = (cursor: EventCursor): Promise<Page> => {
    let page = pages.get(cursor)
    if (!page) {
      page = readEventsAfter(db, cursor, PAGE).then((read) => ({
        cursor: read.cursor,
        events: read.events.map((event) => ({ ...event, head: JSON.parse(event.json) as EventHead })),
      }))
      // A failed read is not kept (in the map it was put in: a change heard meanwhile started another).
      const readInto = pages
      page.catch(() => readInto.delete(cursor))
      readInto.set(cursor, page)
    }
    return page
  }
  const nextChange = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      void changed.promise.then(() => {
        clearTimeout(timer)
        resolve()
      })
    })

  async function recordTries<T>(
    id: number,
    tries: Attempt[],
    step: (trx: ReturnType<typeof createDeliveryStore>) => Promise<T>,
  ): Promise<T> {
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

  async function deliver(claimed: DueAddon): Promise<void> {
    const { id } = claimed
    let addon = claimed
    let cursor = addon.cursor
    /** Where the stored cursor is: a commit from anywhere else means this instance stops. */
    let committed = cursor
    let { attempts, failingSince } = addon
    let tries: Attempt[] = []
    let lastCommit = Date.now()
    let lastEvent = Date.now()
    /**
     * Records the tries so far and moves past them, and reads the integration's settings back:
     * false when it was disabled, deleted or enabled anew meanwhile (then this stops there).
     */
    const commit = async (release: boolean): Promise<boolean> => {
      const done = tries
      tries = []
      lastCommit = Date.now()
      const from = committed
      committed = cursor
      const now = await recordTries(id, done, (trx) => trx.advance(id, from, cursor, release ? null : leaseUntil()))
      if (now === undefined) return false
      addon = now
      return true
    }
    for (;;) {
      const page = await readPage(cursor)
      for (const event of page.events) {
        if (stopped) break
        lastEvent = Date.now()
        if (!takes(addon, event.head)) {
          cursor = event.cursor
          continue
        }
        // Committed now and then, not after every send; each commit reads the settings back, so a
        // send never goes more than COMMIT_MS after the integration was last seen enabled as it is.
        if ((tries.length >= COMMIT_EVERY || Date.now() - lastCommit >= COMMIT_MS) && !(await commit(false))) return store.release(id)
        if (!takes(addon, event.head)) {
          cursor = event.cursor
          continue
        }
        const result = await send(addon.provider, addon.parameters, event.json, `pennon-${id}-${event.id}`, sendOptions)
        const now = new Date()
        const givenUp =
          result.state === 'failed' && failingSince !== null && now.getTime() - Date.parse(failingSince) > retentionHours * 3_600_000
        tries.push({
          integrationId: id,
          createdAt: now.toISOString(),
          state: result.state,
          stateDetails: givenUp ? `${result.stateDetails}\nGiven up: failing for more than ${retentionHours} hours.` : result.stateDetails,
          event: event.json,
          details: result.details,
        })
        // A failure no try can mend (final) is recorded and passed, as one given up.
        if (result.state === 'failed' && !givenUp && !result.final) {
          attempts += 1
          const retryAt = new Date(now.getTime() + Math.min(2 ** (attempts - 1), retryMaxSeconds) * 1000).toISOString()
          const since = failingSince ?? now.toISOString()
          await recordTries(id, tries, (trx) => trx.retryLater(id, cursor, attempts, retryAt, since))
          return
        }
        cursor = event.cursor
        attempts = 0
        failingSince = null
      }
      if (page.cursor !== cursor && !stopped) cursor = page.cursor
      if (page.events.length === PAGE && !stopped) continue
      // Caught up (or stopping): what was sent is committed; idle for LINGER_MS, the lease is given back.
      const release = stopped || Date.now() - lastEvent >= LINGER_MS
      // Disabled meanwhile: its backlog is not sent (an integration enabled again starts from then).
      if ((tries.length > 0 || cursor !== committed || release) && !(await commit(release))) return store.release(id)
      if (release) return
      await nextChange(Math.min(pollMs, LINGER_MS))
      if (stopped) return void (await commit(true))
    }
  }

  function start(addon: DueAddon): void {
    const delivery = deliver(addon)
      .catch(async (error: unknown) => {
        log.warn({ err: error, integration: addon.id }, 'delivering to an integration failed; it is tried again later')
        await store.release(addon.id).catch(() => {})
      })
      .finally(() => {
        active.delete(addon.id)
        // It may have stopped with events come meanwhile (a failure, disabled): look again.
        tick()
      })
    active.set(addon.id, delivery)
  }

  /** Takes the integrations that have an event after their cursor, and starts sending for each. */
  async function run(): Promise<void> {
    do {
      again = false
      const now = new Date()
      // Only those with an event after their cursor are taken: a look with nothing to send
      // writes nothing, so its own writes never wake the next.
      const version = options.changes.version('integrations')
      const due = await store.due(SENDING_PROVIDERS, now.toISOString())
      const candidates = due.filter(({ id, retryAt }) => !active.has(id) && (retryAt === null || retryAt <= now.getTime()))
      const retries = due.flatMap(({ retryAt }) => (retryAt !== null && retryAt > now.getTime() ? [retryAt] : []))
      nothingDue = candidates.length === 0 && version !== undefined ? { version, until: Math.min(...retries) } : undefined
      const waiting = await Promise.all(candidates.map(async ({ id, cursor }) => ((await readPage(cursor)).events.length > 0 ? id : -1)))
      const taken = await store.claim(
        waiting.filter((id) => id >= 0),
        now.toISOString(),
        new Date(now.getTime() + LEASE_MS).toISOString(),
      )
      for (const addon of taken) {
        if (stopped) await store.release(addon.id)
        else start(addon)
      }
      // Under a stream of changes, a look at most every ROUND_GAP_MS.
      if (again && !stopped) await new Promise((resolve) => setTimeout(resolve, ROUND_GAP_MS))
    } while (again && !stopped)
  }

  /** Looks for integrations to take now, or once more after the look under way. */
  function tick(): void {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = run()
      .catch((error: unknown) => log.warn({ err: error }, 'looking for integrations to deliver to failed'))
      .finally(() => {
        running = undefined
      })
  }

  const timer = setInterval(() => {
    heard()
    tick()
  }, pollMs)
  timer.unref()
  // A change here (or, on PostgreSQL, anywhere) that may have written an event: the pages are read
  // again and the integrations looked for at once; one of the integrations alone (the tries and
  // cursors this worker commits, as every instance's) is only worth a look for integrations.
  let seen: { events: number | undefined; integrations: number | undefined } = { events: undefined, integrations: undefined }
  const unsubscribe = options.changes.subscribe?.(() =>
    setImmediate(() => {
      const now = { events: options.changes.version('events'), integrations: options.changes.version('integrations') }
      const newEvents = now.events === undefined || now.events !== seen.events
      const integrationsChanged = now.integrations === undefined || now.integrations !== seen.integrations
      seen = now
      if (newEvents) heard()
      else if (!integrationsChanged) return
      if (nothingDue && now.integrations === nothingDue.version && Date.now() < nothingDue.until) return
      tick()
    }),
  )

  return {
    tick,
    async stop(): Promise<void> {
      stopped = true
      clearInterval(timer)
      unsubscribe?.()
      heard()
      await running
      await Promise.all(active.values())
    },
  }
}
