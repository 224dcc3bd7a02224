import type * as Pg from 'pg'
import { EVERYTHING, SCOPES, versions, widen, type LocalChangeWatch, type WriteScope } from './change-watch.ts'
import { loadPg } from './pg-module.ts'

const RECONNECT_DELAY_MS = 1_000

/** How often this instance looks for changes committed since it last looked: the longest it stays stale when a notification is lost. */
export const CHANGE_POLL_MS = 1_000

// A read of the watch's session unanswered for this long: the session is taken for lost (a
// connection dropped without a word), and a new one is opened meanwhile.
const STALLED_MS = 15_000

// Change marks are deleted once their transaction ended more than this long ago: every instance
// has read since (or its session was lost, which moves its version anyway).
const PRUNE_MS = 60_000

// Under a stream of writes, one notification sent and one look taken per this many ms at most (a
// change is heard that much later at worst): each is a statement, and a notification after every
// group commit of every instance took more of the database's time than the writes themselves.
const SPACING_MS = 10

const SNAPSHOT = 'select pg_current_snapshot()::text as snapshot'

/**
 * Whether a change committed since the snapshot `$1` (as text) was taken: an event or a change
 * mark of a transaction not ended then (younger than all it knew of, or running then; a
 * transaction of the rows read has committed). Index reads only, each the first entry at or
 * after a transaction id (`order by … limit 1`, which no statistics turn into a scan): from the
 * snapshot's xmax, and at each of its running transactions (a few). 0.06 ms prepared.
 */
const CHANGED_SINCE = `${SNAPSHOT},
  (select e.tx from events e where e.tx >= pg_snapshot_xmax($1::pg_snapshot) order by e.tx limit 1) is not null
  or exists (select from pg_snapshot_xip($1::pg_snapshot) as running(tx)
    where (select e.tx from events e where e.tx >= running.tx order by e.tx limit 1) = running.tx)
  or (select m.tx from change_marks m where m.tx >= pg_snapshot_xmax($1::pg_snapshot) order by m.tx limit 1) is not null
  or exists (select from pg_snapshot_xip($1::pg_snapshot) as running(tx)
    where (select m.tx from change_marks m where m.tx >= running.tx order by m.tx limit 1) = running.tx) as changed`

// The marks of transactions ended before the snapshot `$1` was taken.
const PRUNE_MARKS = 'delete from change_marks where tx < pg_snapshot_xmin($1::pg_snapshot)'

// Not waiting for the log flush: the lock PostgreSQL takes on the notification queue at this
// commit is held until it is flushed, and a notification lost with the server is one lost anyway.
// The payload is the schema, a space and what the commits told of may have changed (scopeText).
const NOTIFY = `select set_config('synchronous_commit', 'off', true), pg_notify($1, current_schema() || ' ' || $2)`

const NOTHING: WriteScope = { ...EVERYTHING }
for (const name of SCOPES) NOTHING[name] = false

/** A scope as a notification names it: the scopes' names, comma-separated (`flags,events`). */
const scopeText = (scope: WriteScope): string => SCOPES.filter((name) => scope[name]).join(',')

/**
 * What a notification about `schema` says may have changed: `<schema> <scopeText>` from Pennon;
 * the schema alone from a change trigger (anyone else's write: which tables is not said, so
 * everything). Undefined: not about this schema.
 */
function scopeOfPayload(payload: string | undefined, schema: string | undefined): WriteScope | undefined {
  if (schema === undefined || payload === undefined) return undefined
  if (payload === schema) return EVERYTHING
  if (!payload.startsWith(`${schema} `)) return undefined
  const named = new Set(payload.slice(schema.length + 1).split(','))
  const scope = { ...NOTHING }
  for (const name of SCOPES) scope[name] = named.has(name)
  return scope
}

/**
 * PostgreSQL: a session of its own LISTENs on `channel`. Pennon's writes notify it after their
 * commit (`tellOthers`, called by db/database.ts: one notification for every commit made while
 * the one before was on its way); a write by anyone else notifies from a trigger (migrations
 * 0002, 0003, 0005, 0006, 0010, 0011, 0013, 0014, 0019, 0027), with the table's schema as payload.
 * A notification about this instance's schema moves the versions it names (Pennon's say what the
 * commits may have changed, so another instance's segment creates leave its tokens, settings and
 * context fields remembered; a trigger's moves them all). The same session looks every
 * CHANGE_POLL_MS for a change committed since the snapshot of its last look (CHANGED_SINCE): a
 * change whose notification never came (its instance died between its commit and its
 * notification, or that session was down) moves every version within a poll. This process's
 * writes move them at once (`wrote`). Until the LISTEN is in place, and whenever that session is
 * lost, the version is `undefined`; it reconnects in the background.
 */
export function watchPgNotifications(connection: Pg.ClientConfig, channel: string): LocalChangeWatch {
  const version = versions()
  let listening = false
  let closed = false
  let client: Pg.Client | undefined
  let retry: NodeJS.Timeout | undefined
  let poll: NodeJS.Timeout | undefined

  // The snapshot of the last look (every change committed before it counted), and the look under way.
  let looked: string | undefined
  let reading: { session: Pg.Client; since: number } | undefined
  let readAgain = false
  let lastRead = Number.NEGATIVE_INFINITY
  let readLater: NodeJS.Timeout | undefined
  // Marks of transactions ended before this snapshot are deleted at the next prune.
  let prune: { at: number; before: string | undefined } = { at: performance.now(), before: undefined }

  // What commits of this process that others have not been told of may have changed; the notification under way.
  let owed: WriteScope | undefined
  let telling: { session: Pg.Client; sent: Promise<void>; scope: WriteScope } | undefined
  let lastTold = Number.NEGATIVE_INFINITY
  let tellLater: NodeJS.Timeout | undefined

  /** Runs `run` now, or once SPACING_MS have passed since `last` (one timer at a time). */
  const spaced = (last: number, timer: NodeJS.Timeout | undefined, run: () => void): NodeJS.Timeout | undefined | 'now' => {
    const wait = last + SPACING_MS - performance.now()
    if (wait <= 0) return 'now'
    return timer ?? setTimeout(run, wait).unref()
  }

  const lost = (session: Pg.Client) => {
    if (client !== session) return
    listening = false
    client = undefined
    clearInterval(poll)
    // What was under way on it may never settle: the next session starts afresh.
    if (reading?.session === session) reading = undefined
    if (telling?.session === session) {
      owed = widen(owed ?? NOTHING, telling.scope)
      telling = undefined
    }
    session.end().catch(() => {})
    if (!closed) retry = setTimeout(connect, RECONNECT_DELAY_MS).unref()
  }

  /** Looks for changes since the last look; moves every version if there is one (which tables is not known). */
  function read(): void {
    const session = client
    if (!session || !listening || looked === undefined) return
    if (reading) {
      readAgain = true
      return
    }
    const when = spaced(lastRead, readLater, () => {
      readLater = undefined
      read()
    })
    if (when !== 'now') {
      readLater = when
      return
    }
    readAgain = false
    const now = performance.now()
    lastRead = now
    const pruning = now - prune.at >= PRUNE_MS ? prune.before : undefined
    reading = { session, since: now }
    session
      .query<{ snapshot: string; changed: boolean }>({ name: 'pennon_changed_since', text: CHANGED_SINCE, values: [looked] })
      .then(async (result) => {
        if (client !== session) return
        const { snapshot, changed } = result.rows[0]!
        // After the look: a cache filled from now on sees every change committed before its snapshot.
        if (changed) version.changed()
        looked = snapshot
        if (now - prune.at < PRUNE_MS) return
        prune = { at: now, before: snapshot }
        if (pruning !== undefined) await session.query(PRUNE_MARKS, [pruning])
      })
      .catch(() => lost(session))
      .finally(() => {
        if (reading?.session === session) reading = undefined
        if (client === session && readAgain) read()
      })
  }

  /** Sends one notification for every commit owed so far, unless one is on its way (it sends the next). */
  function tell(): void {
    const session = client
    if (!session || !listening || telling || !owed) return
    const when = spaced(lastTold, tellLater, () => {
      tellLater = undefined
      tell()
    })
    if (when !== 'now') {
      tellLater = when
      return
    }
    lastTold = performance.now()
    const scope = owed
    owed = undefined
    const sent = session
      .query(NOTIFY, [channel, scopeText(scope)])
      .then(
        () => {},
        () => {
          // Sent again once the session is back.
          owed = widen(owed ?? NOTHING, scope)
          lost(session)
        },
      )
      .finally(() => {
        if (telling?.session === session) telling = undefined
        tell()
      })
    telling = { session, sent, scope }
  }

  function connect(): void {
    const session = new (loadPg().Client)(connection)
    client = session
    let schema: string | undefined
    session.on('error', () => lost(session))
    session.on('end', () => lost(session))
    // Other deployments (or test files) may use other schemas of the same database: not our change.
    // A notification comes after its commit: what it names moves at once, without a look (the
    // next poll's look finds that commit too, and moves every version once more: at most once a
    // poll interval, however many are heard).
    session.on('notification', (message) => {
      const scope = listening ? scopeOfPayload(message.payload, schema) : undefined
      if (scope !== undefined) version.changed(scope)
    })
    session
      .connect()
      .then(() => session.query<{ schema: string }>('select current_schema() as schema'))
      .then((result) => {
        schema = result.rows[0]?.schema
        return session.query(`listen ${channel}`)
      })
      .then(() => session.query<{ snapshot: string }>(SNAPSHOT))
      .then((result) => {
        if (client !== session) return
        looked = result.rows[0]!.snapshot
        // Changes made before the LISTEN were not heard: start from a version no cache has seen.
        version.changed()
        listening = true
        poll = setInterval(() => {
          if (reading && performance.now() - reading.since > STALLED_MS) lost(reading.session)
          else read()
        }, CHANGE_POLL_MS).unref()
        tell()
      })
      .catch(() => lost(session))
  }
  connect()

  return {
    version: (watched) => (listening ? version.get(watched) : undefined),
    wrote: (scope) => version.changed(scope),
    tellOthers(scope) {
      owed = widen(owed ?? NOTHING, scope)
      tell()
    },
    subscribe: (listener) => version.subscribe(listener),
    async close() {
      closed = true
      // What this process wrote last is told before its session ends.
      clearTimeout(tellLater)
      tellLater = undefined
      lastTold = Number.NEGATIVE_INFINITY
      tell()
      while (telling) await telling.sent
      listening = false
      clearTimeout(retry)
      clearTimeout(readLater)
      clearInterval(poll)
      const session = client
      client = undefined
      await session?.end().catch(() => {})
    },
  }
}
