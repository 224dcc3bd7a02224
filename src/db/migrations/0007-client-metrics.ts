import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * What SDKs report: usage counts per hour, flag, environment and application (with the
 * variants shown), the applications and their instances, and when each flag was last seen in
 * each environment. Frozen in time.
 *
 * No foreign key reaches the flag tables and no trigger notifies: metrics are written every
 * second, and must neither lock flag rows (admin edits take them FOR UPDATE) nor move the
 * version cached flags follow (change-watch.ts). A deleted flag's rows stay until they expire;
 * lastSeenAt is only shown for a flag created before it (feature-environment-store.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  const text = sql`text`
  // An hour of one flag in one application can pass 2^31 evaluations.
  const count = dialectOf(db) === 'postgres' ? sql`bigint` : sql`integer`

  await db.schema
    .createTable('client_metrics_env')
    .ifNotExists()
    .addColumn('feature_name', name, (c) => c.notNull())
    .addColumn('app_name', name, (c) => c.notNull())
    .addColumn('environment', name, (c) => c.notNull())
    /** The start of the hour the counts belong to. */
    .addColumn('timestamp', timestamp, (c) => c.notNull())
    .addColumn('yes', count, (c) => c.notNull())
    .addColumn('no', count, (c) => c.notNull())
    .addPrimaryKeyConstraint('client_metrics_env_pk', ['feature_name', 'app_name', 'environment', 'timestamp'])
    .execute()
  await db.schema.createIndex('client_metrics_env_timestamp_idx').ifNotExists().on('client_metrics_env').column('timestamp').execute()

  await db.schema
    .createTable('client_metrics_env_variants')
    .ifNotExists()
    .addColumn('feature_name', name, (c) => c.notNull())
    .addColumn('app_name', name, (c) => c.notNull())
    .addColumn('environment', name, (c) => c.notNull())
    .addColumn('timestamp', timestamp, (c) => c.notNull())
    .addColumn('variant', name, (c) => c.notNull())
    .addColumn('count', count, (c) => c.notNull())
    .addPrimaryKeyConstraint('client_metrics_env_variants_pk', ['feature_name', 'app_name', 'environment', 'timestamp', 'variant'])
    .execute()
  await db.schema
    .createIndex('client_metrics_env_variants_timestamp_idx')
    .ifNotExists()
    .on('client_metrics_env_variants')
    .column('timestamp')
    .execute()

  await db.schema
    .createTable('client_applications')
    .ifNotExists()
    .addColumn('app_name', name, (c) => c.primaryKey())
    /** JSON text: string[], from the last registration; null while only metrics were seen */
    .addColumn('strategies', text)
    .addColumn('sdk_version', text)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', timestamp, (c) => c.notNull())
    .execute()

  // Which projects (`*`: every project) and environments each application read through its tokens.
  await db.schema
    .createTable('client_applications_usage')
    .ifNotExists()
    .addColumn('app_name', name, (c) => c.notNull())
    .addColumn('project', name, (c) => c.notNull())
    .addColumn('environment', name, (c) => c.notNull())
    .addPrimaryKeyConstraint('client_applications_usage_pk', ['app_name', 'project', 'environment'])
    .execute()

  await db.schema
    .createTable('client_instances')
    .ifNotExists()
    .addColumn('app_name', name, (c) => c.notNull())
    .addColumn('instance_id', name, (c) => c.notNull())
    .addColumn('environment', name, (c) => c.notNull())
    .addColumn('sdk_version', text)
    .addColumn('client_ip', text)
    .addColumn('started_at', timestamp)
    /** Milliseconds, as the SDK sent it */
    .addColumn('interval', count)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('client_instances_pk', ['app_name', 'instance_id', 'environment'])
    .execute()
  await db.schema.createIndex('client_instances_last_seen_idx').ifNotExists().on('client_instances').column('last_seen_at').execute()

  // As the reference's table of the same name: a flag's lastSeenAt in one environment.
  await db.schema
    .createTable('last_seen_at_metrics')
    .ifNotExists()
    .addColumn('feature_name', name, (c) => c.notNull())
    .addColumn('environment', name, (c) => c.notNull())
    .addColumn('last_seen_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('last_seen_at_metrics_pk', ['feature_name', 'environment'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'last_seen_at_metrics',
    'client_instances',
    'client_applications_usage',
    'client_applications',
    'client_metrics_env_variants',
    'client_metrics_env',
  ]) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
