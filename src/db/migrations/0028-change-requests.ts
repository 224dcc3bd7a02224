import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * Change requests (docs/change-requests.md). Frozen in time.
 *
 * - `change_request_settings`: a row per protected environment of a project (as the reference's
 *   table of that name: a row means enabled), with the approvals a request there needs.
 * - `change_requests`: ids from a counter; `state` is text so that states the open edition does
 *   not use yet (Scheduled, with `scheduled_at`) fit without a migration. The first index serves
 *   the open requests and counts by state, and an author's draft of an environment; the second
 *   the project's list, newest first.
 * - `change_request_changes`: one change of one flag (action and JSON payload), in the order added;
 *   the second index finds a flag's pending requests.
 * - `change_request_reviews`: one approval or rejection per person and request (the primary key
 *   is what makes an approval count once).
 * - `change_request_comments`: in the order written.
 *
 * Everything goes with its project (cascade); nothing here is served to SDKs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  const text = sql`text`
  const integer = sql`integer`

  await db.schema
    .createTable('change_request_settings')
    .ifNotExists()
    .addColumn('project', name, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('environment', name, (c) => c.notNull().references('environments.name').onDelete('cascade'))
    .addColumn('required_approvals', integer, (c) => c.notNull())
    .addPrimaryKeyConstraint('change_request_settings_pk', ['project', 'environment'])
    .execute()

  await db.schema
    .createTable('change_requests')
    .ifNotExists()
    .addColumn('id', integer, (c) => c.primaryKey())
    .addColumn('project', name, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('environment', name, (c) => c.notNull())
    .addColumn('state', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('min_approvals', integer, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.notNull())
    .addColumn('created_by_user_id', integer, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('scheduled_at', timestamp)
    // JSON text: the time each state was entered ({"Draft": "…", "In review": "…"}).
    .addColumn('state_timestamps', text, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('change_requests_project_state_idx')
    .ifNotExists()
    .on('change_requests')
    .columns(['project', 'state', 'environment', 'created_by_user_id'])
    .execute()

  await db.schema.createIndex('change_requests_project_id_idx').ifNotExists().on('change_requests').columns(['project', 'id']).execute()

  await db.schema
    .createTable('change_request_changes')
    .ifNotExists()
    .addColumn('id', integer, (c) => c.primaryKey())
    .addColumn('change_request_id', integer, (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('feature', name, (c) => c.notNull())
    .addColumn('action', text, (c) => c.notNull())
    .addColumn('payload', text, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.notNull())
    .addColumn('created_by_user_id', integer, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('change_request_changes_request_idx')
    .ifNotExists()
    .on('change_request_changes')
    .columns(['change_request_id', 'id'])
    .execute()
  await db.schema
    .createIndex('change_request_changes_feature_idx')
    .ifNotExists()
    .on('change_request_changes')
    .columns(['feature', 'change_request_id'])
    .execute()

  await db.schema
    .createTable('change_request_reviews')
    .ifNotExists()
    .addColumn('change_request_id', integer, (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('user_id', integer, (c) => c.notNull())
    .addColumn('decision', text, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('change_request_reviews_pk', ['change_request_id', 'user_id'])
    .execute()

  await db.schema
    .createTable('change_request_comments')
    .ifNotExists()
    .addColumn('id', integer, (c) => c.primaryKey())
    .addColumn('change_request_id', integer, (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('text', text, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.notNull())
    .addColumn('created_by_user_id', integer, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('change_request_comments_request_idx')
    .ifNotExists()
    .on('change_request_comments')
    .columns(['change_request_id', 'id'])
    .execute()

  await db
    .insertInto('counters')
    .values(['change_request_id', 'change_request_change_id', 'change_request_comment_id'].map((counter) => ({ name: counter, value: 0 })))
    .onConflict((c) => c.column('name').doNothing())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'change_request_comments',
    'change_request_reviews',
    'change_request_changes',
    'change_requests',
    'change_request_settings',
  ])
    await db.schema.dropTable(table).ifExists().execute()
  await db
    .deleteFrom('counters')
    .where('name', 'in', ['change_request_id', 'change_request_change_id', 'change_request_comment_id'])
    .execute()
}
