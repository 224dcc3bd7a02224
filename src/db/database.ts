import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import Cursor from 'pg-cursor'
import { createNodeSqliteDialect } from './sqlite-dialect.ts'
import { watchPgNotifications, watchSqliteCommits, type ChangeWatch } from './change-watch.ts'
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
  /** Follows changes to API tokens and service accounts, by any process (for the principal cache); closed with the rest. */
  watchTokenChanges(): ChangeWatch
  close(): Promise<void>
}

export interface DbOptions {
  databaseUrl?: string | undefined
  databaseFile?: string
  /** PostgreSQL only: the schema to work in (tests give each file its own). */
  schema?: string
  poolSize?: number
}

const TIMESTAMPTZ_OID = 1184
const INT8_OID = 20

/** The same values come back from both databases: timestamps as ISO strings with ms and Z, counts as numbers. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ_OID) {
      const parseDate = pg.types.getTypeParser(oid, 'text') as (value: string) => Date
      return (value: string) => parseDate(value).toISOString()
    }
    if (oid === INT8_OID) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format ?? 'text')
  },
}

/** The channel migration 0002's triggers notify. */
const TOKEN_CHANGES_CHANNEL = 'pennon_token_changes'

const UNKNOWABLE: ChangeWatch = { version: () => undefined, changed: () => {}, close: async () => {} }

export function createDb(options: DbOptions): Db {
  const watches: ChangeWatch[] = []
  const watched = (watch: ChangeWatch) => {
    watches.push(watch)
    return watch
  }
  const closeWatches = () => Promise.all(watches.splice(0).map((watch) => watch.close()))

  if (options.databaseUrl) {
    const databaseUrl = options.databaseUrl
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: pgTypes,
      // No JIT: every Pennon statement is an index lookup or range scan, and a long read's plan
      // costs enough to trigger it: compiling (and, in a new session, loading LLVM) delayed the
      // first byte of a 1,000,000-event read by up to 200 ms.
      options: ['-c jit=off', ...(options.schema ? [`-c search_path=${options.schema}`] : [])].join(' '),
    })
    // An idle client losing its server must not crash the process; the next query reconnects.
    pool.on('error', () => {})
    // A checked-out client losing its server (a restart, pg_terminate_backend) emits 'error' too, and the
    // pool listens only to idle ones: without this the process would crash. The query in progress fails
    // on its own, and the pool drops the broken client when it is released.
    pool.on('connect', (client) => client.on('error', () => {}))
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) })
    return {
      db,
      reader: db,
      dialect: 'postgres',
      watchTokenChanges: () => watched(watchPgNotifications(databaseUrl, TOKEN_CHANGES_CHANNEL)),
      async close() {
        await closeWatches()
        await db.destroy()
      },
    }
  }

  const file = options.databaseFile ?? './data/pennon.sqlite'
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = new Kysely<Database>({ dialect: createNodeSqliteDialect({ file, connections: 1 }) })
  const reader = new Kysely<Database>({ dialect: createNodeSqliteDialect({ file, connections: 4, readOnly: true }) })
  return {
    db,
    reader,
    dialect: 'sqlite',
    // An in-memory database is private to one connection: nothing else can change it, but nothing can watch it either.
    watchTokenChanges: () => (file === ':memory:' ? UNKNOWABLE : watched(watchSqliteCommits(file))),
    async close() {
      await closeWatches()
      await reader.destroy()
      await db.destroy()
    },
  }
}
