/**
 * Rules of a strategy's name and parameters, as pure functions. Parameters are stored as
 * strings, as SDKs read them: a number sent (`"rollout": 50`) is stored as its text (`"50"`),
 * as the reference does.
 */
import { allOf, field, type BodyRules } from '../../http/body-rules.ts'
import { quote, type ErrorDetail } from '../../http/errors.ts'
import { constraintsRule } from '../constraints/constraints.ts'
import { checkVariants } from './variant-rules.ts'

export type ParameterInput = Record<string, string | number>

const ROLLOUT = /^(0|[1-9][0-9]?|100)$/

// Custom strategies may be many: a message names this many, and says how many more there are.
const LISTED_NAMES = 10

/** `known`: every strategy definition's name (GET /api/admin/strategies), deprecated ones too. */
export function checkStrategyName(name: string, known: ReadonlySet<string>, path: string): ErrorDetail[] {
  if (known.has(name)) return []
  const sorted = [...known].sort()
  const listed = sorted
    .slice(0, LISTED_NAMES)
    .map((n) => quote(n))
    .join(', ')
  const more = sorted.length > LISTED_NAMES ? ` and ${sorted.length - LISTED_NAMES} more: GET /api/admin/strategies lists them` : ''
  return [
    { path, message: `The \`${path}\` property must name a strategy this instance knows (${listed}${more}). You sent ${quote(name)}.` },
  ]
}

/** The rules of the built-in strategies' parameters; other parameters are free. */
export function checkStrategyParameters(name: string, parameters: ParameterInput, path: string): ErrorDetail[] {
  const details: ErrorDetail[] = []
  if (name === 'flexibleRollout') {
    const rollout = parameters.rollout
    if (rollout !== undefined && !ROLLOUT.test(String(rollout))) {
      details.push({
        path: `${path}/rollout`,
        message: `The \`${path}/rollout\` property must be a whole percentage from 0 to 100. You sent ${quote(rollout)}.`,
      })
    }
    if (parameters.stickiness === '') {
      details.push({
        path: `${path}/stickiness`,
        message: `The \`${path}/stickiness\` property must not be empty: use "default", "userId", "sessionId", "random" or a context field.`,
      })
    }
  }
  return details
}

/**
 * The stored parameters: every value as text; a flexible rollout gets its defaults (100%, default
 * stickiness, grouped by flag — an empty groupId too, as the reference stores it).
 */
export function normalizeParameters(name: string, parameters: ParameterInput | undefined, featureName: string): Record<string, string> {
  const stored: Record<string, string> = {}
  for (const [key, value] of Object.entries(parameters ?? {})) stored[key] = String(value)
  if (name === 'flexibleRollout') {
    const withDefaults = { rollout: '100', stickiness: 'default', groupId: featureName, ...stored }
    if (withDefaults.groupId === '') withDefaults.groupId = featureName
    return withDefaults
  }
  return stored
}

/**
 * The rules of a strategy body beyond its schema (body-rules.ts): a known name, the built-in
 * strategies' parameters, the constraints (the segments' rules) and the variants.
 */
export function strategyBodyRules(known: ReadonlySet<string>, valuesLimit: number): BodyRules {
  return allOf(
    field('name', (name: string, path) => checkStrategyName(name, known, path)),
    (body, clean) => {
      const { name, parameters } = (typeof body === 'object' && body !== null ? body : {}) as {
        name?: unknown
        parameters?: ParameterInput
      }
      return parameters !== undefined && clean('/parameters')
        ? checkStrategyParameters(typeof name === 'string' ? name : '', parameters, '/body/parameters')
        : []
    },
    constraintsRule({ valuesLimit, holder: 'strategy' }),
    field('variants', checkVariants),
  )
}
