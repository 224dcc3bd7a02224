/**
 * Strategy and segment constraints, evaluated as the Node SDK evaluates them (its
 * `strategy.js` operators), with the packages it uses: `semver` for versions, `re2js` for
 * REGEX, `ip-address` for IN_CIDR (IPv4 read as it reads it, compared as numbers: ipv4.ts). Each constraint is compiled once into a predicate over the
 * context: values cleaned, numbers, dates, versions, regexes and IP ranges parsed ahead of time.
 *
 * SDK rules kept on purpose: list values are trimmed and empty ones dropped, IN and NOT_IN
 * ignore `caseInsensitive`, DATE_* ignore `contextName` and read `currentTime`, `inverted`
 * negates the operator's answer (so a missing value with `inverted` passes), and an unknown
 * operator is false whatever `inverted` says.
 */
import { Address6 } from 'ip-address'
import { contextIpv4, inIpv4Range, parseIpv4, type Ipv4 } from './ipv4.ts'
import { compare as compareVersions, parse as parseVersion, type SemVer } from 'semver'
import { contextValue } from './context.ts'
import { compileRegex } from './regex.ts'
import type { ConstraintDefinition, EvaluationContext } from './types.ts'

export type ContextPredicate = (context: EvaluationContext) => boolean

/**
 * The constraint operators: those of unleash-client 6.x, which Pennon evaluates, and exactly those
 * its admin API takes (constraints/constraints.ts), in the order the reference's admin API lists
 * them (its error messages and OpenAPI enum). IN_CIDR is not in the reference's admin API (8.2):
 * Pennon takes it because the SDKs evaluate it.
 */
export const OPERATORS = [
  'NOT_IN',
  'IN',
  'STR_ENDS_WITH',
  'STR_STARTS_WITH',
  'STR_CONTAINS',
  'NUM_EQ',
  'NUM_GT',
  'NUM_GTE',
  'NUM_LT',
  'NUM_LTE',
  'DATE_AFTER',
  'DATE_BEFORE',
  'SEMVER_EQ',
  'SEMVER_GT',
  'SEMVER_LT',
  'SEMVER_GTE',
  'SEMVER_LTE',
  'REGEX',
  'IN_CIDR',
] as const

export const SUPPORTED_OPERATORS: ReadonlySet<string> = new Set(OPERATORS)

const never: ContextPredicate = () => false

/**
 * The REGEX work a context may cost, per context field: the program sizes of the REGEX
 * constraints compiled on that field, summed (regex.ts, MAX_REGEX_WORK).
 */
export type RegexWeights = Map<string, number>

/**
 * The values of many IN and NOT_IN constraints in one map per field: within a pass (one call of
 * an evaluator, one context) the context's value of a field is looked up once, marking the
 * constraints that list it, and each constraint then reads its mark — instead of each resolving
 * the field and looking it up in a set of its own (1,000 flags with a `userId IN` of their own:
 * 1,000 lookups per evaluation). `currentPass` must change whenever the context may have.
 */
export function createValueIndex(currentPass: () => number) {
  const fields = new Map<string, { slotsOf: Map<string, number[]>; markedPass: number }>()
  let marks = new Float64Array(64).fill(-1)
  let slots = 0
  return {
    /** A predicate: the context's `field` resolves to one of `values`. */
    add(field: string, values: Iterable<string>): ContextPredicate {
      let entry = fields.get(field)
      if (entry === undefined) fields.set(field, (entry = { slotsOf: new Map(), markedPass: -1 }))
      const { slotsOf } = entry
      const slot = slots++
      if (slot === marks.length) {
        const grown = new Float64Array(slot * 2).fill(-1)
        grown.set(marks)
        marks = grown
      }
      for (const value of new Set(values)) {
        const listed = slotsOf.get(value)
        if (listed === undefined) slotsOf.set(value, [slot])
        else listed.push(slot)
      }
      const marked = entry
      return (context) => {
        const pass = currentPass()
        if (marked.markedPass !== pass) {
          marked.markedPass = pass
          const value = contextValue(context, field)
          const listed = value === undefined ? undefined : slotsOf.get(value)
          if (listed !== undefined) for (let i = 0; i < listed.length; i++) marks[listed[i]!] = pass
        }
        return marks[slot] === pass
      }
    },
  }
}

export type ValueIndex = ReturnType<typeof createValueIndex>

/**
 * Compiles one constraint; a missing (null) constraint is false, as in the SDK. A REGEX
 * constraint adds its program size to `regexWeights` under its field. With `values` (an
 * evaluator's), IN and NOT_IN look the context's value up there.
 */
export function compileConstraint(
  constraint: ConstraintDefinition | null | undefined,
  regexWeights?: RegexWeights,
  values?: ValueIndex,
): ContextPredicate {
  if (constraint == null || !SUPPORTED_OPERATORS.has(constraint.operator)) return never
  const check = constraint.operator === 'REGEX' ? compileRegexOperator(constraint, regexWeights) : compileOperator(constraint, values)
  return constraint.inverted ? (context) => !check(context) : check
}

/** All constraints must hold; an empty list holds. */
export function allOf(predicates: readonly ContextPredicate[]): ContextPredicate {
  if (predicates.length === 0) return () => true
  if (predicates.length === 1) return predicates[0]
  return (context) => {
    for (const predicate of predicates) if (!predicate(context)) return false
    return true
  }
}

function compileOperator(constraint: ConstraintDefinition, index: ValueIndex | undefined): ContextPredicate {
  const field = constraint.contextName
  const operator = constraint.operator
  switch (operator) {
    case 'IN':
    case 'NOT_IN': {
      if (index !== undefined) {
        const listed = index.add(field, cleanValues(constraint))
        return operator === 'IN' ? listed : (context) => !listed(context)
      }
      const values = new Set(cleanValues(constraint))
      const wanted = operator === 'IN'
      return (context) => {
        const value = contextValue(context, field)
        return (value !== undefined && values.has(value)) === wanted
      }
    }
    case 'STR_STARTS_WITH':
    case 'STR_ENDS_WITH':
    case 'STR_CONTAINS':
      return compileStringOperator(constraint)
    case 'NUM_EQ':
    case 'NUM_GT':
    case 'NUM_GTE':
    case 'NUM_LT':
    case 'NUM_LTE': {
      const target = Number(constraint.value)
      if (Number.isNaN(target)) return never
      const compare = comparison(operator.slice(4))
      return (context) => {
        const value = Number(contextValue(context, field))
        return !Number.isNaN(value) && compare(value, target)
      }
    }
    case 'DATE_AFTER':
    case 'DATE_BEFORE': {
      const { value } = constraint
      const target = value === undefined ? Number.NaN : value === null ? 0 : new Date(value).getTime()
      const after = operator === 'DATE_AFTER'
      return (context) => {
        const now = context.currentTime ? new Date(context.currentTime).getTime() : Date.now()
        return after ? now > target : now < target
      }
    }
    case 'SEMVER_EQ':
    case 'SEMVER_GT':
    case 'SEMVER_GTE':
    case 'SEMVER_LT':
    case 'SEMVER_LTE': {
      const target = typeof constraint.value === 'string' ? parseVersion(constraint.value) : null
      if (target === null) return never
      const compare = comparison(operator.slice(7))
      return (context) => {
        const version = contextVersion(contextValue(context, field))
        return version !== null && compare(compareVersions(version, target), 0)
      }
    }
    case 'IN_CIDR':
      return compileCidrOperator(constraint)
    default:
      return never
  }
}

// Many SEMVER constraints read one field of one context (`appVersion >= 2.1.0` on each of many
// flags): the last text parsed is kept, so a context's version is parsed once, not once each.
let lastVersionText: string | undefined
let lastVersion: SemVer | null = null

/** The context's version as the SDK reads it: `semver`'s parse, refusing a leading `v` (not refused in the constraint's). */
function contextVersion(text: string | undefined): SemVer | null {
  if (!text) return null
  if (text !== lastVersionText) {
    lastVersionText = text
    lastVersion = text.startsWith('v') ? null : parseVersion(text)
  }
  return lastVersion
}

function cleanValues(constraint: ConstraintDefinition): string[] {
  return (constraint.values ?? []).filter((value): value is string => !!value).map((value) => value.trim())
}

function comparison(name: string): (a: number, b: number) => boolean {
  switch (name) {
    case 'EQ':
      return (a, b) => a === b
    case 'GT':
      return (a, b) => a > b
    case 'GTE':
      return (a, b) => a >= b
    case 'LT':
      return (a, b) => a < b
    default:
      return (a, b) => a <= b
  }
}

function compileStringOperator(constraint: ConstraintDefinition): ContextPredicate {
  const field = constraint.contextName
  const caseInsensitive = Boolean(constraint.caseInsensitive)
  const values = cleanValues(constraint).map((value) => (caseInsensitive ? value.toLocaleLowerCase() : value))
  const matches =
    constraint.operator === 'STR_STARTS_WITH'
      ? (text: string, value: string) => text.startsWith(value)
      : constraint.operator === 'STR_ENDS_WITH'
        ? (text: string, value: string) => text.endsWith(value)
        : (text: string, value: string) => text.includes(value)
  return (context) => {
    const value = contextValue(context, field)
    if (value === undefined) return false
    const text = caseInsensitive ? value.toLocaleLowerCase() : value
    for (const candidate of values) if (matches(text, candidate)) return true
    return false
  }
}

function compileRegexOperator(constraint: ConstraintDefinition, regexWeights: RegexWeights | undefined): ContextPredicate {
  const field = constraint.contextName
  const regex = typeof constraint.value === 'string' ? compileRegex(constraint.value, Boolean(constraint.caseInsensitive)) : undefined
  if (regex === undefined) return never
  regexWeights?.set(field, (regexWeights.get(field) ?? 0) + regex.programSize())
  return (context) => {
    const value = contextValue(context, field)
    return value !== undefined && regex.test(value)
  }
}

/** An IPv6 range as `ip-address` reads it, with its correct form (an exact address matches by that). */
interface Ipv6Range {
  range: Address6
  correctForm: string
}

// As the SDK: an IPv4 context value is matched against the IPv4 entries only, an IPv6 one
// against the IPv6 entries; entries that parse as neither are skipped. IPv4 as numbers (ipv4.ts:
// read as `ip-address` reads them; equal correct forms are equal numbers), IPv6 through `ip-address`.
function compileCidrOperator(constraint: ConstraintDefinition): ContextPredicate {
  const field = constraint.contextName
  const values = cleanValues(constraint)
  const ipv4Ranges = values.map(parseIpv4).filter((range): range is Ipv4 => range !== undefined)
  const ipv6Ranges: Ipv6Range[] = values
    .filter((text) => Address6.isValid(text))
    .map((text) => {
      const range = new Address6(text)
      return { range, correctForm: range.correctForm() }
    })
  return (context) => {
    const value = contextValue(context, field)
    if (value === undefined) return false
    const ipv4 = contextIpv4(value)
    if (ipv4 !== undefined) {
      for (const range of ipv4Ranges) if (ipv4.value === range.value || inIpv4Range(ipv4, range)) return true
      return false
    }
    if (!Address6.isValid(value)) return false
    const address = new Address6(value)
    const correctForm = address.correctForm()
    return ipv6Ranges.some(({ range, correctForm: rangeForm }) => correctForm === rangeForm || address.isInSubnet(range))
  }
}
