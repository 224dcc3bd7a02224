/**
 * What archiving a batch of flags would affect (spec §4), answered by at most two
 * indexed queries whatever the batch size: the batch travels as one parameter
 * (see name-set.ts) and is matched against the primary key of `features`, then
 * against the two indexes of `feature_dependencies` (child, parent).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { inNames } from './name-set.ts'

export interface ArchiveValidation {
  parentsWithChildFeatures: string[]
  hasDeletedDependencies: boolean
}

/** B: the distinct names of the batch that are active flags of the project. */
function activeBatch(db: Kysely<Database>, project: string, names: readonly string[]): RawBuilder<unknown> {
  return sql`select f.name from features f where ${inNames(db, 'f.name', names)} and f.project = ${project} and f.archived_at is null`
}

/** The flags of B with at least one child outside B, sorted, each once. */
export async function findOrphaningParents(db: Kysely<Database>, project: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return []
  const { rows } = await sql<{ name: string }>`
    with batch as materialized (${activeBatch(db, project, names)})
    select distinct d.parent as name
    from feature_dependencies d
    where d.parent in (select name from batch)
      and d.child not in (select name from batch)
    order by name`.execute(db)
  return rows.map((row) => row.name)
}

/** Whether any dependency row has its parent or its child in B. */
async function touchesDependencies(db: Kysely<Database>, project: string, names: readonly string[]): Promise<boolean> {
  if (names.length === 0) return false
  const { rows } = await sql<{ found: boolean | number }>`
    with batch as materialized (${activeBatch(db, project, names)})
    select (exists (select 1 from feature_dependencies d where d.parent in (select name from batch))
         or exists (select 1 from feature_dependencies d where d.child in (select name from batch))) as found`.execute(db)
  return Boolean(rows[0]?.found)
}

/** Read-only: no lock, no event. Unknown names, foreign flags and an unknown project contribute nothing. */
export async function validateArchive(db: Kysely<Database>, project: string, names: readonly string[]): Promise<ArchiveValidation> {
  const parentsWithChildFeatures = await findOrphaningParents(db, project, names)
  // A parent of B with a child outside B already proves that a dependency would go.
  const hasDeletedDependencies = parentsWithChildFeatures.length > 0 || (await touchesDependencies(db, project, names))
  return { parentsWithChildFeatures, hasDeletedDependencies }
}
