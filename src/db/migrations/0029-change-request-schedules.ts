import { sql, type Kysely } from 'kysely'

/**
 * Scheduled change requests (docs/change-requests.md#scheduling). Frozen in time.
 *
 * `change_requests.scheduled_at` (0028) gets its schedule's status (`pending`, `failed`), the
 * reason a failed one gives, and who scheduled it (the apply is theirs). The index serves the
 * scheduler's look for due requests (state, then time) and the project's scheduled ones.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const text = sql`text`
  // One column per statement: SQLite adds one at a time.
  await db.schema.alterTable('change_requests').addColumn('schedule_status', text).execute()
  await db.schema.alterTable('change_requests').addColumn('schedule_reason', text).execute()
  await db.schema.alterTable('change_requests').addColumn('scheduled_by', text).execute()
  await db.schema.alterTable('change_requests').addColumn('scheduled_by_user_id', sql`integer`).execute()
  await db.schema
    .createIndex('change_requests_state_scheduled_idx')
    .ifNotExists()
    .on('change_requests')
    .columns(['state', 'scheduled_at'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('change_requests_state_scheduled_idx').ifExists().execute()
  for (const column of ['scheduled_by_user_id', 'scheduled_by', 'schedule_reason', 'schedule_status'])
    await db.schema.alterTable('change_requests').dropColumn(column).execute()
}
