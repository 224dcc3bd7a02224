import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * Each signed-in user's favorite flags and projects: the reference's `favorite_features` and
 * `favorite_projects`. The key leads with the user, so a user's favorites are one range of it (the
 * flag search's `favorite` filter, the projects list); the second index serves the cascades when a
 * flag or project goes. The foreign keys cascade, as the reference's. Frozen in time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  await db.schema
    .createTable('favorite_features')
    .ifNotExists()
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('feature', name, (c) => c.notNull().references('features.name').onDelete('cascade'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('favorite_features_pkey', ['user_id', 'feature'])
    .execute()
  await db.schema.createIndex('favorite_features_feature_idx').ifNotExists().on('favorite_features').column('feature').execute()
  await db.schema
    .createTable('favorite_projects')
    .ifNotExists()
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project', name, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('favorite_projects_pkey', ['user_id', 'project'])
    .execute()
  await db.schema.createIndex('favorite_projects_project_idx').ifNotExists().on('favorite_projects').column('project').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('favorite_projects').ifExists().execute()
  await db.schema.dropTable('favorite_features').ifExists().execute()
}
