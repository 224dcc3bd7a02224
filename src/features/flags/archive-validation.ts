/**
 * What archiving a batch of flags would affect (docs/contract.md §4), answered by one indexed
 * query whatever the batch size: the batch travels as one parameter (see
 * db/name-set.ts) and is matched against the primary key of `features`, then against
 * the two indexes of `feature_dependencies` (child, parent).
 */
import { sql, type Kysely } from 'kysely'
import { createAnswerCache } from '../../db/answer-cache.ts'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { namesRelation } from '../../db/name-set.ts'

export interface ArchiveValidation {
  parentsWithChildFeatures: string[]
  hasDeletedDependencies: boolean
}

/**
 * One statement: B (the named active flags of the project, looked up by primary key:
 * CROSS JOIN keeps SQLite's planner from scanning the project's flags instead),
 * then the flags of B with a child outside B, sorted, each once, and — as a `null`
 * row — whether some dependency has its child in B. Any row at all means a dependency
 * would go: one whose parent is in B either has its child outside B (an orphan) or in B.
 */
export function validationQuery(db: Kysely<Database>, project: string, names: readonly string[]) {
  return sql<{ name: string | null }>`
    with batch as materialized (
      select f.name from (${namesRelation(db, names)}) as b
      cross join features f
      where f.name = b.name and f.project = ${project} and f.archived_at is null
    )
    select name from (
      select distinct d.parent as name from feature_dependencies d
      where d.parent in (select name from batch) and d.child not in (select name from batch)
    ) as orphaning
    union all
    select null where exists (select 1 from feature_dependencies d where d.child in (select name from batch))
    order by name`
}

/** Read-only: no lock, no event. Unknown names, foreign flags and an unknown project contribute nothing. */
export async function validateArchive(db: Kysely<Database>, project: string, names: readonly string[]): Promise<ArchiveValidation> {
  if (names.length === 0) return { parentsWithChildFeatures: [], hasDeletedDependencies: false }
  const { rows } = await validationQuery(db, project, names).execute(db)
  // The null row sorts first on SQLite and last on PostgreSQL; the names keep their order.
  const parentsWithChildFeatures = rows.flatMap((row) => (row.name === null ? [] : [row.name]))
  return { parentsWithChildFeatures, hasDeletedDependencies: rows.length > 0 }
}

/**
 * Validation answers as JSON bytes, remembered per project and batch while the database is
 * unchanged (answer-cache.ts): an archive dialog asks again for the same selection, and every
 * flag or dependency change moves the version (each writes an event; on PostgreSQL the flag
 * tables notify too, migration 0003). A batch not seen at this version costs the one query.
 */
export function createArchiveValidator({ db, changes }: { db: Kysely<Database>; changes: ChangeWatch }) {
  // A few hundred batches of a few dozen names; a larger batch is answered, not remembered.
  const answers = createAnswerCache(changes, {
    maxEntries: 256,
    maxBodyLength: 16 * 1024,
    maxTotalLength: 1024 * 1024,
    maxKeyLength: 4 * 1024,
  })
  return async (project: string, names: readonly string[], version = changes.version()): Promise<Buffer> => {
    const key = JSON.stringify([project, names])
    const cached = answers.get(key, version)
    if (cached !== undefined) return cached
    const body = Buffer.from(JSON.stringify(await validateArchive(db, project, names)))
    answers.set(key, version, body)
    return body
  }
}
