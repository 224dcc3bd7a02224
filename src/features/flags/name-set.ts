import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'

/**
 * `column IN (names)` with the whole list bound as ONE parameter: a JSON array
 * read by `json_each` on SQLite, a `text[]` on PostgreSQL. A batch of any size is
 * then one statement with a fixed shape (SQLite allows at most 32,766 bound values,
 * and thousands of placeholders are slow to parse on both databases), and the
 * lookups still go through the index on `column`.
 *
 * @example db.selectFrom('features').selectAll().where(inNames(db, 'name', ['a', 'b']))
 */
export function inNames(db: Kysely<any>, column: string, names: readonly string[]): RawBuilder<SqlBool> {
  return dialectOf(db) === 'postgres'
    ? sql<SqlBool>`${sql.ref(column)} = any(cast(${[...names]} as text[]))`
    : sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(names)}))`
}
