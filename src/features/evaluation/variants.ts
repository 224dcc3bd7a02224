/**
 * Variant selection as the Node SDK does it (`selectVariantDefinition`), for strategy variants
 * and feature (environment) variants alike. Weights arrive resolved by the server: `weightType`
 * is not read by clients. Results are shared, frozen objects built once per variant.
 */
import { contextValue } from './context.ts'
import { bucketsOf, VARIANT_SEED } from './murmurhash.ts'
import type { EvaluationContext, VariantDefinition, VariantResult } from './types.ts'

export type VariantSelector = (context: EvaluationContext) => VariantResult | undefined

/** What getVariant returns for a missing or disabled feature. */
export const DISABLED_VARIANT: VariantResult = Object.freeze({
  name: 'disabled',
  enabled: false,
  feature_enabled: false,
  featureEnabled: false,
})
/** What getVariant returns for an enabled feature that has no variant to give. */
export const NO_VARIANT: VariantResult = Object.freeze({ name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true })

/** The result for a selected variant (of an enabled feature); `payload` only when defined. */
export function variantResult(variant: VariantDefinition): VariantResult {
  const { name, payload } = variant
  return Object.freeze(
    payload === undefined
      ? { name, enabled: true, feature_enabled: true, featureEnabled: true }
      : { name, enabled: true, payload, feature_enabled: true, featureEnabled: true },
  )
}

/**
 * How a variant was chosen for one context. `variant` is the choice (undefined when the weights
 * sum to 0 or less). An override that matched names its field and the value; otherwise
 * `stickiness` is the field whose value was hashed (`default` resolved to the field used) or
 * `random`, `value` that value (a random one for `random`), and `bucket` its place in
 * 1..`totalWeight`: the first variant whose cumulative weight reaches it is chosen.
 */
export interface VariantExplanation {
  variant: VariantResult | undefined
  totalWeight: number
  override?: { contextName: string; value: string }
  stickiness?: string
  value?: string
  bucket?: number
}

export interface CompiledVariants {
  select: VariantSelector
  /** The same choice with what made it, from the same pieces (a random seed is drawn once). */
  explain: (context: EvaluationContext) => VariantExplanation
}

/** compileVariants' selector alone. */
export function compileVariantSelector(
  variants: readonly VariantDefinition[],
  groupId: string | undefined,
  stickiness: string | undefined,
  random: () => number,
): VariantSelector {
  return compileVariants(variants, groupId, stickiness, random).select
}

/**
 * Compiles the choice among `variants`: undefined when the weights sum to 0 or less; else the
 * first variant with an override matching the context; else the variant whose cumulative weight
 * first reaches the bucket of the stickiness id (`normalizedVariantValue(id, groupId, total)`, the
 * groupId's part hashed once).
 * `stickiness` undefined or `default` means userId, sessionId, remoteAddress, else random;
 * another name is that context field, random when it is missing or empty.
 */
export function compileVariants(
  variants: readonly VariantDefinition[],
  groupId: string | undefined,
  stickiness: string | undefined,
  random: () => number,
): CompiledVariants {
  const totalWeight = variants.reduce((sum, variant) => sum + variant.weight, 0)
  if (totalWeight <= 0) return { select: () => undefined, explain: () => ({ variant: undefined, totalWeight }) }
  const results = variants.map(variantResult)
  const overrides = variants.flatMap((variant, index) =>
    (variant.overrides ?? []).map((override) => ({ index, field: override.contextName, values: new Set(override.values ?? []) })),
  )
  const sticky = stickiness ?? 'default'
  const seed = stickinessSeed(sticky, random)
  const buckets = bucketsOf(groupId, totalWeight, VARIANT_SEED)
  /** The first override matching the context. */
  const overridden = (context: EvaluationContext) => {
    for (const override of overrides) {
      const value = contextValue(context, override.field)
      if (value !== undefined && override.values.has(value)) return override
    }
    return undefined
  }
  /** The index of the variant whose cumulative weight first reaches `target`, or -1. */
  const weighed = (target: number): number => {
    let counter = 0
    for (let i = 0; i < variants.length; i++) {
      const weight = variants[i].weight
      if (weight === 0) continue
      counter += weight
      // Written as the SDK's `counter < target` test, so a NaN weight behaves the same.
      if (!(counter < target)) return i
    }
    return -1
  }
  return {
    select: (context) => {
      const override = overridden(context)
      if (override !== undefined) return results[override.index]
      const chosen = weighed(buckets(seed(context)))
      return chosen >= 0 ? results[chosen] : undefined
    },
    explain: (context) => {
      const override = overridden(context)
      if (override !== undefined) {
        return {
          variant: results[override.index],
          totalWeight,
          override: { contextName: override.field, value: contextValue(context, override.field)! },
        }
      }
      const value = seed(context)
      const bucket = buckets(value)
      const chosen = weighed(bucket)
      return {
        variant: chosen >= 0 ? results[chosen] : undefined,
        totalWeight,
        stickiness: seedField(sticky, context, value),
        value,
        bucket,
      }
    },
  }
}

const DEFAULT_STICKINESS_FIELDS = ['userId', 'sessionId', 'remoteAddress'] as const

function stickinessSeed(stickiness: string, random: () => number): (context: EvaluationContext) => string {
  const randomSeed = () => String(Math.round(random() * 100000))
  if (stickiness !== 'default') return (context) => contextValue(context, stickiness) || randomSeed()
  return (context) => {
    for (const field of DEFAULT_STICKINESS_FIELDS) {
      const value = context[field]
      if (typeof value === 'string' && value !== '') return value
    }
    return randomSeed()
  }
}

/** The field stickinessSeed read `value` from, or `random` when it drew one. */
function seedField(stickiness: string, context: EvaluationContext, value: string): string {
  if (stickiness !== 'default') return contextValue(context, stickiness) === value ? stickiness : 'random'
  for (const field of DEFAULT_STICKINESS_FIELDS) {
    const own = context[field]
    if (typeof own === 'string' && own !== '') return own === value ? field : 'random'
  }
  return 'random'
}
