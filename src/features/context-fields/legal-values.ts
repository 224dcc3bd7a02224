/**
 * The legal values of context fields, read for the strategy and segment services; the rule
 * itself is pure, in constraints/legal-values.ts.
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import type { ErrorDetail } from '../../http/errors.ts'
import type { ConstraintInput } from '../constraints/constraints.ts'
import { legalValueProblems, type LegalByField } from '../constraints/legal-values.ts'

/**
 * The check for the strategy and segment services. The fields' legal values are remembered per
 * the change watch's version: a segment create (the hot write) reads them once per version, not
 * once per request; a context field's change moves the version (here at once, on other
 * instances by its event's notification).
 *
 * Inside a transaction they are always read through it, and never remembered: the version moves
 * only when a transaction commits, so a copy remembered before would miss the fields the same
 * transaction wrote (an import creates its context fields, then its strategies), and a copy read
 * in it would keep them after a rollback.
 */
export function createLegalValues({ changes }: { changes: ChangeWatch }) {
  let remembered: { version: number; byField: LegalByField } | undefined

  const select = async (db: Kysely<Database>): Promise<LegalByField> => {
    const rows = await db.selectFrom('context_fields').select(['name', 'legal_values']).where('legal_values', '<>', '[]').execute()
    return new Map(rows.map((row) => [row.name, (JSON.parse(row.legal_values) as Array<{ value: string }>).map((legal) => legal.value)]))
  }

  /** `db`: the transaction the check runs in (a strategy write), or the database (a segment's check, before its transaction). */
  async function read(db: Kysely<Database>): Promise<LegalByField> {
    if (db.isTransaction) return select(db)
    const version = changes.version('contextFields')
    if (remembered !== undefined && version !== undefined && remembered.version === version) return remembered.byField
    const byField = await select(db)
    // Kept for this version only if nothing was written meanwhile.
    remembered = version !== undefined && changes.version('contextFields') === version ? { version, byField } : undefined
    return byField
  }

  return {
    /** The values of `constraints` their field does not allow, each at its place in the body. */
    problems: async (
      db: Kysely<Database>,
      constraints: readonly ConstraintInput[],
      basePath?: string | ((index: number) => string),
    ): Promise<ErrorDetail[]> => (constraints.length === 0 ? [] : legalValueProblems(await read(db), constraints, basePath)),
  }
}

export type LegalValues = ReturnType<typeof createLegalValues>
