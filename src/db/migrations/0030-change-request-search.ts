import type { Kysely } from 'kysely'

/**
 * Indexes for the change-request search and for suspending schedules
 * (docs/change-requests.md#searching and #suspended-schedules). Frozen in time.
 *
 * - `change_requests_created_by_idx`: the search's `createdBy`, newest first.
 * - `change_requests_state_id_idx`: its `state` (open or closed) and `requestedApproverId`
 *   (requests In review), newest first.
 * - `change_requests_scheduled_by_idx`: the pending schedules of a person who is deleted or loses
 *   the permission to apply.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('change_requests_created_by_idx')
    .ifNotExists()
    .on('change_requests')
    .columns(['created_by_user_id', 'id'])
    .execute()
  await db.schema.createIndex('change_requests_state_id_idx').ifNotExists().on('change_requests').columns(['state', 'id']).execute()
  await db.schema
    .createIndex('change_requests_scheduled_by_idx')
    .ifNotExists()
    .on('change_requests')
    .columns(['scheduled_by_user_id', 'state'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['change_requests_scheduled_by_idx', 'change_requests_state_id_idx', 'change_requests_created_by_idx'])
    await db.schema.dropIndex(index).ifExists().execute()
}
