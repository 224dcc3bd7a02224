import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely'

export type DialectName = 'sqlite' | 'postgres'

export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/** Column types that differ between the dialects; everything else is plain `text`/`integer`. */
export function columnTypes(db: Kysely<any>): Record<'timestamp' | 'boolean' | 'name', RawBuilder<unknown>> {
  // Names sort by code point on both databases: SQLite's default BINARY collation, "C" on PostgreSQL.
  return dialectOf(db) === 'postgres'
    ? { timestamp: sql`timestamptz`, boolean: sql`boolean`, name: sql`text collate "C"` }
    : { timestamp: sql`text`, boolean: sql`integer`, name: sql`text` }
}
