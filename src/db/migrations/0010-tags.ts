import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect.ts'

/**
 * Tag types, tags (a type and a value) and the tags of each flag. Frozen in time.
 *
 * Every foreign key cascades, as the reference's do: a flag deleted for good takes its tags with
 * it, and a tag type or tag deleted by hand leaves no row behind. The API deletes what a tag
 * type or tag takes with it itself, first, so that each flag's loss is in the event log
 * (tag-service.ts). The built-in type `simple` is seeded as a fresh reference instance shows it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  const text = sql`text`

  await db.schema
    .createTable('tag_types')
    .ifNotExists()
    .addColumn('name', name, (c) => c.primaryKey())
    .addColumn('description', text)
    .addColumn('icon', text)
    .addColumn('color', text)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()

  // The primary key also finds a type's tags (GET /tags/:type, a type's deletion).
  await db.schema
    .createTable('tags')
    .ifNotExists()
    .addColumn('type', name, (c) => c.notNull().references('tag_types.name').onDelete('cascade'))
    .addColumn('value', name, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('tags_pk', ['type', 'value'])
    .execute()

  // The primary key finds a flag's tags (and a batch of flags'); the index the flags of a tag
  // (the tag filters, a tag's deletion and the cascade from it).
  await db.schema
    .createTable('feature_tags')
    .ifNotExists()
    .addColumn('feature_name', name, (c) => c.notNull().references('features.name').onDelete('cascade'))
    .addColumn('tag_type', name, (c) => c.notNull())
    .addColumn('tag_value', name, (c) => c.notNull())
    .addColumn('created_by_user_id', sql`integer`, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('feature_tags_pk', ['feature_name', 'tag_type', 'tag_value'])
    .addForeignKeyConstraint('feature_tags_tag_fk', ['tag_type', 'tag_value'], 'tags', ['type', 'value'], (fk) => fk.onDelete('cascade'))
    .execute()
  await db.schema
    .createIndex('feature_tags_tag_idx')
    .ifNotExists()
    .on('feature_tags')
    .columns(['tag_type', 'tag_value', 'feature_name'])
    .execute()

  await db
    .insertInto('tag_types')
    .values({
      name: 'simple',
      description: 'Used to simplify filtering of features',
      icon: '#',
      color: '#FFFFFF',
      created_at: new Date().toISOString(),
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()

  // SDKs may ask for the flags of a tag (GET /api/client/features?tag=…), and those answers are
  // remembered per change version (change-watch.ts), so a flag's tags are served data too. Deletes
  // cascading from tags and tag types run as statements on feature_tags, and fire its trigger.
  if (dialectOf(db) === 'postgres') {
    await sql`create trigger feature_tags_notify_change after insert or update or delete or truncate on feature_tags
      for each statement execute function pennon_notify_change()`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`drop trigger if exists feature_tags_notify_change on feature_tags`.execute(db)
  await db.schema.dropTable('feature_tags').ifExists().execute()
  await db.schema.dropTable('tags').ifExists().execute()
  await db.schema.dropTable('tag_types').ifExists().execute()
}
