/**
 * Constraint rules of segments and strategies (docs/contract.md §5), as pure functions: no database, no HTTP.
 * The request schema has already checked types, unknown properties, the operator
 * list and string lengths; what is left here are the rules that depend on the
 * operator, and the values limit. Every violation is reported, not just the first.
 */
import { ALL_CLEAN, type BodyRules, type Clean } from '../../http/body-rules.ts'
import type { ErrorDetail } from '../../http/errors.ts'
import { quote } from '../../http/errors.ts'
import { Address4, Address6 } from 'ip-address'
import { OPERATORS } from '../evaluation/constraint-evaluation.ts'
import { regexProblem } from '../evaluation/regex.ts'

export { OPERATORS }
export type Operator = (typeof OPERATORS)[number]

/** A constraint as sent and as echoed: optional keys are present only when they were sent. */
export interface ConstraintInput {
  contextName: string
  operator: Operator
  caseInsensitive?: boolean
  inverted?: boolean
  values?: string[]
  value?: string
}

/** A constraint as stored and returned: `values` is always there. */
export interface Constraint extends ConstraintInput {
  values: string[]
}

/** The operators that take a list of values (`values`); the others take one (`value`). */
export const MULTI_VALUE_OPERATORS: ReadonlySet<string> = new Set([
  'IN',
  'NOT_IN',
  'STR_ENDS_WITH',
  'STR_STARTS_WITH',
  'STR_CONTAINS',
  'IN_CIDR',
])

/** An IPv4 or IPv6 address, or a CIDR range, as the SDKs read them (`ip-address`). */
const isAddressOrRange = (value: string): boolean => Address4.isValid(value.trim()) || Address6.isValid(value.trim())

/** Optional sign, digits with an optional fraction (`5.`, `.5`), optional exponent. Nothing else (no hex, no spaces). */
const NUMBER = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/

export function isFiniteNumberText(value: string): boolean {
  // `1e999` fits the grammar but is not a finite number.
  return NUMBER.test(value) && Number.isFinite(Number(value))
}

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/
// Hours and minutes required, seconds and fraction optional; offset `Z` or `±HH:MM`, or none (local time).
const DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.[0-9]+)?)?(Z|[+-]([0-9]{2}):([0-9]{2}))?$/

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
  return day <= days
}

/** An ISO-8601 calendar date (`2024-02-29`) or date-time (`2024-02-29T13:45`, `…:30.5Z`, `…+02:00`) that exists. */
export function isIsoDateText(value: string): boolean {
  const date = DATE.exec(value)
  if (date) return isCalendarDate(Number(date[1]), Number(date[2]), Number(date[3]))
  const m = DATE_TIME.exec(value)
  if (!m) return false
  if (!isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || (m[6] !== undefined && Number(m[6]) > 59)) return false
  return m[8] === undefined || (Number(m[8]) <= 23 && Number(m[9]) <= 59)
}

// semver.org's grammar: no leading zeros in numbers, no `v` prefix, all three parts.
const NUMERIC = '0|[1-9][0-9]*'
const PRE_ID = `(?:${NUMERIC}|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)`
const SEMVER = new RegExp(
  `^(${NUMERIC})\\.(${NUMERIC})\\.(${NUMERIC})(?:-${PRE_ID}(?:\\.${PRE_ID})*)?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$`,
)

/** `MAJOR.MINOR.PATCH[-pre][+build]`; the three numbers must also be safe integers, as SDKs parse them as numbers. */
export function isStrictSemver(value: string): boolean {
  const m = SEMVER.exec(value)
  return m !== null && [m[1], m[2], m[3]].every((part) => Number.isSafeInteger(Number(part)))
}

const FORMATS: Record<string, { test: (value: string) => boolean; expected: string }> = {
  NUM: {
    test: isFiniteNumberText,
    expected: 'a finite number (optional sign, digits with an optional fraction, optional exponent, e.g. -1.5 or 1e3)',
  },
  DATE: { test: isIsoDateText, expected: 'an ISO-8601 date or date-time that exists (e.g. 2024-05-31 or 2024-05-31T12:00:00Z)' },
  SEMVER: {
    test: isStrictSemver,
    expected: 'a strict semantic version MAJOR.MINOR.PATCH[-prerelease][+build] (e.g. 1.2.3 or 2.0.0-beta.1)',
  },
}

/** The rules of one constraint; `path` is its JSON pointer, e.g. `/body/constraints/2`. */
export function checkConstraint(constraint: ConstraintInput, path: string): ErrorDetail[] {
  const details: ErrorDetail[] = []
  const { operator, value, values } = constraint

  if (!(OPERATORS as readonly string[]).includes(operator)) {
    const message = `The \`${path}/operator\` property must be one of ${OPERATORS.map((o) => `"${o}"`).join(', ')}. You sent ${quote(operator)}.`
    return [{ path: `${path}/operator`, message }]
  }

  if (MULTI_VALUE_OPERATORS.has(operator)) {
    if (values === undefined) {
      const at = `${path}/values`
      details.push({
        path: at,
        message: `The \`${at}\` property is required for the ${operator} operator: it needs at least one value. It was not present on the data you sent.`,
      })
    } else if (values.length === 0) {
      const at = `${path}/values`
      details.push({ path: at, message: `The \`${at}\` property must hold at least one value for the ${operator} operator. You sent [].` })
    } else if (operator === 'IN_CIDR') {
      for (const [index, value] of values.entries()) {
        if (isAddressOrRange(value)) continue
        const at = `${path}/values/${index}`
        details.push({
          path: at,
          message: `The \`${at}\` property must be an IPv4 or IPv6 address or a CIDR range (e.g. 10.0.0.0/8) for the IN_CIDR operator. You sent ${quote(value)}.`,
        })
      }
    }
    return details
  }

  const at = `${path}/value`
  if (value === undefined) {
    details.push({
      path: at,
      message: `The \`${at}\` property is required for the ${operator} operator. It was not present on the data you sent.`,
    })
  } else if (operator === 'REGEX') {
    // Checked by re2js, which the SDKs evaluate REGEX with: lookarounds, backreferences and too large a program are refused.
    const reason = regexProblem(value, constraint.caseInsensitive === true)
    if (reason !== undefined) {
      details.push({
        path: at,
        message: `The \`${at}\` property must be a regular expression that compiles (${reason}). You sent ${quote(value)}.`,
      })
    }
  } else {
    const format = FORMATS[operator.slice(0, operator.indexOf('_'))]
    if (format && !format.test(value)) {
      details.push({
        path: at,
        message: `The \`${at}\` property must be ${format.expected} for the ${operator} operator. You sent ${quote(value)}.`,
      })
    }
  }

  if (operator === 'REGEX' && constraint.inverted === true) {
    const inverted = `${path}/inverted`
    details.push({
      path: inverted,
      message: `The \`${inverted}\` property must not be true: a REGEX constraint cannot be inverted. You sent true.`,
    })
  }
  return details
}

interface ConstraintsOptions {
  valuesLimit: number
  /** The pointer of the list in the request. */
  path?: string
  holder?: 'segment' | 'strategy'
}

/**
 * Every rule of a segment's (or strategy's) constraints, and the limit on values summed over them.
 *
 * @example checkConstraints([{ contextName: 'appVersion', operator: 'SEMVER_GT', value: '1.2' }], { valuesLimit: 1000 })
 * // → [{ path: '/body/constraints/0/value', message: 'The `/body/constraints/0/value` property must be a strict semantic version …' }]
 */
export function checkConstraints(constraints: readonly ConstraintInput[], options: ConstraintsOptions): ErrorDetail[] {
  return constraintsProblems(constraints, ALL_CLEAN, '', options)
}

/**
 * The body rule of a `constraints` field (body-rules.ts): each constraint the schema found no fault
 * in is checked, and the values limit once the whole list is well-formed.
 */
export function constraintsRule(options: ConstraintsOptions): BodyRules {
  return (body, clean) => {
    const constraints = typeof body === 'object' && body !== null ? (body as { constraints?: unknown }).constraints : undefined
    return Array.isArray(constraints) ? constraintsProblems(constraints, clean, '/constraints', options) : []
  }
}

function constraintsProblems(
  constraints: readonly ConstraintInput[],
  clean: Clean,
  pointer: string,
  options: ConstraintsOptions,
): ErrorDetail[] {
  const { valuesLimit, path = '/body/constraints', holder = 'segment' } = options
  const details = constraints.flatMap((constraint, index) =>
    clean(`${pointer}/${index}`) ? checkConstraint(constraint, `${path}/${index}`) : [],
  )
  if (!clean(pointer)) return details
  const total = constraints.reduce((sum, constraint) => sum + (constraint.values?.length ?? 0), 0)
  if (total > valuesLimit) {
    details.push({
      path,
      message: `The \`${path}\` property holds ${total} values in all; a ${holder} may hold at most ${valuesLimit}. You sent ${total} values across ${constraints.length} constraint${constraints.length === 1 ? '' : 's'}.`,
    })
  }
  return details
}

/** The stored and echoed form: keys in one order, `values` defaulting to `[]`, the optional ones only when sent. */
export function normalizeConstraint(constraint: ConstraintInput): Constraint {
  return {
    contextName: constraint.contextName,
    operator: constraint.operator,
    ...(constraint.caseInsensitive === undefined ? {} : { caseInsensitive: constraint.caseInsensitive }),
    ...(constraint.inverted === undefined ? {} : { inverted: constraint.inverted }),
    values: constraint.values ?? [],
    ...(constraint.value === undefined ? {} : { value: constraint.value }),
  }
}
