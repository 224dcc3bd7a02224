import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * What the limits on SDK metrics need (docs/metrics.md, "Limits"). Frozen in time.
 *
 * - `client_applications.token_name`: the client or frontend token whose report first recorded
 *   the application (null: an admin token, AUTH_TYPE=none, or recorded before this migration), so
 *   that what one token may add stays bounded across restarts.
 * - An index on the variant names of a flag, environment and hour (across applications): a flush
 *   reads which names are stored before it adds others.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { name } = columnTypes(db)
  await db.schema.alterTable('client_applications').addColumn('token_name', name).execute()
  await db.schema
    .createIndex('client_metrics_env_variants_names_idx')
    .ifNotExists()
    .on('client_metrics_env_variants')
    .columns(['feature_name', 'environment', 'timestamp', 'variant'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('client_metrics_env_variants_names_idx').ifExists().execute()
  await db.schema.alterTable('client_applications').dropColumn('token_name').execute()
}
