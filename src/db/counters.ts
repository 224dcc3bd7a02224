import { sql, type Kysely } from 'kysely'
import type { Database } from './tables.ts'
import { prepared } from './prepared.ts'

export type CounterName =
  | 'event_id'
  | 'segment_id'
  | 'segment_count'
  | 'service_account_id'
  | 'service_account_token_id'
  | 'personal_token_id'

/**
 * Adds `by` to a counter and returns its new value. Call it inside the writing
 * transaction: the row lock (PostgreSQL) or the write lock (SQLite) makes ids
 * gap-free and counts exact, identically on both databases.
 */
// Run by nearly every write: compiled once.
const advance = prepared((db: Kysely<Database>) =>
  db
    .updateTable('counters')
    .set({ value: sql`value + ${0}` })
    .where('name', '=', '')
    .returning('value'),
)

export async function advanceCounter(db: Kysely<Database>, name: CounterName, by = 1): Promise<number> {
  const row = (await db.executeQuery(advance(db, [by, name]))).rows[0]
  if (row === undefined) throw new Error(`counter ${name} is missing`)
  return Number(row.value)
}

const read = prepared((db: Kysely<Database>) => db.selectFrom('counters').select('value').where('name', '=', ''))

/** A counter's value; read inside the writing transaction, it holds until the commit (SQLite's write lock). */
export async function readCounter(db: Kysely<Database>, name: CounterName): Promise<number> {
  const row = (await db.executeQuery(read(db, [name]))).rows[0]
  if (row === undefined) throw new Error(`counter ${name} is missing`)
  return Number(row.value)
}

/** A counter's value as a scalar subquery, for a read that must see it in the same snapshot as its rows. */
export function counterValue(db: Kysely<Database>, name: CounterName) {
  return db.selectFrom('counters').select('value').where('name', '=', name)
}
