import { DatabaseSync } from 'node:sqlite'
import pg from 'pg'

/**
 * Tells a cache of database data whether what it holds may be out of date: `version()`
 * changes whenever the watched data may have changed — written by this process, another
 * instance, or an operator by hand — and is `undefined` while that cannot be known
 * (the cache must then not be used).
 */
export interface ChangeWatch {
  version(): number | undefined
  /** This process has just committed a change to the watched data: a new version at once. */
  changed(): void
  close(): Promise<void>
}

/**
 * SQLite: the file's `data_version`, read on a connection of its own, changes with every commit
 * by any other connection (this process's writer included). Exact and synchronous (a few µs):
 * a cache checked against it is never stale, even with several processes on one file.
 */
export function watchSqliteCommits(file: string): ChangeWatch {
  const connection = new DatabaseSync(file, { readOnly: true })
  const dataVersion = connection.prepare('pragma data_version')
  let open = true
  return {
    version: () => (open ? Number((dataVersion.get() as { data_version: number }).data_version) : undefined),
    // This process's commit came through its writer, another connection: data_version has moved already.
    changed: () => {},
    async close() {
      open = false
      connection.close()
    },
  }
}

const RECONNECT_DELAY_MS = 1_000

/**
 * PostgreSQL: a session of its own LISTENs on `channel` (notified by triggers when a watched
 * table's change commits: migration 0002); every notification is a new version. Until the
 * LISTEN is in place, and whenever the session is lost, the version is `undefined`; it
 * reconnects in the background. A notification arrives a moment after the commit, so
 * another instance may still use what it remembered for that moment (milliseconds).
 */
export function watchPgNotifications(connectionString: string, channel: string): ChangeWatch {
  let version = 0
  let listening = false
  let closed = false
  let client: pg.Client | undefined
  let retry: NodeJS.Timeout | undefined

  const lost = (session: pg.Client) => {
    if (client !== session) return
    listening = false
    client = undefined
    session.end().catch(() => {})
    if (!closed) retry = setTimeout(connect, RECONNECT_DELAY_MS).unref()
  }

  function connect(): void {
    const session = new pg.Client({ connectionString })
    client = session
    session.on('error', () => lost(session))
    session.on('end', () => lost(session))
    session.on('notification', () => version++)
    session
      .connect()
      .then(() => session.query(`listen ${channel}`))
      .then(() => {
        if (client !== session) return
        // Changes made before the LISTEN were not heard: start from a version no cache has seen.
        version++
        listening = true
      })
      .catch(() => lost(session))
  }
  connect()

  return {
    version: () => (listening ? version : undefined),
    // Its own notification is on its way too; this makes the change count here before the response leaves.
    changed: () => void version++,
    async close() {
      closed = true
      listening = false
      clearTimeout(retry)
      const session = client
      client = undefined
      await session?.end().catch(() => {})
    },
  }
}
