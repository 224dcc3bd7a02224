import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.ts'
import { createReserveFunction } from './0015-event-sequence.ts'

/**
 * PostgreSQL: segment creates no longer reserve the segment count in a transaction of their own
 * (`pennon_reserve`, migration 0015): each batch locks the count's row in its own statement
 * (features/segments/segment-store.ts), one round trip instead of three.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`drop function if exists pennon_reserve`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await createReserveFunction(db)
}
