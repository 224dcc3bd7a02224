import { DatabaseSync } from 'node:sqlite'
import type { CompiledQuery, DatabaseConnection, Dialect, Driver } from 'kysely'

/**
 * Tells a cache of database data whether what it holds may be out of date: `version()`
 * changes whenever the watched data may have changed — written by this process, another
 * instance, or an operator by hand — and is `undefined` while that cannot be known
 * (the cache must then not be used). A cache stores what it read only if the version
 * is the same after the read as before it.
 */
export interface ChangeWatch {
  /**
   * `'tokens'`: a version that moves only when a principal may have changed (a write naming a token
   * table), or when which tables changed is unknown; `'flags'`: likewise for what SDKs are served
   * (flags, their environments and strategies, segments, projects, the flags' tags); `'sessions'`:
   * when a principal may have changed or a session may have ended (a delete from user_sessions);
   * `'events'`, `'contextFields'`, `'settings'`, `'integrations'`: when those tables may have changed. Each
   * moves too when which tables changed is unknown; `'any'` moves with every change.
   */
  version(watched?: Watched): number | undefined
  /**
   * Calls `listener` soon after the version may have moved (this process's writes at once, another
   * instance's within milliseconds; SQLite: another process's commit within SUBSCRIBER_POLL_MS,
   * checked by one timer while anyone listens). Returns the unsubscribe. Absent: nothing can be
   * heard (an in-memory database), so nothing is pushed. The listener runs inside a commit's
   * bookkeeping: it should only schedule work.
   */
  subscribe?(listener: () => void): () => void
  close(): Promise<void>
}

/** What a cache depends on: any watched data (the default), the tables principals are read from, those flags are served from, … */
export type Watched = 'any' | 'tokens' | 'flags' | 'sessions' | 'events' | 'contextFields' | 'settings' | 'integrations'

/** What a write may have changed besides anything at all. */
export interface WriteScope {
  tokens: boolean
  flags: boolean
  /** Sessions may have ended (a principal changing ends them too). */
  sessions: boolean
  /** The event log (other instances remember answers read from it). */
  events: boolean
  /** Context fields (their legal values check every constraint written). */
  contextFields: boolean
  /** Settings (maintenance mode, frontend origins, single sign-on, change requests' environments). */
  settings: boolean
  /** Integrations: which are enabled, where each one's delivery stands. */
  integrations: boolean
}

/** A change whose tables are not known. */
export const EVERYTHING: WriteScope = Object.freeze({
  tokens: true,
  flags: true,
  sessions: true,
  events: true,
  contextFields: true,
  settings: true,
  integrations: true,
})

/** The scopes a WriteScope names, in this order (a notification's payload lists them by these names: pg-change-watch.ts). */
export const SCOPES = ['tokens', 'flags', 'sessions', 'events', 'contextFields', 'settings', 'integrations'] as const

/** Both scopes together. */
export function widen(first: WriteScope, second: WriteScope): WriteScope {
  const scope = { ...first }
  for (const name of SCOPES) scope[name] ||= second[name]
  return scope
}

/**
 * The tables a principal is read from. Nothing else writes them: no trigger, and no foreign key
 * of another table cascades into them (personal tokens cascade from users, one of them); a
 * statement that writes them names them. Sessions and sign-in bookkeeping are not among them:
 * a session's end is its own scope (SESSION_ENDS), and a session's inactivity clock (an update of
 * seen_at, once a minute per session) or a new session ends nothing remembered.
 */
const TOKEN_TABLES = /\b(api_tokens|service_accounts|service_account_tokens|users|personal_access_tokens)\b/i

/** The tables flags are served to SDKs from; what cascades into them starts from a table listed here too. */
const FLAG_TABLES =
  /\b(projects|features|feature_dependencies|environments|project_environments|feature_environments|feature_strategies|feature_strategy_segments|segments|strategy_definitions|feature_tags|tags|tag_types)\b/i

/**
 * Any write of user_sessions may end a session (a delete, an expiry or inactivity changed by hand),
 * except a new session and the inactivity clock Pennon moves forward (session-service.ts: once a
 * minute per session, in exactly this statement). A user's deletion cascades, and names `users`.
 */
const SESSION_TABLE = /\buser_sessions\b/i
// The other tables with a change trigger (migrations 0002, 0011, 0019), and those of change
// requests' settings and integrations, whose writes other instances are told of too.
const EVENT_TABLE = /\bevents\b/i
const CONTEXT_FIELD_TABLE = /\bcontext_fields\b/i
const SETTING_TABLES = /\b(settings|change_request_settings)\b/i
const INTEGRATION_TABLE = /\baddons\b/i
const SESSION_STARTS = /^\s*insert\b/i
const SESSION_CLOCK = /^\s*update\s+"user_sessions"\s+set\s+"seen_at"\s*=\s*(\?|\$\d+)\s+where\s+"secret_hash"\s*=\s*(\?|\$\d+)\s*$/i
const mayEndSessions = (sql: string) => SESSION_TABLE.test(sql) && !SESSION_STARTS.test(sql) && !SESSION_CLOCK.test(sql)

// A plain insert, update or delete (or a WITH around them) writes only the tables it names;
// anything else (a schema change, a pragma) may touch any of them.
const NAMES_WHAT_IT_WRITES = /^\s*(insert|update|delete|with)\b/i

/** Whether a writing statement may change what a principal is read from. */
export const mayWriteTokens = (sql: string): boolean => TOKEN_TABLES.test(sql) || !NAMES_WHAT_IT_WRITES.test(sql)

/** What a writing statement may change. */
export function writeScope(sql: string): WriteScope {
  if (!NAMES_WHAT_IT_WRITES.test(sql)) return EVERYTHING
  const tokens = TOKEN_TABLES.test(sql)
  return {
    tokens,
    flags: FLAG_TABLES.test(sql),
    sessions: tokens || mayEndSessions(sql),
    events: EVENT_TABLE.test(sql),
    contextFields: CONTEXT_FIELD_TABLE.test(sql),
    settings: SETTING_TABLES.test(sql),
    integrations: INTEGRATION_TABLE.test(sql),
  }
}

/**
 * Whether other instances must be told of a commit with these writes: they remember what it may
 * have changed. Every table with a change trigger is among these (pg-change-watch.test.ts checks).
 */
export const mustTellOthers = (scope: WriteScope): boolean => SCOPES.some((name) => scope[name])

/** A watch that never knows: caches built on it are never used. */
export const UNKNOWABLE: ChangeWatch = { version: () => undefined, close: async () => {} }

/** A watch told directly of this process's own writes (see announceWrites). */
export interface LocalChangeWatch extends ChangeWatch {
  /** This process's write just became visible: a new version at once (of `'tokens'` and `'flags'` as `scope` says). */
  wrote(scope: WriteScope): void
  /**
   * PostgreSQL: this process committed a write other instances must hear of (mustTellOthers):
   * notify them, after the commit rather than inside it. Absent: they see it by themselves.
   */
  tellOthers?(scope: WriteScope): void
}

/**
 * The versions a watch hands out: every change moves `any`; only a change that may concern
 * principals moves `tokens` as well, one that may concern served flags `flags`, and so on.
 */
export function versions() {
  const counts: Record<Watched, number> = {
    any: 0,
    tokens: 0,
    flags: 0,
    sessions: 0,
    events: 0,
    contextFields: 0,
    settings: 0,
    integrations: 0,
  }
  const listeners = new Set<() => void>()
  return {
    get: (watched: Watched = 'any') => counts[watched],
    changed(scope: WriteScope = EVERYTHING) {
      counts.any++
      if (scope.tokens) counts.tokens++
      if (scope.flags) counts.flags++
      if (scope.sessions || scope.tokens) counts.sessions++
      if (scope.events) counts.events++
      if (scope.contextFields) counts.contextFields++
      if (scope.settings) counts.settings++
      if (scope.integrations) counts.integrations++
      for (const listener of listeners) listener()
    },
    /** Adds a listener; `first` / `last` run when the set stops / starts being empty. */
    subscribe(listener: () => void, first?: () => void, last?: () => void): () => void {
      if (listeners.size === 0) first?.()
      listeners.add(listener)
      return () => {
        if (listeners.delete(listener) && listeners.size === 0) last?.()
      }
    },
  }
}

/** How often SQLite's data_version is checked for listeners (one timer in all). */
export const SUBSCRIBER_POLL_MS = 50

// How long a read of SQLite's data_version is trusted for other processes' commits.
const SQLITE_REREAD_MS = 2

/**
 * SQLite: `data_version` changes with every commit by any connection other than the one it is read
 * on. It is read on this process's writer (`writer`, once open), so this process's own commits
 * leave it alone: those are announced at once by the writer (`wrote`) with what they may have
 * changed, and a write of metrics does not end the flags or principals kept meanwhile. Another
 * process's commit (or another app's on the same file) moves it, and as which tables changed is not
 * known, every version moves. Reading it costs file-lock system calls (tens of µs here, a tenth of
 * a request), so it is re-read at most every SQLITE_REREAD_MS: another process's commit counts
 * within 2 ms. Until the writer is open, a read-only connection of the watch's own is read.
 */
export function watchSqliteCommits(file: string, writer: () => DatabaseSync | undefined = () => undefined): LocalChangeWatch {
  const connection = new DatabaseSync(file, { readOnly: true })
  const ownDataVersion = connection.prepare('pragma data_version')
  let open = true
  const version = versions()
  // Each connection counts on its own: a read on another connection than the last one is a change.
  let readOn: DatabaseSync | undefined
  let dataVersion = ownDataVersion
  let lastDataVersion: number | undefined
  let readAt = Number.NEGATIVE_INFINITY
  const readDataVersion = (): number => {
    const current = writer()
    const on = current?.isOpen ? current : connection
    if (on !== readOn) {
      readOn = on
      dataVersion = on === connection ? ownDataVersion : on.prepare('pragma data_version')
      lastDataVersion = undefined
    }
    return Number((dataVersion.get() as { data_version: number }).data_version)
  }
  // Another process's commit is noticed only by reading data_version: while someone listens, a timer reads it.
  let poll: NodeJS.Timeout | undefined
  const stopPolling = () => {
    clearInterval(poll)
    poll = undefined
  }
  const watch: LocalChangeWatch = {
    version(watched) {
      if (!open) return undefined
      const now = performance.now()
      if (now - readAt >= SQLITE_REREAD_MS) {
        const read = readDataVersion()
        // Which tables changed is not known: every version moves.
        if (read !== lastDataVersion) version.changed()
        lastDataVersion = read
        readAt = now
      }
      return version.get(watched)
    },
    wrote: (scope) => version.changed(scope),
    subscribe: (listener) =>
      version.subscribe(listener, () => (poll = setInterval(() => watch.version(), SUBSCRIBER_POLL_MS).unref()), stopPolling),
    async close() {
      if (!open) return
      open = false
      stopPolling()
      connection.close()
    },
  }
  return watch
}

// Statements that never write a table: these (`set`: a setting of the session or transaction,
// as `set local synchronous_commit`), and a WITH that names no writing statement. Anything else
// counts as a write (a spurious one only costs a cache miss; a missed one would serve stale data).
const READ_ONLY = /^\s*(select|begin|start|commit|rollback|fetch|declare|close|show|explain|savepoint|release|set|reset)\b/i
const isReadOnly = (sql: string) =>
  READ_ONLY.test(sql) || (/^\s*with\b/i.test(sql) && !/\b(insert|update|delete|merge|truncate)\b/i.test(sql))

/** `dialect` with its driver wrapped by announceWrites. */
export function announcingWrites(dialect: Dialect, onWrite: (scope: WriteScope) => void): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => announceWrites(dialect.createDriver(), onWrite),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}

/**
 * Makes a driver call `onWrite` whenever a write of this process becomes visible to others:
 * after the commit of a transaction that ran a statement that may write, or after such a
 * statement in autocommit, with what those statements may have written (writeScope: token
 * tables, flag tables). So this instance's own caches never serve what it has just changed, with no
 * wait for a notification; reads, and transactions that only read, leave them alone.
 */
export function announceWrites(driver: Driver, onWrite: (scope: WriteScope) => void): Driver {
  const inTransaction = new WeakSet<DatabaseConnection>()
  // Per open transaction that wrote: what its writes may have concerned.
  const wroteInTransaction = new WeakMap<DatabaseConnection, WriteScope>()
  const watched = new WeakSet<DatabaseConnection>()
  const acquire = driver.acquireConnection.bind(driver)
  const begin = driver.beginTransaction.bind(driver)
  const commit = driver.commitTransaction.bind(driver)
  const rollback = driver.rollbackTransaction.bind(driver)
  const endTransaction = (connection: DatabaseConnection) => {
    inTransaction.delete(connection)
    wroteInTransaction.delete(connection)
  }

  driver.acquireConnection = async () => {
    const connection = await acquire()
    if (!watched.has(connection)) {
      watched.add(connection)
      const execute = connection.executeQuery.bind(connection)
      connection.executeQuery = async <R>(query: CompiledQuery) => {
        const scope = isReadOnly(query.sql) ? undefined : writeScope(query.sql)
        if (scope && inTransaction.has(connection)) {
          const before = wroteInTransaction.get(connection)
          wroteInTransaction.set(connection, before ? widen(before, scope) : scope)
        }
        try {
          return await execute<R>(query)
        } finally {
          // Even when it failed: whether a failed statement wrote is unknown (a lost connection).
          if (scope && !inTransaction.has(connection)) onWrite(scope)
        }
      }
    }
    return connection
  }
  driver.beginTransaction = async (connection, settings) => {
    inTransaction.add(connection)
    try {
      await begin(connection, settings)
    } catch (error) {
      endTransaction(connection)
      throw error
    }
  }
  driver.commitTransaction = async (connection) => {
    const wrote = wroteInTransaction.get(connection)
    try {
      await commit(connection)
    } finally {
      endTransaction(connection)
      if (wrote !== undefined) onWrite(wrote)
    }
  }
  driver.rollbackTransaction = async (connection) => {
    try {
      await rollback(connection)
    } finally {
      endTransaction(connection)
    }
  }
  return driver
}
