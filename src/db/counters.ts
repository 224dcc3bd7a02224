import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from './tables.ts'
import { prepared } from './prepared.ts'
import { dialectOf } from './dialect.ts'

/** Counters of both databases; on PostgreSQL, ids of events and segments come from sequences instead (IdName). */
export type CounterName =
  | IdName
  | 'segment_count'
  | 'service_account_id'
  | 'service_account_token_id'
  | 'personal_token_id'
  | 'change_request_id'
  | 'change_request_change_id'
  | 'change_request_comment_id'

/** Ids drawn by drawIds: a counter on SQLite, a sequence on PostgreSQL (migration 0015). */
export type IdName = 'event_id' | 'segment_id'
const SEQUENCE_OF: Record<IdName, string> = { event_id: 'event_ids', segment_id: 'segment_ids' }

/**
 * `count` new ids, ascending, inside the writing transaction. SQLite: from the counter, under
 * its write lock, so they are consecutive and commit in order. PostgreSQL: from a sequence, which
 * locks nothing until the commit: unique and ascending within the call, but another transaction's
 * may interleave, a rollback leaves a gap, and a later id may commit first (read events in
 * commit order with events/event-log.ts).
 */
export async function drawIds(db: Kysely<Database>, name: IdName, count: number): Promise<number[]> {
  if (count <= 0) return []
  if (dialectOf(db) === 'postgres') {
    const { rows } = await db.executeQuery(
      CompiledQuery.raw(`select nextval('${SEQUENCE_OF[name]}') as id from generate_series(1, $1::integer)`, [count]),
    )
    return rows.map((row) => Number((row as { id: string }).id)).sort((a, b) => a - b)
  }
  const last = await advanceCounter(db, name, count)
  return Array.from({ length: count }, (_, index) => last - count + 1 + index)
}

/**
 * A PostgreSQL CTE body that draws `amount` ids from a sequence (rows `id`, `place` 1…amount,
 * ascending together), for a statement that numbers what it inserts itself.
 */
export function drawnIds(name: IdName, amount: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`select id, row_number() over (order by id) as place
      from (select nextval(${sql.lit(SEQUENCE_OF[name])}) as id from generate_series(1, (${amount})::integer)) as drawn`
}

/**
 * PostgreSQL CTE bodies for a statement that counts what it inserts itself: the counter's `value`,
 * its row locked until the transaction ends (a writer committing meanwhile is waited for, and its
 * value read), and the step adding `amount` to it (nothing when `amount` is 0).
 */
export function lockedCounter(name: CounterName): RawBuilder<unknown> {
  return sql`select value from counters where name = ${sql.lit(name)} for update`
}
export function counterAdvanced(name: CounterName, amount: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`update counters set value = value + ${amount} where name = ${sql.lit(name)} and ${amount} > 0 returning 1`
}

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
