import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * `settings`: server-wide settings by name, each value JSON text, as the reference keeps them
 * (`maintenance.mode` → `{"enabled": true}`: features/maintenance/). No row: the default.
 *
 * Every instance remembers the maintenance setting while the change watch says nothing changed, so
 * on PostgreSQL a change of this table (by Pennon or by hand) notifies the others, as the token
 * tables do (0002-change-notify.ts). SQLite needs nothing: other connections' commits move its
 * data_version.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { name } = columnTypes(db)
  await db.schema
    .createTable('settings')
    .ifNotExists()
    .addColumn('name', name, (c) => c.primaryKey())
    .addColumn('content', sql`text`, (c) => c.notNull())
    .execute()
  if (dialectOf(db) !== 'postgres') return
  await sql`create trigger settings_notify_change after insert or update or delete or truncate on settings
    for each statement execute function pennon_notify_change()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('settings').ifExists().execute()
}
