/**
 * Flag evaluation over a client API payload, following the Unleash client specification and
 * the Node SDK (`client.js`). `createEvaluator` compiles the payload once (features and
 * segments indexed, constraints, regexes, ranges and variant tables prepared); evaluating a
 * flag then only reads the context.
 */
import { hostname as osHostname } from 'node:os'
import { allOf, compileConstraint, type ContextPredicate } from './constraint-evaluation.ts'
import { compileStrategy, type StrategyOptions } from './strategies.ts'
import type { ClientFeaturesPayload, EvaluationContext, FeatureDefinition, FrontendFeature, VariantResult } from './types.ts'
import { compileVariantSelector, DISABLED_VARIANT, NO_VARIANT, type VariantSelector } from './variants.ts'

export interface EvaluatorOptions {
  /** applicationHostname's host name; default as the SDK: $HOSTNAME, else os.hostname(). */
  hostname?: string
  /** Randomness for random stickiness and gradualRolloutRandom; default Math.random. */
  random?: () => number
}

export interface Evaluator {
  /** Whether the flag is enabled for the context; false for an unknown flag. */
  isEnabled(name: string, context: EvaluationContext): boolean
  /** The flag's variant for the context, shaped as the SDK's `getVariant` (shared, frozen). */
  getVariant(name: string, context: EvaluationContext): VariantResult
  /** The enabled flags with their variants, in payload order, for `GET /api/frontend`. */
  evaluateAll(context: EvaluationContext): FrontendFeature[]
}

interface CompiledStrategy {
  /** Constraints (the strategy's, then its segments') and the strategy's own rule. */
  matches: ContextPredicate
  /** Present when the strategy has variants. */
  variants?: VariantSelector
}

interface CompiledDependency {
  parent: string
  parentEnabled: boolean
  /** Present when non-empty: the parent's variant must be one of these. */
  variants?: ReadonlySet<string>
}

interface CompiledFeature {
  name: string
  enabled: boolean
  impressionData: boolean
  /** Undefined for a malformed feature (no strategies array), which is always disabled. */
  strategies: CompiledStrategy[] | undefined
  variants: VariantSelector
  dependencies: CompiledDependency[]
  hasDependencies: boolean
}

/**
 * What a feature's strategies decided: false when disabled, true when enabled without a
 * strategy variant, or the variant picked by the strategy that enabled it.
 */
type Outcome = boolean | VariantResult

/** Compiles `payload` for repeated evaluation. The payload is not modified nor kept. */
export function createEvaluator(payload: ClientFeaturesPayload, options: EvaluatorOptions = {}): Evaluator {
  const strategyOptions: StrategyOptions = {
    hostname: (options.hostname ?? (process.env.HOSTNAME || osHostname() || 'undefined')).toLowerCase(),
    random: options.random ?? Math.random,
  }
  const segments = new Map<number, ContextPredicate>()
  for (const segment of payload.segments ?? []) {
    segments.set(segment.id, allOf((segment.constraints ?? []).map(compileConstraint)))
  }
  // As the SDK's map by name: a later duplicate replaces an earlier one.
  const features = new Map<string, CompiledFeature>()
  for (const feature of payload.features) features.set(feature.name, compileFeature(feature, segments, strategyOptions))

  const outcome = (feature: CompiledFeature, context: EvaluationContext): Outcome => {
    if (!feature.enabled || feature.strategies === undefined) return false
    if (feature.hasDependencies && !dependenciesSatisfied(feature, context)) return false
    if (feature.strategies.length === 0) return true
    for (const strategy of feature.strategies) {
      if (strategy.matches(context)) return strategy.variants?.(context) ?? true
    }
    return false
  }
  const variantOf = (feature: CompiledFeature, decided: Outcome, context: EvaluationContext): VariantResult => {
    if (decided === false) return DISABLED_VARIANT
    if (decided !== true) return decided
    return feature.variants(context) ?? NO_VARIANT
  }
  // One level only, as in the SDK: a parent that has dependencies of its own fails the child.
  const dependenciesSatisfied = (feature: CompiledFeature, context: EvaluationContext): boolean => {
    for (const dependency of feature.dependencies) {
      const parent = features.get(dependency.parent)
      if (parent === undefined || parent.hasDependencies) return false
      const decided = outcome(parent, context)
      if (!dependency.parentEnabled) {
        if (decided !== false) return false
      } else if (dependency.variants !== undefined) {
        const variant = variantOf(parent, decided, context)
        if (!variant.feature_enabled || !dependency.variants.has(variant.name)) return false
      } else if (decided === false) {
        return false
      }
    }
    return true
  }

  return {
    isEnabled(name, context) {
      const feature = features.get(name)
      return feature !== undefined && outcome(feature, context) !== false
    },
    getVariant(name, context) {
      const feature = features.get(name)
      return feature === undefined ? DISABLED_VARIANT : variantOf(feature, outcome(feature, context), context)
    },
    evaluateAll(context) {
      const enabled: FrontendFeature[] = []
      for (const feature of features.values()) {
        const decided = outcome(feature, context)
        if (decided === false) continue
        // One evaluation gives both answers, so a random rollout cannot disagree with itself.
        const variant = variantOf(feature, decided, context)
        enabled.push({ name: feature.name, enabled: true, variant, impressionData: feature.impressionData })
      }
      return enabled
    },
  }
}

function compileFeature(
  feature: FeatureDefinition,
  segments: ReadonlyMap<number, ContextPredicate>,
  options: StrategyOptions,
): CompiledFeature {
  const strategies = Array.isArray(feature.strategies)
    ? feature.strategies.map((strategy): CompiledStrategy => {
        if (strategy == null) return { matches: () => false }
        const constraints = (strategy.constraints ?? []).map(compileConstraint)
        // A segment id missing from the payload makes the strategy false, as in the SDK.
        for (const id of strategy.segments ?? []) constraints.push(segments.get(id) ?? (() => false))
        const constraintsHold = allOf(constraints)
        const rule = compileStrategy(strategy, options)
        const variants = Array.isArray(strategy.variants) ? strategy.variants : []
        return {
          matches: (context) => constraintsHold(context) && rule(context),
          variants:
            variants.length === 0
              ? undefined
              : compileVariantSelector(
                  variants,
                  strategy.parameters?.groupId,
                  variants[0].stickiness || strategy.parameters?.stickiness,
                  options.random,
                ),
        }
      })
    : undefined
  const featureVariants = Array.isArray(feature.variants) ? feature.variants : []
  const dependencies = feature.dependencies ?? []
  return {
    name: feature.name,
    enabled: Boolean(feature.enabled),
    impressionData: Boolean(feature.impressionData),
    strategies,
    variants: compileVariantSelector(featureVariants, feature.name, featureVariants[0]?.stickiness, options.random),
    dependencies: dependencies.map((dependency) => ({
      parent: dependency.feature,
      parentEnabled: dependency.enabled !== false,
      variants: dependency.variants?.length ? new Set(dependency.variants) : undefined,
    })),
    hasDependencies: dependencies.length > 0,
  }
}
