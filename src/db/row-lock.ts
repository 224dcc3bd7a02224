/**
 * Row locks, taken only on PostgreSQL: SQLite's writers run one at a time already (`BEGIN
 * IMMEDIATE` takes the write lock up front, sqlite-dialect.ts), so there these are no-ops.
 * A lock is held until the transaction ends; rows are locked in a stable order (the order the
 * query sorts by), so two transactions locking overlapping sets queue instead of deadlocking.
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import { dialectOf } from './dialect.ts'
import type { Database } from './tables.ts'

/**
 * PostgreSQL's row lock strengths: `update` (before a deletion or a change of the key),
 * `no-key-update` (before a change of other columns), `share` (the row must not change
 * meanwhile), `key-share` (the row must not go meanwhile, yet may change: what refers to it
 * holds it so).
 */
export type RowLockMode = 'update' | 'no-key-update' | 'share' | 'key-share'

/**
 * Locks the rows of `table` whose `column` is one of `values`, in that column's order.
 *
 * @example await lockRows(trx, 'users', 'id', [id]) // then read the user: a concurrent change waits
 */
export async function lockRows<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  column: keyof Database[T] & string,
  values: readonly (string | number)[],
  mode: RowLockMode = 'update',
): Promise<void> {
  if (values.length === 0 || dialectOf(db) !== 'postgres') return
  // One array parameter, whatever the number of values (its type is the column's).
  await sql`select ${sql.ref(column)} from ${sql.table(table)} where ${sql.ref(column)} = any(${[...values]}) order by ${sql.ref(column)} ${lockClause(mode)}`.execute(
    db,
  )
}

/**
 * The lock clause of a select that reads the rows it locks, on PostgreSQL only; the rows are
 * locked in the order the select sorts them. `of` names the table whose rows are locked when the
 * select joins others.
 *
 * @example db.selectFrom('segments').selectAll().where('id', '=', id).$call(lockedRows(db))
 */
export function lockedRows<QB extends SelectQueryBuilder<any, any, any>>(
  db: Kysely<any>,
  { mode = 'update', of, when = true }: { mode?: RowLockMode; of?: string; when?: boolean } = {},
): (query: QB) => QB {
  return (query) => {
    if (!when || dialectOf(db) !== 'postgres') return query
    const tables = of === undefined ? undefined : [of]
    if (mode === 'no-key-update') return query.forNoKeyUpdate(tables as any) as QB
    if (mode === 'share') return query.forShare(tables as any) as QB
    if (mode === 'key-share') return query.forKeyShare(tables as any) as QB
    return query.forUpdate(tables as any) as QB
  }
}

function lockClause(mode: RowLockMode) {
  if (mode === 'no-key-update') return sql`for no key update`
  if (mode === 'share') return sql`for share`
  if (mode === 'key-share') return sql`for key share`
  return sql`for update`
}
