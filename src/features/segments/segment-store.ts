import { sql, type Kysely } from 'kysely'
import { advanceCounters, counterAdvanced, drawnIds, lockedCounter, readCounter } from '../../db/counters.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { prepared, preparedInsert } from '../../db/prepared.ts'
import { dialectOf } from '../../db/dialect.ts'
import type { Database, SegmentsTable } from '../../db/tables.ts'
import type { SegmentData } from '../events/event-types.ts'
import { eventAroundIdsRecord, insertEventAroundIds, insertEventsAroundIds, type EventAroundIds } from '../events/event-store.ts'
import type { Constraint } from '../constraints/constraints.ts'
import { lockedRows } from '../../db/row-lock.ts'

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
const insertSegment = preparedInsert<SegmentsTable>('segments', [
  'id',
  'name',
  'description',
  'project',
  'constraints',
  'created_by',
  'created_at',
])

// SQLite's read of a batch's names already stored, compiled once.
const storedNames = prepared((db: Kysely<Database>) =>
  db.selectFrom('segments').select('name').where('name', 'in', sql<string>`(select value from json_each(${'[]'}))`),
)

export function createSegmentStore(db: Kysely<Database>) {
  return {
    /** `forUpdate` locks the row on PostgreSQL (SQLite transactions hold the write lock already). */
    async find(id: number, { forUpdate = false } = {}): Promise<Segment | undefined> {
      const row = await db
        .selectFrom('segments')
        .selectAll()
        .where('id', '=', id)
        .$call(lockedRows(db, { when: forUpdate }))
        .executeTakeFirst()
      return row && toSegment(row)
    },
    /**
     * Each existing segment's project (null: none), by id; their rows held FOR SHARE on PostgreSQL,
     * so none moves to another project, or goes, until the transaction ends.
     */
    async holdProjects(ids: readonly number[]): Promise<Map<number, string | null>> {
      const rows = await db
        .selectFrom('segments')
        .select(['id', 'project'])
        .where('id', 'in', [...ids])
        .$call(lockedRows(db, { mode: 'share' }))
        .execute()
      return new Map(rows.map((row) => [Number(row.id), row.project]))
    },

    /** The segments with these ids (unknown ones left out), by id. */
    async findMany(ids: readonly number[]): Promise<Segment[]> {
      if (ids.length === 0) return []
      const rows = await db
        .selectFrom('segments')
        .selectAll()
        .where('id', 'in', [...ids])
        .orderBy('id')
        .execute()
      return rows.map(toSegment)
    },

    /** Which of these ids are segments. */
    async existing(ids: readonly number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set()
      return new Set(
        (
          await db
            .selectFrom('segments')
            .select('id')
            .where('id', 'in', [...ids])
            .execute()
        ).map((row) => Number(row.id)),
      )
    },

    /** Whether a segment holds this name (names are case-sensitive). */
    async hasName(name: string): Promise<boolean> {
      return (await db.selectFrom('segments').select('id').where('name', '=', name).executeTakeFirst()) !== undefined
    },

    async list(): Promise<Segment[]> {
      return (await db.selectFrom('segments').selectAll().orderBy('name').execute()).map(toSegment)
    },
    /** Whether a project has a segment of its own: a bounded read (ProjectContents). */
    async anyInProject(project: string): Promise<boolean> {
      return (await db.selectFrom('segments').select('id').where('project', '=', project).limit(1).executeTakeFirst()) !== undefined
    },
    /** How many segments are the project's own (the project status): a range of the project index. */
    async countInProject(project: string): Promise<number> {
      const row = await db
        .selectFrom('segments')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .where('project', '=', project)
        .executeTakeFirstOrThrow()
      return Number(row.count)
    },
    projectExists: (id: string): Promise<boolean> => createProjectStore(db).exists(id),
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

/** One segment to create and its event, both still without their ids. */
export interface SegmentCreate {
  segment: Omit<Segment, 'id'>
  event: EventAroundIds
}

/** What a counted insert did: the new segment's id, or why it inserted nothing. */
export type CountedInsert = { id: number } | { refused: 'limit' | 'name taken' }

/**
 * Whole creates — count, ids, segments, event ids, events — for one or several segments
 * (segment-service.ts batches those that arrive together), in one transaction of their own.
 *
 * Creates are taken in order, as if one by one: a name already stored, or taken by an earlier
 * create of the batch, is refused; so is every create past the count limit, which is reported
 * first. Refusals change nothing and raise nothing. Ids and events are gap-free, in order.
 */
export function insertCountedWithEvents(db: Kysely<Database>, creates: readonly SegmentCreate[], limit: number): Promise<CountedInsert[]> {
  return dialectOf(db) === 'postgres'
    ? insertOnPostgres(db, creates, limit)
    : db.transaction().execute((trx) => insertOnSqlite(trx, creates, limit))
}

/**
 * SQLite, inside a transaction whose write lock (BEGIN IMMEDIATE) keeps every other writer out,
 * so what it reads stays true until it commits: the stored names among the batch's and the
 * count, one read each; then one statement advances the three counters by the number accepted,
 * and each accepted create inserts its segment and its event. A batch shares the transaction,
 * its commit (the log writes) and the counter statement.
 */
async function insertOnSqlite(trx: Kysely<Database>, creates: readonly SegmentCreate[], limit: number): Promise<CountedInsert[]> {
  const names = JSON.stringify(creates.map(({ segment }) => segment.name))
  const taken = new Set((await trx.executeQuery(storedNames(trx, [names]))).rows.map((row) => row.name))
  const countBefore = await readCounter(trx, 'segment_count')
  let accepted = 0
  // Each create's place among those accepted, or why it is refused.
  const places = creates.map(({ segment }): number | 'limit' | 'name taken' => {
    if (countBefore + accepted >= limit) return 'limit'
    if (taken.has(segment.name)) return 'name taken'
    taken.add(segment.name)
    return accepted++
  })
  if (accepted === 0) return places.map((place) => ({ refused: place as 'limit' | 'name taken' }))

  const [, lastSegmentId, lastEventId] = await advanceCounters(trx, ['segment_count', 'segment_id', 'event_id'], accepted)
  const results: CountedInsert[] = []
  for (const [index, place] of places.entries()) {
    if (typeof place !== 'number') {
      results.push({ refused: place })
      continue
    }
    const { segment, event } = creates[index]!
    const id = lastSegmentId - accepted + 1 + place
    await trx.executeQuery(insertSegment(trx, toRow({ ...segment, id })))
    await insertEventAroundIds(trx, event, lastEventId - accepted + 1 + place, id)
    results.push({ id })
  }
  return results
}

/**
 * PostgreSQL: the whole batch is one statement in a transaction of its own (one round trip, one
 * log flush): the count's row locked, names checked, ids from the sequences, segments and events
 * inserted, the count advanced. The row stays locked until the commit is flushed, so batches of
 * segment creates (and deletes) of all instances take turns there; nothing else waits on it, and
 * each turn is one statement and one flush for every create that arrived meanwhile. A name taken
 * by another transaction that commits meanwhile raises a unique violation, for the whole statement.
 */
async function insertOnPostgres(db: Kysely<Database>, creates: readonly SegmentCreate[], limit: number): Promise<CountedInsert[]> {
  const items = creates.map(({ segment, event }) => {
    // The id is drawn by the statement.
    const { id: _id, ...row } = toRow({ ...segment, id: 0 })
    return { ...row, event: eventAroundIdsRecord(event) }
  })
  const taken = sql`(select count(*) from accepted)`
  const result = await sql<{ id: number | null; at_limit: boolean }>`
    with counted as (
      ${lockedCounter('segment_count')}
    ), item as (
      select t.*, sent.ord
      from json_array_elements(${JSON.stringify(items)}::json) with ordinality as sent(value, ord)
        cross join json_to_record(sent.value) as t(name text, description text, project text, constraints text, created_by text, created_at timestamptz, event json)
    ), candidate as (
      -- The first create of each name not stored yet, numbered in order.
      select item.*, row_number() over (order by ord) as place
      from item
      where not exists (select from segments where segments.name = item.name)
        and ord = (select min(same.ord) from item same where same.name = item.name)
    ), accepted as (
      select candidate.* from candidate, counted where place <= ${limit} - counted.value
    ), advanced as (
      ${counterAdvanced('segment_count', taken)}
    ), segment_ids as (
      ${drawnIds('segment_id', taken)}
    ), inserted as (
      insert into segments (id, name, description, project, constraints, created_by, created_at)
      select segment_ids.id, name, description, project, constraints, created_by, created_at
      from accepted join segment_ids using (place)
      returning id
    ), event_ids as (
      ${drawnIds('event_id', taken)}
    ), appended as (
      ${insertEventsAroundIds({
        from: sql`accepted join segment_ids using (place) join event_ids as e_ids on e_ids.place = accepted.place`,
        event: sql`accepted.event`,
        id: sql`e_ids.id`,
        dataId: sql`segment_ids.id`,
        orderBy: sql`accepted.place`,
      })}
    )
    select segment_ids.id,
      (select value from counted) + (select count(*) from accepted earlier where earlier.ord < item.ord) >= ${limit} as at_limit
    from item
      left join accepted on accepted.ord = item.ord
      left join segment_ids on segment_ids.place = accepted.place
    order by item.ord`.execute(db)
  return result.rows.map(({ id, at_limit: atLimit }) => (id !== null ? { id: Number(id) } : { refused: atLimit ? 'limit' : 'name taken' }))
}
