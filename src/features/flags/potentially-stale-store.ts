/**
 * The periodic scan's statements on `features.potentially_stale` (migration 0017). They look only
 * at flags neither stale nor archived, as the reference's scan does: a stale or archived flag
 * keeps its mark, so it is not announced again when it comes back. Every statement repeats the
 * partial index's condition word for word (SQLite uses a partial index only then), and one type's
 * age condition, so both databases seek the index rather than read every flag.
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely'
import type { Database } from '../../db/tables.ts'

/** The index's condition: the flags the scan looks at. */
const SCANNED = sql<SqlBool>`stale = false and archived_at is null`

/**
 * A type's unmarked flags created before `cutoff`: those that have outlived its lifetime. One type
 * per statement: SQLite seeks a partial index for one such condition, not for an OR of several.
 */
const outlivedUnmarked = (type: string, cutoff: string) =>
  sql<SqlBool>`potentially_stale = false and type = ${type} and created_at < ${cutoff}`

/** A type's marked flags that have not outlived it (any, when it has no lifetime): a lifetime made longer, or none. */
const youngMarked = (type: string, cutoff: string | undefined) =>
  cutoff === undefined
    ? sql<SqlBool>`potentially_stale = true and type = ${type}`
    : sql<SqlBool>`potentially_stale = true and type = ${type} and created_at >= ${cutoff}`

export function createPotentiallyStaleStore(db: Kysely<Database>) {
  /** A read, so a run with nothing to do writes nothing (and moves no cache's version). */
  const any = async (condition: RawBuilder<SqlBool>) =>
    (await db.selectFrom('features').select('name').where(SCANNED).where(condition).limit(1).executeTakeFirst()) !== undefined

  return {
    anyOutlived: (type: string, cutoff: string) => any(outlivedUnmarked(type, cutoff)),

    anyYoungMarked: (type: string, cutoff: string | undefined) => any(youngMarked(type, cutoff)),

    /**
     * Marks up to `limit` flags of `type` created before `cutoff` and returns them, sorted. The
     * condition is checked again on each row as it is updated, so of two instances marking at once
     * (on PostgreSQL the second waits for the first's row locks, then sees its marks) only one gets
     * a flag back: only one writes its event.
     */
    async markOutlived(type: string, cutoff: string, limit: number): Promise<Array<{ name: string; project: string }>> {
      const condition = outlivedUnmarked(type, cutoff)
      const rows = await db
        .updateTable('features')
        .set({ potentially_stale: true })
        .where('name', 'in', db.selectFrom('features').select('name').where(SCANNED).where(condition).limit(limit))
        .where(SCANNED)
        .where(condition)
        .returning(['name', 'project'])
        .execute()
      return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    },

    /** Unmarks the flags of `type` that have not outlived it; returns how many. */
    async unmarkYoung(type: string, cutoff: string | undefined): Promise<number> {
      const result = await db
        .updateTable('features')
        .set({ potentially_stale: false })
        .where(SCANNED)
        .where(youngMarked(type, cutoff))
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
  }
}
