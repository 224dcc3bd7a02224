import type { Kysely } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import type { Database, SegmentsTable } from '../../db/tables.ts'
import type { SegmentData } from '../events/event-types.ts'
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
    async insert(segment: Segment): Promise<void> {
      await db.insertInto('segments').values(toRow(segment)).execute()
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
