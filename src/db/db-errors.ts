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
