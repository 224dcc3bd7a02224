import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely'
import { dialectOf } from './dialect.ts'

/**
 * A list of names as a one-column relation (`name`), bound as ONE parameter: a JSON
 * array read by `json_each` (SQLite) or `jsonb_array_elements_text` (PostgreSQL).
 * A batch of any size is then one statement of a fixed shape (SQLite allows at most
 * 32,766 bound values, and thousands of placeholders are slow to parse on both
 * databases), and the planners still look the names up through the indexes.
 *
 * @example sql`select f.name from (${namesRelation(db, ['a', 'b'])}) b join features f on f.name = b.name`
 */
export function namesRelation(db: Kysely<any>, names: readonly string[]): RawBuilder<{ name: string }> {
  const json = JSON.stringify(names)
  return dialectOf(db) === 'postgres'
    ? sql`select value as name from jsonb_array_elements_text(cast(${json} as jsonb))`
    : sql`select value as name from json_each(${json})`
}

/** `column IN (names)`, with the names bound as one parameter (see `namesRelation`). */
export function inNames(db: Kysely<any>, column: string, names: readonly string[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} in (${namesRelation(db, names)})`
}
