import { sql, type Kysely } from 'kysely'
import type { Database } from './tables.ts'

export type CounterName = 'event_id' | 'segment_id' | 'segment_count' | 'service_account_id' | 'service_account_token_id'

/**
 * Adds `by` to a counter and returns its new value. Call it inside the writing
 * transaction: the row lock (PostgreSQL) or the write lock (SQLite) makes ids
 * gap-free and counts exact, identically on both databases.
 */
export async function advanceCounter(db: Kysely<Database>, name: CounterName, by = 1): Promise<number> {
  const row = await db
    .updateTable('counters')
    .set({ value: sql`value + ${by}` })
    .where('name', '=', name)
    .returning('value')
    .executeTakeFirstOrThrow()
  return Number(row.value)
}
