import { sql, type Kysely } from 'kysely'
import { advanceCounter } from '../../db/counters.ts'
import { preparedInsert } from '../../db/prepared.ts'
import { dialectOf } from '../../db/dialect.ts'
import type { Database, SegmentsTable } from '../../db/tables.ts'
import type { SegmentData } from '../events/event-types.ts'
import type { EventAroundIds } from '../events/event-store.ts'
import type { Constraint } from './constraints.ts'

/** A segment as the API shows it (and as its events carry it): `project` only when set. */
export interface Segment extends SegmentData {
  constraints: Constraint[]
}

const toSegment = (row: SegmentsTable): Segment => ({
  id: Number(row.id),
  name: row.name,
  description: row.description,
  ...(row.project === null ? {} : { project: row.project }),
  constraints: JSON.parse(row.constraints) as Constraint[],
  createdBy: row.created_by,
  createdAt: row.created_at,
})

const toRow = (segment: Segment): SegmentsTable => ({
  id: segment.id,
  name: segment.name,
  description: segment.description,
  project: segment.project ?? null,
  constraints: JSON.stringify(segment.constraints),
  created_by: segment.createdBy,
  created_at: segment.createdAt,
})

// Compiled once: creation is the hot write.
const insertSegment = preparedInsert<SegmentsTable>('segments', ['id', 'name', 'description', 'project', 'constraints', 'created_by', 'created_at'])

export function createSegmentStore(db: Kysely<Database>) {
  return {
    /** `forUpdate` locks the row on PostgreSQL (SQLite transactions hold the write lock already). */
    async find(id: number, { forUpdate = false } = {}): Promise<Segment | undefined> {
      const row = await db
        .selectFrom('segments')
        .selectAll()
        .where('id', '=', id)
        .$if(forUpdate && dialectOf(db) === 'postgres', (query) => query.forUpdate())
        .executeTakeFirst()
      return row && toSegment(row)
    },
    async list(): Promise<Segment[]> {
      return (await db.selectFrom('segments').selectAll().orderBy('name').execute()).map(toSegment)
    },
    async projectExists(id: string): Promise<boolean> {
      return (await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    },
    /**
     * Counts one more segment, draws its id from the gap-free `segment_id` counter and
     * inserts it — or returns undefined, inserting nothing, when the count would pass
     * `limit` (the caller rolls back, so the count and the id are given back).
     * SQLite, inside the caller's transaction, whose write lock serializes concurrent creates
     * (PostgreSQL: insertCountedWithEvent).
     */
    async insertCounted(segment: Omit<Segment, 'id'>, limit: number): Promise<number | undefined> {
      if ((await advanceCounter(db, 'segment_count')) > limit) return undefined
      const id = await advanceCounter(db, 'segment_id')
      await db.executeQuery(insertSegment(db, toRow({ ...segment, id })))
      return id
    },
    async update(segment: Segment): Promise<void> {
      const { id: _id, created_by: _by, created_at: _at, ...changes } = toRow(segment)
      await db.updateTable('segments').set(changes).where('id', '=', segment.id).execute()
    },
    /** Deletes and returns the segment as it was, in one statement; undefined when there was none. */
    async delete(id: number): Promise<Segment | undefined> {
      const row = await db.deleteFrom('segments').where('id', '=', id).returningAll().executeTakeFirst()
      return row && toSegment(row)
    },
  }
}

/**
 * PostgreSQL: the whole create — count, id, segment, event id, event — as one statement in its
 * own transaction. The counter rows are then locked only while it runs and commits, never
 * across a round trip to Pennon: concurrent creates (and every other event writer) serialize
 * on those rows, so the time they are held bounds how many writes a second the database takes.
 * Each update reads the one before it, so the rows are always locked in the same order as
 * every other writer's (segment count, segment id, event id): no lock-order deadlock.
 * Returns undefined, having changed nothing, when the count is at `limit`.
 */
export async function insertCountedWithEvent(db: Kysely<Database>, segment: Omit<Segment, 'id'>, limit: number, event: EventAroundIds): Promise<number | undefined> {
  const row = toRow({ ...segment, id: 0 })
  const logged = event.row
  const [head, middle, tail] = event.jsonAround
  const result = await sql<{ id: number }>`
    with counted as (
      update counters set value = value + 1 where name = 'segment_count' and value < ${limit} returning value
    ), drawn as (
      update counters set value = value + 1 where name = 'segment_id' and exists (select from counted) returning value
    ), inserted as (
      insert into segments (id, name, description, project, constraints, created_by, created_at)
      select value, ${row.name}::text, ${row.description}::text, ${row.project}::text, ${row.constraints}::text, ${row.created_by}::text, ${row.created_at}::timestamptz
      from drawn
      returning id
    ), event_id as (
      update counters set value = value + 1 where name = 'event_id' and exists (select from inserted) returning value
    ), appended as (
      insert into events (id, type, created_by, created_by_user_id, created_at, feature_name, project, environment, group_type, group_id, json)
      select event_id.value, ${logged.type}::text, ${logged.created_by}::text, ${logged.created_by_user_id}::integer, ${logged.created_at}::timestamptz,
        ${logged.feature_name}::text, ${logged.project}::text, ${logged.environment}::text, ${logged.group_type}::text, ${logged.group_id}::text,
        ${head}::text || event_id.value || ${middle}::text || inserted.id || ${tail}::text
      from event_id cross join inserted
    )
    select id from inserted`.execute(db)
  const id = result.rows[0]?.id
  return id === undefined ? undefined : Number(id)
}
