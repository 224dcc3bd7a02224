import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * The lifecycle stages each flag entered (initial, pre-live, live, completed, archived) and when:
 * the reference's `feature_lifecycles`. One row per flag and stage (the key), so entering a stage
 * again changes nothing; `status` and `status_value` only on `completed` (kept or discarded). The
 * key finds a flag's rows; the foreign key cascades, as the reference's: a flag deleted for good
 * takes its stages with it. Frozen in time.
 *
 * Flags that exist now get the stages their own columns tell: initial at their creation, and
 * archived at their archiving for archived flags. Sightings by SDKs before this migration are not
 * replayed: the next report moves them on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { timestamp, name } = columnTypes(db)
  await db.schema
    .createTable('feature_lifecycles')
    .ifNotExists()
    .addColumn('feature', name, (c) => c.notNull().references('features.name').onDelete('cascade'))
    .addColumn('stage', sql`text`, (c) => c.notNull())
    .addColumn('status', sql`text`)
    .addColumn('status_value', sql`text`)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('feature_lifecycles_pkey', ['feature', 'stage'])
    .execute()
  await sql`insert into feature_lifecycles (feature, stage, created_at)
    select name, 'initial', created_at from features`.execute(db)
  await sql`insert into feature_lifecycles (feature, stage, created_at)
    select name, 'archived', archived_at from features where archived_at is not null`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('feature_lifecycles').ifExists().execute()
}
