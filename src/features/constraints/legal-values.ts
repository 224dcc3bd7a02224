/**
 * A constraint on a context field that has legal values may use only those (as the reference
 * checks strategies and segments): the values of a list operator, the value of the others.
 * A field without legal values, or a name no field has, takes anything. Pure: the fields'
 * values are read by context-fields/legal-values.ts.
 */
import { quote, type ErrorDetail } from '../../http/errors.ts'
import { MULTI_VALUE_OPERATORS, type ConstraintInput } from './constraints.ts'

// A refusal shows this many of the field's legal values.
const SHOWN = 5

function illegal(path: string, field: string, legal: readonly string[], sent: string): ErrorDetail {
  const shown = legal
    .slice(0, SHOWN)
    .map((value) => quote(value))
    .join(', ')
  const more = legal.length > SHOWN ? ` and ${legal.length - SHOWN} more` : ''
  return {
    path,
    message: `The \`${path}\` property must be a legal value of context field ${quote(field)} (${shown}${more}). You sent ${quote(sent)}.`,
  }
}

/** The fields that have legal values, and their values in order. */
export type LegalByField = ReadonlyMap<string, readonly string[]>

/** The values of `constraints` (at `basePath` in the body, or each where `basePath` of its index says) that their field does not allow. */
export function legalValueProblems(
  legalByField: LegalByField,
  constraints: readonly ConstraintInput[],
  basePath: string | ((index: number) => string) = '/body/constraints',
): ErrorDetail[] {
  const details: ErrorDetail[] = []
  constraints.forEach((constraint, index) => {
    const legal = legalByField.get(constraint.contextName)
    if (!legal) return
    const allowed = new Set(legal)
    const at = typeof basePath === 'function' ? basePath(index) : `${basePath}/${index}`
    if (MULTI_VALUE_OPERATORS.has(constraint.operator)) {
      ;(constraint.values ?? []).forEach((value, i) => {
        if (!allowed.has(value)) details.push(illegal(`${at}/values/${i}`, constraint.contextName, legal, value))
      })
    } else if (constraint.value !== undefined && !allowed.has(constraint.value)) {
      details.push(illegal(`${at}/value`, constraint.contextName, legal, constraint.value))
    }
  })
  return details
}
