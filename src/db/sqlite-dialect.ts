/**
 * A Kysely dialect over Node's built-in `node:sqlite`.
 *
 * Kysely ships a SQLite dialect for better-sqlite3 only; this one keeps the same
 * adapter and compiler and adds what Pennon needs: a small pool of connections
 * (one writer, or several readers beside it in WAL mode), a prepared-statement
 * cache per connection, `BEGIN IMMEDIATE` transactions so that two processes on
 * one file serialize their writes, chunked streaming for cursors, statements that let
 * the event loop turn when they have kept it busy for YIELD_AFTER_MS, and the checkpoint after
 * a transaction that did so on a thread of its own (sqlite-checkpoint.ts).
 */
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite'
import { AUTOCHECKPOINT_PAGES, createBackgroundCheckpoints } from './sqlite-checkpoint.ts'
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely'

export interface NodeSqliteOptions {
  file: string
  /** How many connections to open; each is used by one query or transaction at a time. */
  connections: number
  readOnly?: boolean
  /**
   * Aborted when the database is closed. Kysely does not destroy a pool it never opened, and would
   * open it on a later use: this refuses that (a /health after the close fails, as it should).
   */
  signal?: AbortSignal
  /** Told of each connection opened (the change watch reads `data_version` on the writer's: database.ts). */
  onOpen?: (connection: DatabaseSync) => void
}

const STATEMENT_CACHE_SIZE = 256

/**
 * node:sqlite runs every statement synchronously and Kysely's awaits are microtasks, so a long
 * transaction (a maximal import: some 90,000 statements) would keep the event loop from turning
 * until its commit: no other request, not even /health, would be answered meanwhile. So a
 * statement that finds statements running in the event loop's current turn for this long lets it
 * turn first (I/O is polled before it goes on). A connection in a transaction is not
 * released while it waits, so nothing runs on it in between: other users of the writer queue
 * for it (acquireConnection), as they did while it ran.
 */
export const YIELD_AFTER_MS = 10

/**
 * Rows a transaction that let the event loop turn must have changed for its commit's checkpoint to
 * go to a worker thread (sqlite-checkpoint.ts): fewer add at most a few hundred pages to the
 * 1,000 that SQLite checkpoints on the committing connection anyway.
 */
export const LONG_COMMIT_ROWS = 5000

// When the current turn of the event loop began running statements; undefined once it has ended.
// One for the process: every connection's statements block the same event loop.
let turnStarted: number | undefined
const endTurn = (): void => {
  turnStarted = undefined
}

/** Whether statements have kept the current turn of the event loop busy for YIELD_AFTER_MS: one clock read. */
function turnIsLong(): boolean {
  const now = performance.now()
  if (turnStarted === undefined) {
    // The first statement of this turn: the loop's next check phase marks its end.
    turnStarted = now
    setImmediate(endTurn)
    return false
  }
  return now - turnStarted >= YIELD_AFTER_MS
}

export function createNodeSqliteDialect(options: NodeSqliteOptions): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => createDriver(options),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
  }
}

/**
 * How long a write waits for another connection's write lock (another process, or another app
 * on the same file in this one) before it fails. A writer waits asynchronously (createConnection):
 * SQLite's own busy handler sleeps on the thread, which would stop the event loop meanwhile, and,
 * while a transaction of this process has let the loop turn, wait for a lock that transaction
 * could never release.
 */
export const BUSY_WAIT_MS = 10_000

/** Opens one connection with the pragmas every Pennon connection needs; a writer's busy waits are its caller's (BUSY_WAIT_MS). */
export function openSqlite(file: string, readOnly = false): DatabaseSync {
  const db = new DatabaseSync(file, { readOnly, enableForeignKeyConstraints: true, timeout: readOnly ? BUSY_WAIT_MS : 0 })
  if (!readOnly) db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = NORMAL')
  return db
}

function createDriver(options: NodeSqliteOptions): Driver {
  const idle: SqliteConnection[] = []
  const all: SqliteConnection[] = []
  const waiting: Array<(connection: SqliteConnection) => void> = []
  // Readers write nothing to checkpoint; an in-memory database has no WAL.
  const checkpoints =
    options.readOnly || options.file === ':memory:'
      ? undefined
      : createBackgroundCheckpoints(options.file, (on) => {
          for (const connection of all) connection.setAutocheckpoint(on ? AUTOCHECKPOINT_PAGES : 0)
        })

  return {
    async init() {
      options.signal?.throwIfAborted()
      for (let i = 0; i < options.connections; i++) {
        const opened = openSqlite(options.file, options.readOnly)
        options.onOpen?.(opened)
        const connection = createConnection(opened)
        all.push(connection)
        idle.push(connection)
      }
    },
    async acquireConnection() {
      const connection = idle.pop()
      if (connection) return connection
      return new Promise<SqliteConnection>((resolve) => waiting.push(resolve))
    },
    async releaseConnection(connection) {
      const next = waiting.shift()
      if (next) next(connection as SqliteConnection)
      else idle.push(connection as SqliteConnection)
    },
    async beginTransaction(connection) {
      // IMMEDIATE takes the write lock up front: a rule check and the write it guards
      // can then never interleave with another process's transaction.
      await connection.executeQuery(CompiledQuery.raw(options.readOnly ? 'begin' : 'begin immediate'))
      const sqlite = connection as SqliteConnection
      sqlite.yielded = false
      if (checkpoints !== undefined) sqlite.changesAtBegin = sqlite.totalChanges()
    },
    async commitTransaction(connection) {
      // A transaction that let the event loop turn and changed many rows has written enough that
      // checkpointing it at its commit would hold the loop again, in one piece. One that let it
      // turn only because other requests kept the turn busy (a metrics flush under load) has not:
      // a worker thread for it would cost its ~12 MB for nothing.
      const sqlite = connection as SqliteConnection
      const long = checkpoints !== undefined && sqlite.yielded && sqlite.totalChanges() - sqlite.changesAtBegin >= LONG_COMMIT_ROWS
      if (long) checkpoints.beforeLongCommit()
      try {
        await connection.executeQuery(CompiledQuery.raw('commit'))
      } finally {
        if (long) checkpoints.afterLongCommit()
      }
    },
    async rollbackTransaction(connection) {
      await connection.executeQuery(CompiledQuery.raw('rollback'))
    },
    async destroy() {
      await checkpoints?.close()
      for (const connection of all) connection.close()
      all.length = 0
      idle.length = 0
    },
  }
}

interface SqliteConnection extends DatabaseConnection {
  /** Whether it has let the event loop turn since its transaction began. */
  yielded: boolean
  /** `totalChanges()` when its transaction began (writers only). */
  changesAtBegin: number
  /** Rows inserted, updated or deleted on it since it was opened (SQLite's `total_changes()`). */
  totalChanges(): number
  /** Its `wal_autocheckpoint`, in pages (0: off). */
  setAutocheckpoint(pages: number): void
  close(): void
}

/** node:sqlite binds neither booleans nor Dates: store them as 0/1 and ISO text. */
function toSqlite(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0
  if (value instanceof Date) return value.toISOString()
  return value as SQLInputValue
}

/** SQLITE_BUSY (5), plain or extended: another connection holds the lock this statement needs. */
const isBusy = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (Number((error as { errcode?: unknown }).errcode) & 0xff) === 5

/** A statement's rows as plain objects (PostgreSQL's are plain objects), from the arrays node:sqlite returns. */
type RowMaker = (values: readonly unknown[]) => Record<string, unknown>

/**
 * node:sqlite's own row objects are dictionaries with a null prototype, each built name by name
 * (6.9 MB for the first client answer's reads, copied again to plain objects); asked for arrays
 * it builds far less, and one object literal per statement then gives every row the same shape.
 * The names are the statement's columns, written as JSON strings (a computed key for `__proto__`,
 * which a literal would take as the prototype); a repeated name keeps its last value, as
 * node:sqlite's objects do.
 */
function rowMaker(columns: readonly string[]): RowMaker {
  const fields = columns.map(
    (name, index) => `${name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: values[${index}]`,
  )
  return new Function('values', `return { ${fields.join(', ')} }`) as RowMaker
}

/** Arrays from now on, and the maker of its rows. */
function arrayRows(statement: StatementSync): RowMaker {
  statement.setReturnArrays(true)
  return rowMaker(statement.columns().map((column) => column.name))
}

function createConnection(db: DatabaseSync): SqliteConnection {
  const statements = new Map<string, { statement: StatementSync; rowOf: RowMaker | undefined }>()

  function prepare(sql: string) {
    let cached = statements.get(sql)
    if (cached) {
      // Refresh its place: the Map's insertion order is the LRU order.
      statements.delete(sql)
      statements.set(sql, cached)
      return cached
    }
    const statement = db.prepare(sql)
    cached = { statement, rowOf: statement.columns().length > 0 ? arrayRows(statement) : undefined }
    statements.set(sql, cached)
    if (statements.size > STATEMENT_CACHE_SIZE) {
      statements.delete(statements.keys().next().value as string)
    }
    return cached
  }

  let totalChangesStatement: StatementSync | undefined
  const connection: SqliteConnection = {
    yielded: false,
    changesAtBegin: 0,
    totalChanges() {
      totalChangesStatement ??= db.prepare('select total_changes() as n')
      return Number((totalChangesStatement.get() as { n: number }).n)
    },
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      if (turnIsLong()) {
        // The turn ends here: a request read before this statement resumes (a /health on a reader)
        // runs its statements at once, not behind this transaction's next stretch. Two immediates:
        // from the loop's poll phase, one runs in that turn's check phase, before any other I/O is read.
        turnStarted = undefined
        await new Promise((resolve) => setImmediate(() => setImmediate(resolve)))
        turnIsLong() // this statement starts (or joins) the new turn
        connection.yielded = true
      }
      const { statement, rowOf } = prepare(query.sql)
      const parameters = query.parameters.map(toSqlite)
      const run = (): QueryResult<R> => {
        if (rowOf !== undefined) {
          const values = statement.all(...parameters) as unknown as unknown[][]
          const rows = new Array<R>(values.length)
          for (let i = 0; i < values.length; i++) rows[i] = rowOf(values[i]!) as R
          return { rows }
        }
        const { changes, lastInsertRowid } = statement.run(...parameters)
        return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) }
      }
      // A `begin immediate`, or a write outside a transaction, that finds another connection
      // writing waits for it without holding the thread (BUSY_WAIT_MS). Inside a transaction the
      // write lock is held already: a busy there is not waited for.
      for (let waited = 0, pause = 1; ; waited += pause, pause = Math.min(pause * 2, 25)) {
        try {
          return run()
        } catch (error) {
          if (!isBusy(error) || db.isTransaction || waited >= BUSY_WAIT_MS) throw error
          await new Promise((resolve) => setTimeout(resolve, pause))
        }
      }
    },
    async *streamQuery<R>(query: CompiledQuery, chunkSize = 500): AsyncIterableIterator<QueryResult<R>> {
      // A statement of its own: the cached one may be reused while this iterator is open.
      const statement = db.prepare(query.sql)
      const rowOf = arrayRows(statement)
      const iterator = statement.iterate(...query.parameters.map(toSqlite))
      try {
        let rows: R[] = []
        for (const values of iterator) {
          rows.push(rowOf(values as unknown as unknown[]) as R)
          if (rows.length >= chunkSize) {
            yield { rows }
            rows = []
          }
        }
        if (rows.length > 0) yield { rows }
      } finally {
        iterator.return?.()
      }
    },
    setAutocheckpoint(pages) {
      db.exec(`PRAGMA wal_autocheckpoint = ${pages}`)
    },
    close() {
      statements.clear()
      db.close()
    },
  }
  return connection
}
