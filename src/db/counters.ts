import { sql, type Kysely, type RawBuilder } from 'kysely'
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

// Compiled once per number of counters.
const advanceSeveral = (count: number) =>
  prepared((db: Kysely<Database>) =>
    db
      .updateTable('counters')
      .set({ value: sql`value + ${0}` })
      .where('name', 'in', Array<string>(count).fill(''))
      .returning(['name', 'value']),
  )
const advanceSeveralByCount: ReturnType<typeof advanceSeveral>[] = []

/** Adds `by` to each of these counters in one statement; their new values, in the order named. */
export async function advanceCounters(db: Kysely<Database>, names: readonly CounterName[], by: number): Promise<number[]> {
  const statement = (advanceSeveralByCount[names.length] ??= advanceSeveral(names.length))
  const { rows } = await db.executeQuery(statement(db, [by, ...names]))
  const after = new Map(rows.map((row) => [row.name, Number(row.value)]))
  return names.map((name) => {
    const value = after.get(name)
    if (value === undefined) throw new Error(`counter ${name} is missing`)
    return value
  })
}

// CTE bodies for a PostgreSQL statement that draws from counters itself. Names are literals
// (a CounterName is never user input), so each caller's statement text stays the same.

/** A counter's value before the statement advances it (one row, `before`), its row locked FOR UPDATE. */
export function lockedCounterValue(name: CounterName): RawBuilder<unknown> {
  return sql`select value as before from counters where name = ${sql.lit(name)} for update`
}

/**
 * Adds `amount` to a counter when `condition` holds; one row, `before` (its value before), or none.
 * Both are SQL expressions, evaluated in the statement (e.g. over earlier CTEs).
 */
export function advanceCounterBy(name: CounterName, amount: RawBuilder<unknown>, condition: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`update counters set value = value + ${amount} where name = ${sql.lit(name)} and ${condition} returning value - ${amount} as before`
}
