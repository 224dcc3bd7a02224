import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * Integrations ("addons" on the wire): a provider, its parameters (secrets included, never shown
 * back), and which events, projects and environments it takes (JSON arrays; empty: all). Ids are
 * the database's own (identity on PostgreSQL, rowid on SQLite), never reused.
 *
 * Delivery reads the event log in commit order from each integration's `cursor` (events/event-log.ts):
 * the log is the outbox, written in the change's own transaction. An instance takes an integration
 * for a while (`leased_until`) to send; a failed send is tried again at `retry_at`, and given up
 * once it has failed since `failing_since` for longer than the retention. `integration_events`
 * is the delivery log: one row per attempt.
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
    .addColumn('cursor', text, (c) => c.notNull())
    .addColumn('leased_until', timestamp)
    .addColumn('retry_at', timestamp)
    .addColumn('attempts', sql`integer`, (c) => c.notNull().defaultTo(0))
    .addColumn('failing_since', timestamp)
    .execute()

  await db.schema
    .createTable('integration_events')
    .ifNotExists()
    .addColumn('id', sql`integer`, (c) =>
      dialectOf(db) === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('integration_id', sql`integer`, (c) => c.notNull().references('addons.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('state', text, (c) => c.notNull())
    .addColumn('state_details', text, (c) => c.notNull())
    .addColumn('event', text, (c) => c.notNull())
    .addColumn('details', text, (c) => c.notNull())
    .execute()
  // An integration's log, newest first; and the deletion of an integration (the cascade).
  await db.schema
    .createIndex('integration_events_integration_id_idx')
    .ifNotExists()
    .on('integration_events')
    .columns(['integration_id', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integration_events').ifExists().execute()
  await db.schema.dropTable('addons').ifExists().execute()
}
