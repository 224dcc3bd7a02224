/**
 * The `offset` and `limit` query parameters of the admin API's paged lists, parsed the same way
 * everywhere: whole numbers (at most 9 digits), else a 400 naming the parameter.
 */
import { invalid, quote } from './errors.ts'

export interface Page {
  offset: number
  limit: number
}

export interface PagingRules {
  /** The page size when `limit` is not sent. */
  defaultLimit: number
  /** The largest page. */
  maxLimit: number
  /** A larger `limit`: taken as `maxLimit` (the reference's way for applications), or refused. */
  overMax: 'clamp' | 'refuse'
}

/**
 * `offset` (default 0) and `limit` (at least 1) from a query; `offset` is checked first.
 *
 * @example parsePaging({ offset: '20' }, { defaultLimit: 50, maxLimit: 100, overMax: 'clamp' }) // { offset: 20, limit: 50 }
 */
export function parsePaging(query: { offset?: string | undefined; limit?: string | undefined }, rules: PagingRules): Page {
  const offset = wholeNumberParameter(query.offset, 'offset', 0, 0)
  const limit =
    rules.overMax === 'refuse'
      ? wholeNumberParameter(query.limit, 'limit', rules.defaultLimit, 1, rules.maxLimit)
      : Math.min(wholeNumberParameter(query.limit, 'limit', rules.defaultLimit, 1), rules.maxLimit)
  return { offset, limit }
}

/** A whole-number query parameter from `min` (to `max`, when given); `fallback` when not sent. */
export function wholeNumberParameter(value: string | undefined, name: string, fallback: number, min: number, max?: number): number {
  if (value === undefined) return fallback
  if (/^[0-9]{1,9}$/.test(value) && Number(value) >= min && (max === undefined || Number(value) <= max)) return Number(value)
  const path = `/query/${name}`
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`
  throw invalid(`The \`${path}\` parameter must be a whole number ${range}. You sent ${quote(value)}.`, path)
}
