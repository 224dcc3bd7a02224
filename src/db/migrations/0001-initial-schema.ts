import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/** Frozen in time: later changes go into new migrations. */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, boolean, name } = columnTypes(db)
  const text = sql`text`

  await db.schema
    .createTable('projects')
    .ifNotExists()
    .addColumn('id', name, (c) => c.primaryKey())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('features')
    .ifNotExists()
    .addColumn('name', name, (c) => c.primaryKey())
    .addColumn('project', name, (c) => c.notNull().references('projects.id').onDelete('restrict'))
    .addColumn('description', text)
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('stale', boolean, (c) => c.notNull())
    .addColumn('impression_data', boolean, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('archived_at', timestamp)
    .execute()
  await db.schema.createIndex('features_project_name_idx').ifNotExists().on('features').columns(['project', 'name']).execute()

  await db.schema
    .createTable('feature_dependencies')
    .ifNotExists()
    .addColumn('child', name, (c) => c.primaryKey().references('features.name').onDelete('cascade'))
    .addColumn('parent', name, (c) => c.notNull().references('features.name').onDelete('restrict'))
    .addColumn('enabled', boolean, (c) => c.notNull())
    .addColumn('variants', text, (c) => c.notNull())
    .addCheckConstraint('feature_dependencies_not_self', sql`parent <> child`)
    .execute()
  await db.schema.createIndex('feature_dependencies_parent_idx').ifNotExists().on('feature_dependencies').column('parent').execute()

  await db.schema
    .createTable('segments')
    .ifNotExists()
    .addColumn('id', sql`integer`, (c) => c.primaryKey())
    .addColumn('name', name, (c) => c.notNull().unique())
    .addColumn('description', text)
    .addColumn('project', name, (c) => c.references('projects.id').onDelete('restrict'))
    .addColumn('constraints', text, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('segments_project_idx').ifNotExists().on('segments').column('project').execute()

  await db.schema
    .createTable('api_tokens')
    .ifNotExists()
    .addColumn('secret_hash', text, (c) => c.primaryKey())
    .addColumn('token_name', text, (c) => c.notNull())
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('environment', text, (c) => c.notNull())
    .addColumn('projects', text, (c) => c.notNull())
    .addColumn('expires_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('api_tokens_token_name_idx').ifNotExists().on('api_tokens').column('token_name').execute()

  await db.schema
    .createTable('service_accounts')
    .ifNotExists()
    .addColumn('id', sql`integer`, (c) => c.primaryKey())
    .addColumn('username', text, (c) => c.notNull().unique())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('root_role', sql`integer`, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('service_account_tokens')
    .ifNotExists()
    .addColumn('id', sql`integer`, (c) => c.primaryKey())
    .addColumn('service_account_id', sql`integer`, (c) => c.notNull().references('service_accounts.id').onDelete('cascade'))
    .addColumn('description', text, (c) => c.notNull())
    .addColumn('secret_hash', text, (c) => c.notNull().unique())
    .addColumn('expires_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('service_account_tokens_account_idx')
    .ifNotExists()
    .on('service_account_tokens')
    .column('service_account_id')
    .execute()

  await db.schema
    .createTable('events')
    .ifNotExists()
    .addColumn('id', sql`integer`, (c) => c.primaryKey())
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.notNull())
    .addColumn('created_by_user_id', sql`integer`, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('feature_name', name)
    .addColumn('project', name)
    .addColumn('environment', text)
    .addColumn('group_type', text, (c) => c.notNull())
    .addColumn('group_id', text, (c) => c.notNull())
    .addColumn('json', text, (c) => c.notNull())
    .execute()
  // Every event read is "WHERE x = ? ORDER BY id DESC": an index range scan, newest first.
  await db.schema.createIndex('events_project_id_idx').ifNotExists().on('events').columns(['project', 'id']).execute()
  await db.schema.createIndex('events_feature_name_id_idx').ifNotExists().on('events').columns(['feature_name', 'id']).execute()

  await db.schema
    .createTable('counters')
    .ifNotExists()
    .addColumn('name', name, (c) => c.primaryKey())
    .addColumn('value', sql`integer`, (c) => c.notNull())
    .execute()
  await db
    .insertInto('counters')
    .values(
      ['event_id', 'segment_id', 'segment_count', 'service_account_id', 'service_account_token_id'].map((name) => ({ name, value: 0 })),
    )
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()

  await db
    .insertInto('projects')
    .values({ id: 'default', name: 'Default', description: 'Default project', created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'counters',
    'events',
    'service_account_tokens',
    'service_accounts',
    'api_tokens',
    'segments',
    'feature_dependencies',
    'features',
    'projects',
  ]) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
