import { mkdirSync } from 'node:fs'
import type { DatabaseSync } from 'node:sqlite'
import { dirname } from 'node:path'
import { Kysely, PostgresDialect } from 'kysely'
import type * as Pg from 'pg'
import { loadPg, loadPgCursor } from './pg-module.ts'
import { createNodeSqliteDialect } from './sqlite-dialect.ts'
import {
  announcingWrites,
  mustTellOthers,
  UNKNOWABLE,
  watchSqliteCommits,
  type ChangeWatch,
  type LocalChangeWatch,
} from './change-watch.ts'
import { watchPgNotifications } from './pg-change-watch.ts'
import type { Database } from './tables.ts'
import type { DialectName } from './dialect.ts'

export interface Db {
  /** Writes, transactions and short reads. */
  readonly db: Kysely<Database>
  /**
   * Long streamed reads. On SQLite these get connections of their own, so a stream
   * never holds the writer (WAL lets readers run beside it); on PostgreSQL it is the same pool.
   */
  readonly reader: Kysely<Database>
  readonly dialect: DialectName
  /**
   * Follows changes to the cached tables (tokens, service accounts, events) by any process:
   * one watch per Db, opened on first use, closed with the rest.
   */
  watchChanges(): ChangeWatch
  close(): Promise<void>
}

export interface DbOptions {
  databaseUrl?: string | undefined
  databaseFile?: string
  /** PostgreSQL only: the schema to work in (tests give each file its own). */
  schema?: string
  poolSize?: number
  /**
   * PostgreSQL: `false` never tells other instances of this process's commits, as a process that
   * dies between each commit and its notification (a test of their poll). Default `true`.
   */
  notifyOthers?: boolean
}

const TIMESTAMPTZ_OID = 1184
const INT8_OID = 20

/** The same values come back from both databases: timestamps as ISO strings with ms and Z, counts as numbers. */
const pgTypes = (pg: typeof Pg) => ({
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ_OID) {
      const parseDate = pg.types.getTypeParser(oid, 'text') as (value: string) => Date
      return (value: string) => parseDate(value).toISOString()
    }
    if (oid === INT8_OID) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format ?? 'text')
  },
})

// Distinct statements a session keeps prepared; Pennon issues far fewer, so each is parsed once per session.
const PREPARED_PER_SESSION = 500

/**
 * Sends each statement with parameters as a named prepared statement: PostgreSQL parses it once
 * per session instead of on every call, and may reuse its plan. The names are per session (pg
 * tracks what it prepared on each), and bounded: past the limit, statements go unnamed as before.
 */
function prepareStatements(client: Pg.PoolClient): void {
  const names = new Map<string, string>()
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      let name = names.get(text)
      if (name === undefined && names.size < PREPARED_PER_SESSION) {
        name = `pennon_${names.size + 1}`
        names.set(text, name)
      }
      if (name !== undefined) return query({ name, text, values }, callback)
    }
    return query(text, values, callback)
  }) as typeof client.query
}

/** The channel Pennon notifies after its commits, and the change triggers of migrations 0002, 0003, 0014 and 0027 for anyone else. */
const CHANGES_CHANNEL = 'pennon_changes'

export function createDb(options: DbOptions): Db {
  if (options.databaseUrl) {
    const pg = loadPg()
    const session: Pg.ClientConfig = {
      connectionString: options.databaseUrl,
      // No JIT: every Pennon statement is an index lookup or range scan, and a long read's plan
      // costs enough to trigger it: compiling (and, in a new session, loading LLVM) delayed the
      // first byte of a 1,000,000-event read by up to 200 ms.
      // And the change triggers stay silent for Pennon: it notifies after its commits (migration 0027).
      options: ['-c jit=off', '-c pennon.notify_after_commit=on', ...(options.schema ? [`-c search_path=${options.schema}`] : [])].join(
        ' ',
      ),
    }
    const pool = new pg.Pool({ ...session, max: options.poolSize ?? 10, types: pgTypes(pg) })
    // An idle client losing its server must not crash the process; the next query reconnects.
    pool.on('error', () => {})
    // A checked-out client losing its server (a restart, pg_terminate_backend) emits 'error' too, and the
    // pool listens only to idle ones: without this the process would crash. The query in progress fails
    // on its own, and the pool drops the broken client when it is released.
    pool.on('connect', (client) => {
      client.on('error', () => {})
      prepareStatements(client)
    })
    let watch: LocalChangeWatch | undefined
    const notifyOthers = options.notifyOthers ?? true
    // This process's writes count for its caches the moment they are visible, before any notification;
    // other instances are told after the commit (none while no watch is open: they see it in their polls).
    const dialect = announcingWrites(new PostgresDialect({ pool, cursor: loadPgCursor() }), (scope) => {
      watch?.wrote(scope)
      if (notifyOthers && mustTellOthers(scope)) watch?.tellOthers?.(scope)
    })
    const db = new Kysely<Database>({ dialect })
    return {
      db,
      reader: db,
      dialect: 'postgres',
      // Named, so that operators (and tests) can tell the listening session in pg_stat_activity.
      watchChanges: () =>
        (watch ??= watchPgNotifications(
          { ...session, application_name: `pennon change watch${options.schema ? ` ${options.schema}` : ''}` },
          CHANGES_CHANNEL,
        )),
      async close() {
        await watch?.close()
        await db.destroy()
      },
    }
  }

  const file = options.databaseFile ?? './data/pennon.sqlite'
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  let watch: LocalChangeWatch | undefined
  const closed = new AbortController()
  const { signal } = closed
  // The writer announces this process's commits to the watch at once, with what they may have
  // changed; the watch reads data_version on the writer's connection, which its own commits leave
  // alone, for everyone else's (at most every 2 ms).
  let writer: DatabaseSync | undefined
  const db = new Kysely<Database>({
    dialect: announcingWrites(
      createNodeSqliteDialect({ file, connections: 1, signal, onOpen: (connection) => (writer = connection) }),
      (scope) => watch?.wrote(scope),
    ),
  })
  const reader = new Kysely<Database>({ dialect: createNodeSqliteDialect({ file, connections: 4, readOnly: true, signal }) })
  return {
    db,
    reader,
    dialect: 'sqlite',
    // An in-memory database is private to one connection: nothing can watch it.
    watchChanges: () => (file === ':memory:' ? UNKNOWABLE : (watch ??= watchSqliteCommits(file, () => writer))),
    async close() {
      closed.abort()
      await watch?.close()
      await reader.destroy()
      await db.destroy()
    },
  }
}
