import { CompiledQuery, sql, type Kysely } from 'kysely'
import { readCounter } from '../../db/counters.ts'
import { dialectOf } from '../../db/dialect.ts'
import type { Database } from '../../db/tables.ts'

/**
 * The event log read in commit order, and a transaction's own events.
 *
 * SQLite writes one transaction at a time and draws event ids under its write lock, so ids
 * commit in order: "every event after id N" misses nothing. PostgreSQL draws them from a
 * sequence (counters.ts: drawIds) and holds no lock until the commit, so id 6 can commit while
 * id 5 is still being written: a reader that took 6 and went on "after 6" would never see 5.
 * Each event records its transaction (`tx`, migration 0015); the reader takes only events of
 * transactions older than every transaction still running (pg_snapshot_xmin of the statement's
 * snapshot: all of those have ended, committed or not), in (tx, id) order. A later read cannot
 * find an event that sorts before what was read: its transaction would have been running, so
 * younger than that bound. An event is read late by as long as the oldest transaction then
 * running lasts (any transaction of the database that holds a transaction id).
 */

/** Where a reader of the log stands: after every event up to here, in commit order. Stored as text. */
export type EventCursor = string

/** Before the first event. */
export const LOG_START: EventCursor = '0:0'

export interface LoggedEvent {
  id: number
  /** The event as stored: the API object, served verbatim. */
  json: string
  /** The position just after this event: a reader that stops here goes on from it. */
  cursor: EventCursor
}

function parseCursor(cursor: EventCursor): { tx: string; id: number } {
  const match = /^(\d{1,20}):(\d{1,16})$/.exec(cursor)
  if (!match) throw new Error(`not an event cursor: ${JSON.stringify(cursor)}`)
  return { tx: match[1]!, id: Number(match[2]) }
}

const AFTER_ON_POSTGRES = `select id, json, tx::text as tx from events
  where (tx, id) > ($1::xid8, $2::bigint) and tx < pg_snapshot_xmin(pg_current_snapshot())
  order by tx, id limit $3`

/** Up to `limit` events after `cursor`, in commit order, and the cursor after them (the same one when there is none). */
export async function readEventsAfter(
  db: Kysely<Database>,
  cursor: EventCursor,
  limit: number,
): Promise<{ events: LoggedEvent[]; cursor: EventCursor }> {
  const after = parseCursor(cursor)
  if (dialectOf(db) === 'postgres') {
    const { rows } = await db.executeQuery(CompiledQuery.raw(AFTER_ON_POSTGRES, [after.tx, after.id, limit]))
    const read = rows as { id: string; json: string; tx: string }[]
    const last = read.at(-1)
    return {
      events: read.map((row) => ({ id: Number(row.id), json: row.json, cursor: `${row.tx}:${row.id}` })),
      cursor: last ? `${last.tx}:${last.id}` : cursor,
    }
  }
  const rows = await db.selectFrom('events').select(['id', 'json']).where('id', '>', after.id).orderBy('id').limit(limit).execute()
  const last = rows.at(-1)
  return {
    events: rows.map((row) => ({ id: Number(row.id), json: row.json, cursor: `0:${row.id}` })),
    cursor: last ? `0:${last.id}` : cursor,
  }
}

/**
 * The log's position for a reader that starts with the writing transaction `trx`: it will read
 * this transaction's own events and every event committed after it (PostgreSQL: of a younger
 * transaction; one older still running is concurrent with it, and counted as before).
 */
export async function positionNow(trx: Kysely<Database>): Promise<EventCursor> {
  if (dialectOf(trx) === 'sqlite') return `0:${await readCounter(trx, 'event_id')}`
  const row = await sql<{ tx: string }>`select pg_current_xact_id()::text as tx`.execute(trx)
  return `${row.rows[0]!.tx}:0`
}

/** A mark in the writing transaction `trx`, for eventsWrittenSince. */
export async function eventMark(trx: Kysely<Database>): Promise<number> {
  if (dialectOf(trx) === 'sqlite') return readCounter(trx, 'event_id')
  const row = await sql<{ id: string | null }>`select max(id) as id from events where tx = pg_current_xact_id()`.execute(trx)
  return Number(row.rows[0]?.id ?? 0)
}

/** The stored JSON of the events `trx` has written since `mark` (eventMark), oldest first. */
export async function eventsWrittenSince(trx: Kysely<Database>, mark: number): Promise<string[]> {
  const rows = await trx
    .selectFrom('events')
    .select('json')
    .where('id', '>', mark)
    // PostgreSQL: another transaction's events may have committed with higher ids meanwhile.
    .$if(dialectOf(trx) === 'postgres', (query) => query.where(sql<boolean>`tx = pg_current_xact_id()`))
    .orderBy('id')
    .execute()
  return rows.map((row) => row.json)
}

/** The highest event id, as a scalar subquery (the reference's `revisionId`: which state a read saw). */
export function latestEventId(db: Kysely<Database>) {
  return db.selectFrom('events').select((eb) => eb.fn.max('id').as('id'))
}
