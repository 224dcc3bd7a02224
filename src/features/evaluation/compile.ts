/**
 * Compiling a client API payload's pieces for evaluate.ts: constraints and segments shared by
 * definition, and each feature's strategies, variants and dependencies.
 */

import { allOf, compileConstraint, createValueIndex, type ContextPredicate, type RegexWeights } from './constraint-evaluation.ts'
import type { ExplainedStrategy } from './explain.ts'
import { ALWAYS, BUILT_IN_STRATEGIES, compileStrategyRule, type StrategyOptions } from './strategies.ts'
import type {
  ClientFeaturesPayload,
  ConstraintDefinition,
  FeatureDefinition,
  FrontendFeature,
  StrategyDefinition,
  VariantResult,
} from './types.ts'
import { compileVariants, type CompiledVariants, type VariantSelector } from './variants.ts'

/**
 * Why a flag is what it is: switched off, a dependency unmet, no strategy matched, or the kind of
 * the strategy that matched (see `strategyKind`). The flag's own variants do not change it.
 */
export type DecisionWhy = 'off' | 'dependency' | 'no-match' | 'targeted' | 'unconditional' | 'rollout'

/** A flag's answer for one context, and why. */
export interface Decision {
  /** 0, 1, 2… in the order this evaluator made them. */
  readonly id: number
  readonly name: string
  readonly enabled: boolean
  readonly variant: VariantResult
  readonly why: DecisionWhy
}

/** Which strategies are a rollout: their percentage parameter, by name. */
const ROLLOUT_PERCENT: Readonly<Record<string, string>> = {
  flexibleRollout: 'rollout',
  gradualRolloutUserId: 'percentage',
  gradualRolloutSessionId: 'percentage',
  gradualRolloutRandom: 'percentage',
}

/**
 * What kind of strategy matched: one with constraints or segments, or one that picks users or
 * addresses by name, targets; `default` and a rollout of 100% hold for everyone; a smaller rollout splits.
 */
function strategyKind(strategy: StrategyDefinition): DecisionWhy {
  if ((strategy.constraints?.length ?? 0) > 0 || (strategy.segments?.length ?? 0) > 0) return 'targeted'
  if (strategy.name === 'default') return 'unconditional'
  const parameter = ROLLOUT_PERCENT[strategy.name]
  if (parameter === undefined) return 'targeted'
  return Number(strategy.parameters?.[parameter]) >= 100 ? 'unconditional' : 'rollout'
}

export interface CompiledStrategy {
  /** Constraints (the strategy's, then its segments') and the strategy's own rule. */
  matches: ContextPredicate
  /** Present when the strategy has variants. */
  variants?: VariantSelector
  /** What a match of it says of the decision. */
  kind: DecisionWhy
}

export interface CompiledDependency {
  parent: string
  /** The parent's compiled feature, found once all are compiled; undefined when the payload lacks it. */
  parentFeature: CompiledFeature | undefined
  parentEnabled: boolean
  /** Present when non-empty: the parent's variant must be one of these. */
  variants?: ReadonlySet<string>
}

export interface CompiledFeature {
  /** The pass `decided` belongs to (see createEvaluator). */
  pass: number
  decided: Outcome
  /** Why `decided` is what it is (same pass). */
  why: DecisionWhy
  name: string
  enabled: boolean
  impressionData: boolean
  /** Undefined for a malformed feature (no strategies array), which is always disabled. */
  strategies: CompiledStrategy[] | undefined
  variants: VariantSelector
  dependencies: CompiledDependency[]
  hasDependencies: boolean
  /** The feature's toggles made so far, one per variant result (a few: the variants are compiled once). */
  toggles: FrontendFeature[]
  /** The feature's decisions made so far, one per (variant, why). */
  decisions: Decision[]
  /** Explain mode only: every strategy's pieces (disabled ones included), and the flag's variants. */
  explained: { strategies: ExplainedStrategy[]; variants: CompiledVariants['explain'] } | undefined
}

/**
 * What a feature's strategies decided: false when disabled, true when enabled without a
 * strategy variant, or the variant picked by the strategy that enabled it.
 */
export type Outcome = boolean | VariantResult

/**
 * Constraints and segments compiled once per distinct definition. One used more than once (the
 * same `plan IN [pro, team]` on hundreds of strategies, a segment on many) is evaluated at most
 * once per pass: its first answer in the pass is remembered.
 */
export function sharedPredicates(payload: ClientFeaturesPayload, currentPass: () => number, regexWeights: RegexWeights, explain: boolean) {
  // Each definition's key is made once, when counted, and found again by identity when compiled.
  const keys = new Map<ConstraintDefinition | null | undefined, string>()
  const keyOf = (constraint: ConstraintDefinition | null | undefined) => {
    let key = keys.get(constraint)
    if (key === undefined) keys.set(constraint, (key = JSON.stringify(constraint ?? null)))
    return key
  }
  const uses = new Map<string, number>()
  const count = (key: string) => uses.set(key, (uses.get(key) ?? 0) + 1)
  // IN and NOT_IN: the context's value of each field looked up once per pass for all of them.
  const values = createValueIndex(currentPass)
  for (const feature of payload.features) {
    if (!Array.isArray(feature.strategies)) continue
    for (const strategy of feature.strategies) {
      if (strategy?.disabled === true && !explain) continue
      for (const constraint of strategy?.constraints ?? []) count(keyOf(constraint))
      for (const id of strategy?.segments ?? []) count(`segment ${id}`)
    }
  }
  for (const segment of payload.segments ?? []) for (const constraint of segment.constraints ?? []) count(keyOf(constraint))

  const once = (predicate: ContextPredicate): ContextPredicate => {
    let answeredIn = -1
    let answer = false
    return (context) => {
      const pass = currentPass()
      if (answeredIn !== pass) {
        answer = predicate(context)
        answeredIn = pass
      }
      return answer
    }
  }
  const constraints = new Map<string, ContextPredicate>()
  const constraint = (definition: ConstraintDefinition | null | undefined): ContextPredicate => {
    const key = keyOf(definition)
    let predicate = constraints.get(key)
    if (predicate === undefined) {
      predicate = compileConstraint(definition, regexWeights, values)
      if (uses.get(key)! > 1) predicate = once(predicate)
      constraints.set(key, predicate)
    }
    return predicate
  }
  const segment = (id: number, definitions: readonly (ConstraintDefinition | null)[] | null | undefined): ContextPredicate => {
    const predicate = allOf((definitions ?? []).map(constraint))
    return (uses.get(`segment ${id}`) ?? 0) > 1 ? once(predicate) : predicate
  }
  /** Once compiled: what only compiling needs is let go (the predicates' `once` closures share this scope). */
  const release = () => {
    keys.clear()
    uses.clear()
    constraints.clear()
  }
  return { constraint, segment, release }
}

export function compileFeature(
  feature: FeatureDefinition,
  segments: ReadonlyMap<number, ContextPredicate>,
  constraintOf: (constraint: ConstraintDefinition | null | undefined) => ContextPredicate,
  options: StrategyOptions,
  explain: boolean,
): CompiledFeature {
  const explained: ExplainedStrategy[] = []
  const compileOne = (strategy: StrategyDefinition | null): CompiledStrategy => {
    if (strategy == null) {
      if (explain) explained.push({ disabled: false, known: false, constraints: [], segments: [], rule: () => ({ enabled: false }) })
      return { matches: () => false, kind: 'targeted' }
    }
    const own = (strategy.constraints ?? []).map(constraintOf)
    const constraints = [...own]
    // A segment id missing from the payload makes the strategy false, as in the SDK.
    for (const id of strategy.segments ?? []) constraints.push(segments.get(id) ?? (() => false))
    const constraintsHold = allOf(constraints)
    const rule = compileStrategyRule(strategy, options)
    const variants = Array.isArray(strategy.variants) ? strategy.variants : []
    const compiledVariants =
      variants.length === 0
        ? undefined
        : compileVariants(variants, strategy.parameters?.groupId, variants[0].stickiness || strategy.parameters?.stickiness, options.random)
    const known = BUILT_IN_STRATEGIES.has(strategy.name)
    if (explain)
      explained.push({
        disabled: false,
        known,
        constraints: own,
        segments: strategy.segments ?? [],
        rule: rule.explain,
        variants: compiledVariants?.explain,
      })
    const matches = rule.matches
    return {
      // Without constraints, or with the default strategy, one call instead of two.
      matches:
        constraints.length === 0
          ? matches
          : matches === ALWAYS
            ? constraintsHold
            : (context) => constraintsHold(context) && matches(context),
      variants: compiledVariants?.select,
      kind: strategyKind(strategy),
    }
  }
  let strategies: CompiledStrategy[] | undefined
  if (Array.isArray(feature.strategies)) {
    strategies = []
    for (const strategy of feature.strategies) {
      if (strategy?.disabled !== true) strategies.push(compileOne(strategy))
      else if (explain) {
        explained.push({
          disabled: true,
          known: BUILT_IN_STRATEGIES.has(strategy.name),
          constraints: (strategy.constraints ?? []).map(constraintOf),
          segments: strategy.segments ?? [],
        })
      }
    }
  }
  const featureVariants = Array.isArray(feature.variants) ? feature.variants : []
  const variants = compileVariants(featureVariants, feature.name, featureVariants[0]?.stickiness, options.random)
  const dependencies = feature.dependencies ?? []
  const compiled: CompiledFeature = {
    pass: -1,
    decided: false,
    why: 'off',
    name: feature.name,
    enabled: Boolean(feature.enabled),
    impressionData: Boolean(feature.impressionData),
    strategies,
    variants: variants.select,
    dependencies: dependencies.map((dependency) => ({
      parent: dependency.feature,
      parentFeature: undefined,
      parentEnabled: dependency.enabled !== false,
      variants: dependency.variants?.length ? new Set(dependency.variants) : undefined,
    })),
    hasDependencies: dependencies.length > 0,
    toggles: [],
    decisions: [],
    // Present (if undefined) on every compiled feature, so that all have one shape.
    explained: explain ? { strategies: explained, variants: variants.explain } : undefined,
  }
  return compiled
}
