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
export const DISABLED_VARIANT: VariantResult = Object.freeze({ name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false })
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
 * Compiles the choice among `variants`: undefined when the weights sum to 0 or less; else the
 * first variant with an override matching the context; else the variant whose cumulative weight
 * first reaches the bucket of the stickiness id (`normalizedVariantValue(id, groupId, total)`, the
 * groupId's part hashed once).
 * `stickiness` undefined or `default` means userId, sessionId, remoteAddress, else random;
 * another name is that context field, random when it is missing or empty.
 */
export function compileVariantSelector(
  variants: readonly VariantDefinition[],
  groupId: string | undefined,
  stickiness: string | undefined,
  random: () => number,
): VariantSelector {
  const totalWeight = variants.reduce((sum, variant) => sum + variant.weight, 0)
  if (totalWeight <= 0) return () => undefined
  const results = variants.map(variantResult)
  const overrides = variants.flatMap((variant, index) =>
    (variant.overrides ?? []).map((override) => ({ index, field: override.contextName, values: new Set(override.values ?? []) })),
  )
  const seed = stickinessSeed(stickiness ?? 'default', random)
  const buckets = bucketsOf(groupId, totalWeight, VARIANT_SEED)
  return (context) => {
    for (const override of overrides) {
      const value = contextValue(context, override.field)
      if (value !== undefined && override.values.has(value)) return results[override.index]
    }
    const target = buckets(seed(context))
    let counter = 0
    for (let i = 0; i < variants.length; i++) {
      const weight = variants[i].weight
      if (weight === 0) continue
      counter += weight
      // Written as the SDK's `counter < target` test, so a NaN weight behaves the same.
      if (!(counter < target)) return results[i]
    }
    return undefined
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
