/** Recognizes constraint violations from both drivers, so stores can turn them into API errors. */

function codeOf(error: unknown): { pg?: string; sqlite?: number } {
  if (typeof error !== 'object' || error === null) return {}
  const e = error as { code?: unknown; errcode?: unknown }
  return {
    pg: typeof e.code === 'string' ? e.code : undefined,
    sqlite: typeof e.errcode === 'number' ? e.errcode : undefined,
  }
}

// SQLite extended result codes: SQLITE_CONSTRAINT_UNIQUE 2067, SQLITE_CONSTRAINT_PRIMARYKEY 1555.
export function isUniqueViolation(error: unknown): boolean {
  const { pg, sqlite } = codeOf(error)
  return pg === '23505' || sqlite === 2067 || sqlite === 1555
}

// SQLITE_CONSTRAINT_FOREIGNKEY 787.
export function isForeignKeyViolation(error: unknown): boolean {
  const { pg, sqlite } = codeOf(error)
  return pg === '23503' || sqlite === 787
}

/**
 * Which unique constraint a violation broke, by its PostgreSQL name, on both drivers: `pg` gives
 * it (`constraint`); node:sqlite names the table's columns instead (`UNIQUE constraint failed:
 * users.email`, its structured form), read here as PostgreSQL's default name for a constraint
 * declared with its column: `users_email_key` (`users_pkey` for a primary key). So compare with
 * the default names; a unique index created under a name of its own is named that way only by
 * PostgreSQL. Undefined when the error is no unique violation.
 *
 * @example if (uniqueConstraintOf(error) === 'users_email_key') throw nameExists(…)
 */
export function uniqueConstraintOf(error: unknown): string | undefined {
  if (!isUniqueViolation(error)) return undefined
  const { pg, sqlite } = codeOf(error)
  if (pg === '23505') {
    const constraint = (error as { constraint?: unknown }).constraint
    return typeof constraint === 'string' ? constraint : undefined
  }
  const columns = /(?:UNIQUE|PRIMARY KEY) constraint failed: (.+)$/m.exec((error as { message?: unknown }).message as string)?.[1]
  if (columns === undefined) return undefined
  const names = columns.split(',').map((column) => column.trim().split('.'))
  const table = names[0]![0]!
  return sqlite === 1555 ? `${table}_pkey` : `${table}_${names.map(([, column]) => column).join('_')}_key`
}
