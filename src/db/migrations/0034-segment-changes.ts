import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * Segment changes in change requests (docs/change-requests.md): `change_request_changes.feature`
 * becomes nullable, as a segment's change (updateSegment, deleteSegment) names no flag; its
 * payload names the segment. Frozen in time.
 *
 * SQLite cannot drop a NOT NULL: the table is rebuilt (new table, rows copied, old dropped, new
 * renamed, its indexes made again). No table references it, so the drop checks nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`alter table change_request_changes alter column feature drop not null`.execute(db)
    return
  }
  await rebuild(db, false)
}

export async function down(db: Kysely<any>): Promise<void> {
  // Segment changes cannot be stored without a flag.
  await db.deleteFrom('change_request_changes').where('feature', 'is', null).execute()
  if (dialectOf(db) === 'postgres') {
    await sql`alter table change_request_changes alter column feature set not null`.execute(db)
    return
  }
  await rebuild(db, true)
}

async function rebuild(db: Kysely<any>, featureRequired: boolean): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  const text = sql`text`
  const integer = sql`integer`
  await db.schema
    .createTable('change_request_changes_rebuilt')
    .addColumn('id', integer, (c) => c.primaryKey())
    .addColumn('change_request_id', integer, (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('feature', name, (c) => (featureRequired ? c.notNull() : c))
    .addColumn('action', text, (c) => c.notNull())
    .addColumn('payload', text, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.notNull())
    .addColumn('created_by_user_id', integer, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await sql`insert into change_request_changes_rebuilt select id, change_request_id, feature, action, payload, created_by, created_by_user_id, created_at from change_request_changes`.execute(
    db,
  )
  await db.schema.dropTable('change_request_changes').execute()
  await db.schema.alterTable('change_request_changes_rebuilt').renameTo('change_request_changes').execute()
  await db.schema
    .createIndex('change_request_changes_request_idx')
    .on('change_request_changes')
    .columns(['change_request_id', 'id'])
    .execute()
  await db.schema
    .createIndex('change_request_changes_feature_idx')
    .on('change_request_changes')
    .columns(['feature', 'change_request_id'])
    .execute()
}
