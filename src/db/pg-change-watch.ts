import pg from 'pg'
import { versions, type LocalChangeWatch } from './change-watch.ts'

const RECONNECT_DELAY_MS = 1_000

/** How often the newest committed change is read: the longest another instance stays stale when a notification is lost. */
export const CHANGE_POLL_MS = 1_000

// A read of the watch's session unanswered for this long: the session is taken for lost (a
// connection dropped without a word), and a new one is opened meanwhile.
const STALLED_MS = 15_000

// change_marks keeps its newest row; the older ones are deleted this often (by each instance).
const PRUNE_MS = 10_000

/**
 * The newest change committed, as text: the last event and the last change mark in commit order
 * (events/event-log.ts: only transactions older than every one still running, so a change that
 * commits later sorts after every one read now, and moves this). Two index-only reads backwards.
 */
const NEWEST_CHANGE = `select coalesce((select e.tx::text || ':' || e.id from events e where e.tx < pg_snapshot_xmin(pg_current_snapshot())
    order by e.tx desc, e.id desc limit 1), '') || '/' || coalesce((select m.tx::text from change_marks m
    where m.tx < pg_snapshot_xmin(pg_current_snapshot()) order by m.tx desc limit 1), '') as newest`

// Keeps the newest mark read, which the next poll compares with: only older ones go.
const PRUNE_MARKS = `delete from change_marks where tx < (select max(tx) from change_marks
  where tx < pg_snapshot_xmin(pg_current_snapshot()))`

// Not waiting for the log flush: the lock PostgreSQL takes on the notification queue at this
// commit is held until it is flushed, and a notification lost with the server is one lost anyway.
const NOTIFY = `select set_config('synchronous_commit', 'off', true), pg_notify($1, current_schema())`

/**
 * PostgreSQL: a session of its own LISTENs on `channel`. Pennon's writes notify it after their
 * commit (`tellOthers`, called by db/database.ts: one notification for every commit made while
 * the one before was on its way); a write by anyone else notifies from a trigger (migrations
 * 0002, 0003, 0014, 0027), with the table's schema as payload. The same session reads the newest
 * committed change (NEWEST_CHANGE) every CHANGE_POLL_MS, and again at each notification about
 * this instance's schema (its own included), before moving the version: so a change whose
 * notification never came (its instance died between its commit and its notification, or that
 * session was down) moves the version within a poll, and one that was heard does not move it
 * twice. This process's writes move it at once (`wrote`). Until the LISTEN is in place, and
 * whenever that session is lost, the version is `undefined`; it reconnects in the background.
 */
export function watchPgNotifications(connection: pg.ClientConfig, channel: string): LocalChangeWatch {
  const version = versions()
  let listening = false
  let closed = false
  let client: pg.Client | undefined
  let retry: NodeJS.Timeout | undefined
  let poll: NodeJS.Timeout | undefined

  // The newest change this instance knows of (NEWEST_CHANGE), and the read of it under way.
  let newest: string | undefined
  let reading: { session: pg.Client; since: number } | undefined
  let readAgain = false
  // A read owed to a notification moves the version whatever it finds.
  let heard = false
  let prunedAt = performance.now()

  // A commit of this process that others have not been told of; the notification under way.
  let owed = false
  let telling: { session: pg.Client; sent: Promise<void> } | undefined

  const lost = (session: pg.Client) => {
    if (client !== session) return
    listening = false
    client = undefined
    clearInterval(poll)
    // What was under way on it may never settle: the next session starts afresh.
    if (reading?.session === session) reading = undefined
    if (telling?.session === session) {
      telling = undefined
      owed = true
    }
    session.end().catch(() => {})
    if (!closed) retry = setTimeout(connect, RECONNECT_DELAY_MS).unref()
  }

  /** Reads the newest change; moves the version if it is new, or if a notification asked for the read. */
  function read(): void {
    const session = client
    if (!session || !listening) return
    if (reading) {
      readAgain = true
      return
    }
    readAgain = false
    const notified = heard
    heard = false
    const now = performance.now()
    const prune = now - prunedAt >= PRUNE_MS
    if (prune) prunedAt = now
    reading = { session, since: now }
    session
      .query<{ newest: string }>(NEWEST_CHANGE)
      .then(async (result) => {
        if (client !== session) return
        const found = result.rows[0]!.newest
        // After the read: a cache filled from now on sees every change the read found.
        if (notified || found !== newest) version.changed()
        newest = found
        if (prune) await session.query(PRUNE_MARKS)
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
    owed = false
    const sent = session
      .query(NOTIFY, [channel])
      .then(
        () => {},
        () => {
          // Sent again once the session is back.
          owed = true
          lost(session)
        },
      )
      .finally(() => {
        if (telling?.session === session) telling = undefined
        tell()
      })
    telling = { session, sent }
  }

  function connect(): void {
    const session = new pg.Client(connection)
    client = session
    let schema: string | undefined
    session.on('error', () => lost(session))
    session.on('end', () => lost(session))
    // Other deployments (or test files) may use other schemas of the same database: not our change.
    session.on('notification', (message) => {
      if (message.payload !== schema) return
      heard = true
      read()
    })
    session
      .connect()
      .then(() => session.query<{ schema: string }>('select current_schema() as schema'))
      .then((result) => {
        schema = result.rows[0]?.schema
        return session.query(`listen ${channel}`)
      })
      .then(() => session.query<{ newest: string }>(NEWEST_CHANGE))
      .then((result) => {
        if (client !== session) return
        newest = result.rows[0]!.newest
        // Changes made before the LISTEN were not heard: start from a version no cache has seen.
        version.changed()
        heard = false
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
    tellOthers() {
      owed = true
      tell()
    },
    subscribe: (listener) => version.subscribe(listener),
    async close() {
      closed = true
      // What this process wrote last is told before its session ends.
      while (telling) await telling.sent
      listening = false
      clearTimeout(retry)
      clearInterval(poll)
      const session = client
      client = undefined
      await session?.end().catch(() => {})
    },
  }
}
