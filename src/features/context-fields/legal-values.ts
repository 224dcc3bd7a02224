/**
 * A constraint on a context field that has legal values may use only those (as the reference
 * checks strategies and segments): the values of a list operator, the value of the others.
 * A field without legal values, or a name no field has, takes anything.
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { quote, type ErrorDetail } from '../../http/errors.ts'
import type { ConstraintInput } from '../segments/constraints.ts'

const LIST_OPERATORS: ReadonlySet<string> = new Set(['IN', 'NOT_IN', 'STR_ENDS_WITH', 'STR_STARTS_WITH', 'STR_CONTAINS', 'IN_CIDR'])
// A refusal shows this many of the field's legal values.
const SHOWN = 5

function illegal(path: string, field: string, legal: readonly string[], sent: string): ErrorDetail {
  const shown = legal.slice(0, SHOWN).map((value) => quote(value)).join(', ')
  const more = legal.length > SHOWN ? ` and ${legal.length - SHOWN} more` : ''
  return { path, message: `The \`${path}\` property must be a legal value of context field ${quote(field)} (${shown}${more}). You sent ${quote(sent)}.` }
}

/** The fields that have legal values, and their values in order. */
type LegalByField = ReadonlyMap<string, readonly string[]>

/** The values of `constraints` (at `basePath` in the body) that their field does not allow. */
export function legalValueProblems(legalByField: LegalByField, constraints: readonly ConstraintInput[], basePath = '/body/constraints'): ErrorDetail[] {
  const details: ErrorDetail[] = []
  constraints.forEach((constraint, index) => {
    const legal = legalByField.get(constraint.contextName)
    if (!legal) return
    const allowed = new Set(legal)
    const at = `${basePath}/${index}`
    if (LIST_OPERATORS.has(constraint.operator)) {
      ;(constraint.values ?? []).forEach((value, i) => {
        if (!allowed.has(value)) details.push(illegal(`${at}/values/${i}`, constraint.contextName, legal, value))
      })
    } else if (constraint.value !== undefined && !allowed.has(constraint.value)) {
      details.push(illegal(`${at}/value`, constraint.contextName, legal, constraint.value))
    }
  })
  return details
}

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
    const version = changes.version()
    if (remembered !== undefined && version !== undefined && remembered.version === version) return remembered.byField
    const byField = await select(db)
    // Kept for this version only if nothing was written meanwhile.
    remembered = version !== undefined && changes.version() === version ? { version, byField } : undefined
    return byField
  }

  return {
    /** The values of `constraints` their field does not allow, each at its place in the body. */
    problems: async (db: Kysely<Database>, constraints: readonly ConstraintInput[], basePath?: string): Promise<ErrorDetail[]> =>
      constraints.length === 0 ? [] : legalValueProblems(await read(db), constraints, basePath),
  }
}

export type LegalValues = ReturnType<typeof createLegalValues>
