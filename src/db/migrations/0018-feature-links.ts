import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * The links of each flag (to tickets, dashboards): the reference's `feature_link`. Frozen in time.
 *
 * A link's id is a ULID, as the reference's: a flag's links are listed by id, which is the order
 * they were made in (db/ulid.ts, monotonicUlid). The foreign key cascades, as the reference's
 * does: a flag deleted for good takes its links with it; archived flags keep theirs. The index
 * finds a flag's links in that order (the flag read, the export). Links are not served to SDKs,
 * so no change notification is needed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  await db.schema
    .createTable('feature_links')
    .ifNotExists()
    .addColumn('id', name, (c) => c.primaryKey())
    .addColumn('feature_name', name, (c) => c.notNull().references('features.name').onDelete('cascade'))
    .addColumn('url', sql`text`, (c) => c.notNull())
    .addColumn('title', sql`text`)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('feature_links_feature_idx').ifNotExists().on('feature_links').columns(['feature_name', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('feature_links').ifExists().execute()
}
