import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

/**
 * `features.potentially_stale`: which flags the periodic scan has marked potentially stale, each
 * with its `feature-potentially-stale-on` event (flags/potentially-stale-scan.ts). Reads still
 * compute `potentiallyStale` from a flag's age.
 *
 * The flags already past their type's lifetime are marked here without an event, as the
 * reference's migration did: they have shown as potentially stale all along, and an upgrade
 * should not announce them all at once. Frozen in time: the lifetimes are read as they are now.
 *
 * The index holds the flags the scan looks at (neither stale nor archived), by mark, type and
 * age: each run finds the flags to mark (unmarked, of a type, created before its cutoff) and to
 * unmark by seeking, not by reading every flag. The queries repeat its condition word for word,
 * which SQLite needs to use a partial index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { boolean } = columnTypes(db)
  await db.schema
    .alterTable('features')
    .addColumn('potentially_stale', boolean, (c) => c.notNull().defaultTo(false))
    .execute()

  const now = Date.now()
  const types = await db.selectFrom('feature_types').select(['id', 'lifetime_days']).where('lifetime_days', 'is not', null).execute()
  for (const type of types) {
    const cutoff = new Date(now - Number(type.lifetime_days) * 86_400_000).toISOString()
    await db
      .updateTable('features')
      .set({ potentially_stale: true })
      .where('type', '=', type.id)
      .where('created_at', '<', cutoff)
      .where('stale', '=', false)
      .where('archived_at', 'is', null)
      .execute()
  }

  await sql`create index if not exists features_potentially_stale_idx
    on features (potentially_stale, type, created_at)
    where stale = false and archived_at is null`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists features_potentially_stale_idx`.execute(db)
  await db.schema.alterTable('features').dropColumn('potentially_stale').execute()
}
