import { sql, type Kysely } from 'kysely'
import type { Database } from './tables.ts'
import { prepared } from './prepared.ts'

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

// Read on every event request: compiled once.
const counterValue = prepared((db: Kysely<Database>) => db.selectFrom('counters').select('value').where('name', '=', ''))

export async function readCounter(db: Kysely<Database>, name: CounterName): Promise<number> {
  const { rows } = await db.executeQuery(counterValue(db, [name]))
  if (rows.length === 0) throw new Error(`counter ${name} is missing`)
  return Number(rows[0]!.value)
}
