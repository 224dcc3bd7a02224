import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * Integrations ("addons" on the wire): a provider, its parameters (secrets included, never shown
 * back), and which events, projects and environments it takes (JSON arrays; empty: all). Ids are
 * the database's own (identity on PostgreSQL, rowid on SQLite), never reused.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, boolean } = columnTypes(db)
  const text = sql`text`
  await db.schema
    .createTable('addons')
    .ifNotExists()
    .addColumn('id', sql`integer`, (c) =>
      dialectOf(db) === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('provider', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('enabled', boolean, (c) => c.notNull())
    .addColumn('parameters', text, (c) => c.notNull())
    .addColumn('events', text, (c) => c.notNull())
    .addColumn('projects', text, (c) => c.notNull())
    .addColumn('environments', text, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('addons').ifExists().execute()
}
