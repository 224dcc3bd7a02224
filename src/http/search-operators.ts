/**
 * The search APIs' filter parameters, `OPERATOR:value[,value…]` (the reference's syntax, e.g.
 * `project=IS_ANY_OF:default,web`), parsed the same way everywhere. The reference drops a value
 * it cannot parse and searches without that filter; Pennon answers 400 naming the parameter, so a
 * typo never widens a search silently. Lists and values are bounded: any admin caller may send them.
 */
import { invalid, quote } from './errors.ts'

/** Values in one parameter, and characters in one value. */
export const MAX_FILTER_VALUES = 100
export const MAX_FILTER_VALUE_LENGTH = 1000

export interface OperatorFilter<Operator extends string> {
  operator: Operator
  values: string[]
}

/**
 * `value` as `OPERATOR:a,b,…` with one of `operators`; undefined when the parameter is absent.
 * Values are trimmed; an empty one, too many, or too long a value is refused.
 *
 * @example parseOperatorFilter('IS_ANY_OF:a, b', 'project', ['IS', 'IS_ANY_OF']) // { operator: 'IS_ANY_OF', values: ['a', 'b'] }
 */
export function parseOperatorFilter<const Operator extends string>(
  value: string | undefined,
  name: string,
  operators: readonly Operator[],
): OperatorFilter<Operator> | undefined {
  if (value === undefined) return undefined
  const path = `/query/${name}`
  const colon = value.indexOf(':')
  const operator = value.slice(0, colon) as Operator
  if (colon < 0 || !operators.includes(operator)) {
    throw invalid(
      `The \`${path}\` parameter must be OPERATOR:value[,value…] with OPERATOR one of ${operators.join(', ')}. You sent ${quote(value)}.`,
      path,
    )
  }
  const values = value
    .slice(colon + 1)
    .split(',')
    .map((item) => item.trim())
  if (values.length > MAX_FILTER_VALUES) throw invalid(`The \`${path}\` parameter may list at most ${MAX_FILTER_VALUES} values.`, path)
  if (values.some((item) => item === '')) throw invalid(`The \`${path}\` parameter has an empty value. You sent ${quote(value)}.`, path)
  if (values.some((item) => item.length > MAX_FILTER_VALUE_LENGTH)) {
    throw invalid(`Each value of the \`${path}\` parameter may be at most ${MAX_FILTER_VALUE_LENGTH} characters long.`, path)
  }
  if (operator.startsWith('IS') && !operator.endsWith('_OF') && values.length > 1) {
    // IS, IS_NOT, IS_BEFORE, IS_ON_OR_AFTER take one value; the `…_OF` forms a list.
    throw invalid(`The \`${path}\` parameter's ${operator} takes one value; use the …_OF form for a list. You sent ${quote(value)}.`, path)
  }
  return { operator, values }
}

/** A filter whose values are whole numbers (ids): each checked, up to 2147483647. */
export function parseIntegerFilter<const Operator extends string>(
  value: string | undefined,
  name: string,
  operators: readonly Operator[],
): (OperatorFilter<Operator> & { numbers: number[] }) | undefined {
  const filter = parseOperatorFilter(value, name, operators)
  if (filter === undefined) return undefined
  const numbers = filter.values.map((item) => {
    if (/^-?[0-9]{1,10}$/.test(item) && Math.abs(Number(item)) <= 2_147_483_647) return Number(item)
    const path = `/query/${name}`
    throw invalid(`The \`${path}\` parameter's values must be whole numbers. You sent ${quote(item)}.`, path)
  })
  return { ...filter, numbers }
}

/** A filter on a calendar day, `OPERATOR:yyyy-MM-dd`: the UTC midnight that begins the day, as an ISO timestamp. */
export function parseDateFilter<const Operator extends string>(
  value: string | undefined,
  name: string,
  operators: readonly Operator[],
): { operator: Operator; dayStart: Date } | undefined {
  const filter = parseOperatorFilter(value, name, operators)
  if (filter === undefined) return undefined
  const day = filter.values[0]!
  const dayStart = new Date(`${day}T00:00:00.000Z`)
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(day) || Number.isNaN(dayStart.getTime()) || dayStart.toISOString().slice(0, 10) !== day) {
    const path = `/query/${name}`
    throw invalid(
      `The \`${path}\` parameter must be ${operators.join(' or ')} followed by a date, yyyy-MM-dd. You sent ${quote(value)}.`,
      path,
    )
  }
  return { operator: filter.operator, dayStart }
}
