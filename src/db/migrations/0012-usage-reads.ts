import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * What the usage reads need (docs/metrics.md, "Admin reads"). Frozen in time.
 *
 * - `unknown_flags`: names SDKs counted that are no flags, per application and environment, with
 *   when they were last reported; bounded (docs/metrics.md, "Limits"), pruned after 24 hours.
 * - `client_instances.sdk_type`: `frontend` or `backend`, by the route the instance reported on.
 * - An index on the counts by application: an application's flags, environments and projects.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { name, timestamp } = columnTypes(db)
  await db.schema
    .createTable('unknown_flags')
    .ifNotExists()
    .addColumn('name', name, (c) => c.notNull())
    .addColumn('app_name', name, (c) => c.notNull())
    .addColumn('environment', name, (c) => c.notNull())
    .addColumn('last_seen_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('unknown_flags_pk', ['name', 'app_name', 'environment'])
    .execute()
  await db.schema.createIndex('unknown_flags_last_seen_idx').ifNotExists().on('unknown_flags').column('last_seen_at').execute()
  await db.schema
    .createIndex('unknown_flags_app_idx')
    .ifNotExists()
    .on('unknown_flags')
    .columns(['app_name', 'environment', 'name'])
    .execute()
  await db.schema.alterTable('client_instances').addColumn('sdk_type', name).execute()
  await db.schema
    .createIndex('client_metrics_env_app_idx')
    .ifNotExists()
    .on('client_metrics_env')
    .columns(['app_name', 'environment', 'feature_name'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('client_metrics_env_app_idx').ifExists().execute()
  await db.schema.alterTable('client_instances').dropColumn('sdk_type').execute()
  await db.schema.dropTable('unknown_flags').ifExists().execute()
}
