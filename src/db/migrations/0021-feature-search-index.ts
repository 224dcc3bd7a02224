import { sql, type Kysely } from 'kysely'

/**
 * GET /search/features (features/feature-search/feature-search-store.ts) lists active flags oldest
 * first by default, then by name: with this index that first page is a walk of the index stopped
 * by its LIMIT rather than a sort of every flag. Archived flags are few and left out.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists features_active_created_at_name_idx on features (created_at, name) where archived_at is null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists features_active_created_at_name_idx`.execute(db)
}
