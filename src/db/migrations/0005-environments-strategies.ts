import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * Environments, the environments of each project, the state of each flag in each of them,
 * and activation strategies with the segments they use. Frozen in time.
 *
 * A strategy belongs to a flag's environment row (composite foreign key): removing an
 * environment from a project removes the flags' rows there, and with them their strategies.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, boolean, name } = columnTypes(db)
  const text = sql`text`
  const integer = sql`integer`

  await db.schema
    .createTable('environments')
    .ifNotExists()
    .addColumn('name', name, (c) => c.primaryKey())
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('sort_order', integer, (c) => c.notNull())
    .addColumn('enabled', boolean, (c) => c.notNull())
    .addColumn('protected', boolean, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('project_environments')
    .ifNotExists()
    .addColumn('project', name, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('environment', name, (c) => c.notNull().references('environments.name').onDelete('cascade'))
    .addPrimaryKeyConstraint('project_environments_pk', ['project', 'environment'])
    .execute()
  await db.schema
    .createIndex('project_environments_environment_idx')
    .ifNotExists()
    .on('project_environments')
    .column('environment')
    .execute()

  await db.schema
    .createTable('feature_environments')
    .ifNotExists()
    .addColumn('feature', name, (c) => c.notNull().references('features.name').onDelete('cascade'))
    .addColumn('environment', name, (c) => c.notNull().references('environments.name').onDelete('cascade'))
    .addColumn('enabled', boolean, (c) => c.notNull())
    /** JSON text: the environment's variants */
    .addColumn('variants', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('feature_environments_pk', ['feature', 'environment'])
    .execute()
  await db.schema
    .createIndex('feature_environments_environment_idx')
    .ifNotExists()
    .on('feature_environments')
    .columns(['environment', 'enabled'])
    .execute()

  await db.schema
    .createTable('feature_strategies')
    .ifNotExists()
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('feature_name', name, (c) => c.notNull())
    .addColumn('project', name, (c) => c.notNull())
    .addColumn('environment', name, (c) => c.notNull())
    .addColumn('strategy_name', text, (c) => c.notNull())
    .addColumn('title', text)
    .addColumn('disabled', boolean, (c) => c.notNull())
    /** JSON text: Record<string, string> */
    .addColumn('parameters', text, (c) => c.notNull())
    /** JSON text: the constraints as echoed */
    .addColumn('constraints', text, (c) => c.notNull())
    /** JSON text: the strategy's variants */
    .addColumn('variants', text, (c) => c.notNull())
    .addColumn('sort_order', integer, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addForeignKeyConstraint(
      'feature_strategies_feature_environment_fk',
      ['feature_name', 'environment'],
      'feature_environments',
      ['feature', 'environment'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute()
  await db.schema
    .createIndex('feature_strategies_feature_environment_idx')
    .ifNotExists()
    .on('feature_strategies')
    .columns(['feature_name', 'environment', 'sort_order'])
    .execute()

  await db.schema
    .createTable('feature_strategy_segments')
    .ifNotExists()
    .addColumn('strategy_id', text, (c) => c.notNull().references('feature_strategies.id').onDelete('cascade'))
    .addColumn('segment_id', integer, (c) => c.notNull().references('segments.id').onDelete('restrict'))
    .addPrimaryKeyConstraint('feature_strategy_segments_pk', ['strategy_id', 'segment_id'])
    .execute()
  await db.schema
    .createIndex('feature_strategy_segments_segment_idx')
    .ifNotExists()
    .on('feature_strategy_segments')
    .column('segment_id')
    .execute()

  // (`where true`: SQLite needs a WHERE before ON CONFLICT in an INSERT … SELECT.)
  // A fresh instance has these two, as the reference does; every existing project gets both,
  // and every existing flag a disabled row in each of its project's environments.
  const createdAt = new Date().toISOString()
  await db
    .insertInto('environments')
    .values([
      { name: 'development', type: 'development', sort_order: 2, enabled: true, protected: false, created_at: createdAt },
      { name: 'production', type: 'production', sort_order: 3, enabled: true, protected: false, created_at: createdAt },
    ])
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  await sql`insert into project_environments (project, environment)
    select projects.id, environments.name from projects cross join environments where true
    on conflict do nothing`.execute(db)
  await sql`insert into feature_environments (feature, environment, enabled, variants)
    select features.name, project_environments.environment, ${dialectOf(db) === 'postgres' ? sql`false` : sql`0`}, '[]'
    from features join project_environments on project_environments.project = features.project where true
    on conflict do nothing`.execute(db)

  // Flags served to SDKs are remembered from these tables too (as in migrations 0002 and 0003).
  if (dialectOf(db) === 'postgres') {
    for (const table of NOTIFYING_TABLES) {
      await sql`create trigger ${sql.raw(`${table}_notify_change`)} after insert or update or delete or truncate on ${sql.table(table)}
        for each statement execute function pennon_notify_change()`.execute(db)
    }
  }
}

const NOTIFYING_TABLES = [
  'environments',
  'project_environments',
  'feature_environments',
  'feature_strategies',
  'feature_strategy_segments',
  'segments',
]

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    for (const table of NOTIFYING_TABLES)
      await sql`drop trigger if exists ${sql.raw(`${table}_notify_change`)} on ${sql.table(table)}`.execute(db)
  }
  for (const table of ['feature_strategy_segments', 'feature_strategies', 'feature_environments', 'project_environments', 'environments']) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
