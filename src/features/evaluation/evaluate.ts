/**
 * Flag evaluation over a client API payload, following the Unleash client specification and
 * the Node SDK (`client.js`). `createEvaluator` compiles the payload once (features and
 * segments indexed, constraints, regexes, ranges and variant tables prepared); evaluating a
 * flag then only reads the context.
 */
import { hostname as osHostname } from 'node:os'
import { allOf, compileConstraint, createValueIndex, type ContextPredicate, type RegexWeights } from './constraint-evaluation.ts'
import { contextValue } from './context.ts'
import {
  explainStrategy,
  type DependencyExplanation,
  type ExplainedStrategy,
  type FeatureExplanation,
  type SegmentExplanation,
} from './explain.ts'
import { ALWAYS, BUILT_IN_STRATEGIES, compileStrategyRule, createUserIdIndex, type StrategyOptions } from './strategies.ts'
import type {
  ClientFeaturesPayload,
  ConstraintDefinition,
  EvaluationContext,
  FeatureDefinition,
  FrontendFeature,
  StrategyDefinition,
  VariantResult,
} from './types.ts'
import { compileVariants, DISABLED_VARIANT, NO_VARIANT, type CompiledVariants, type VariantSelector } from './variants.ts'

export interface EvaluatorOptions {
  /** applicationHostname's host name; default as the SDK: $HOSTNAME, else os.hostname(). */
  hostname?: string
  /** Randomness for random stickiness and gradualRolloutRandom; default Math.random. */
  random?: () => number
  /** Keep what `explainAll` needs (explain.ts); evaluators made without it keep none of it. */
  explain?: boolean
}

export interface Evaluator {
  /** Whether the flag is enabled for the context; false for an unknown flag. */
  isEnabled(name: string, context: EvaluationContext): boolean
  /** The flag's variant for the context, shaped as the SDK's `getVariant` (shared, frozen). */
  getVariant(name: string, context: EvaluationContext): VariantResult
  /**
   * The enabled flags with their variants, in payload order, for `GET /api/frontend`. Each
   * (flag, variant) is one shared, frozen object, the same on every call: nothing is allocated
   * per flag, and what is derived from one (its JSON text) can be kept by identity.
   */
  evaluateAll(context: EvaluationContext): FrontendFeature[]
  /**
   * The most REGEX work evaluating `context` may cost: for each field REGEX constraints read,
   * the value's length times their program sizes (regex.ts, MAX_REGEX_WORK). Each distinct
   * constraint is evaluated at most once per call, so this bounds the matching done.
   */
  regexWork(context: EvaluationContext): number
  /**
   * Every flag of the payload (in its order), disabled ones included, with why it is what it is
   * (for OpenFeature's reasons). Each (flag, variant, why) is one shared, frozen object, as the toggles.
   */
  decideAll(context: EvaluationContext): Decision[]
  /** One flag's decision; undefined for a flag the payload lacks. */
  decide(name: string, context: EvaluationContext): Decision | undefined
  /** The decision numbered `id` (its `id`), for callers that count decisions in a table rather than a map. */
  decisionById(id: number): Decision
}

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

export interface ExplainingEvaluator extends Evaluator {
  /**
   * Every flag of the payload (in its order) for one context, with what decided it. One pass,
   * as `evaluateAll`: a parent is decided once, and its children's dependencies read that answer.
   */
  explainAll(context: EvaluationContext): FeatureExplanation[]
}

interface CompiledStrategy {
  /** Constraints (the strategy's, then its segments') and the strategy's own rule. */
  matches: ContextPredicate
  /** Present when the strategy has variants. */
  variants?: VariantSelector
  /** What a match of it says of the decision. */
  kind: DecisionWhy
}

interface CompiledDependency {
  parent: string
  /** The parent's compiled feature, found once all are compiled; undefined when the payload lacks it. */
  parentFeature: CompiledFeature | undefined
  parentEnabled: boolean
  /** Present when non-empty: the parent's variant must be one of these. */
  variants?: ReadonlySet<string>
}

interface CompiledFeature {
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
type Outcome = boolean | VariantResult

/**
 * Compiles `payload` for repeated evaluation. The payload is not modified nor kept. A strategy
 * marked `disabled` takes no part (the SDKs never receive one); with `explain` it is listed.
 */
export function createEvaluator(payload: ClientFeaturesPayload, options: EvaluatorOptions & { explain: true }): ExplainingEvaluator
export function createEvaluator(payload: ClientFeaturesPayload, options?: EvaluatorOptions): Evaluator
export function createEvaluator(payload: ClientFeaturesPayload, options: EvaluatorOptions = {}): Evaluator | ExplainingEvaluator {
  const explain = options.explain === true
  const strategyOptions: StrategyOptions = {
    hostname: (options.hostname ?? (process.env.HOSTNAME || osHostname() || 'undefined')).toLowerCase(),
    random: options.random ?? Math.random,
  }
  // Each call of isEnabled, getVariant or evaluateAll is a pass, with one context: what does not
  // depend on chance (a constraint, a segment, a flag's outcome) is computed at most once per pass.
  let pass = 0
  const currentPass = () => pass
  strategyOptions.userIds = createUserIdIndex(currentPass)
  const regexWeights: RegexWeights = new Map()
  const shared = sharedPredicates(payload, currentPass, regexWeights, explain)
  const segments = new Map<number, ContextPredicate>()
  for (const segment of payload.segments ?? []) segments.set(segment.id, shared.segment(segment.id, segment.constraints))
  // Explain mode: each segment's constraints one by one (the same shared predicates).
  const segmentConstraints = new Map<number, ContextPredicate[]>()
  if (explain)
    for (const segment of payload.segments ?? []) segmentConstraints.set(segment.id, (segment.constraints ?? []).map(shared.constraint))
  // As the SDK's map by name: a later duplicate replaces an earlier one.
  const features = new Map<string, CompiledFeature>()
  for (const feature of payload.features)
    features.set(feature.name, compileFeature(feature, segments, shared.constraint, strategyOptions, explain))
  for (const feature of features.values())
    for (const dependency of feature.dependencies) dependency.parentFeature = features.get(dependency.parent)
  shared.release()
  // evaluateAll lists enabled flags only: a switched-off or malformed one need not be looked at.
  const switchedOn = [...features.values()].filter((feature) => feature.enabled && feature.strategies !== undefined)

  const outcome = (feature: CompiledFeature, context: EvaluationContext): Outcome => {
    if (!feature.enabled || feature.strategies === undefined) {
      feature.why = 'off'
      return false
    }
    // A parent asked for by its children is decided once per pass (so they all see one answer).
    if (feature.pass === pass) return feature.decided
    feature.pass = pass
    return (feature.decided = decide(feature, feature.strategies, context))
  }
  const decide = (feature: CompiledFeature, strategies: CompiledStrategy[], context: EvaluationContext): Outcome => {
    if (feature.hasDependencies && !dependenciesSatisfied(feature, context)) {
      feature.why = 'dependency'
      return false
    }
    if (strategies.length === 0) {
      feature.why = 'unconditional'
      return true
    }
    for (const strategy of strategies) {
      if (strategy.matches(context)) {
        feature.why = strategy.kind
        return strategy.variants?.(context) ?? true
      }
    }
    feature.why = 'no-match'
    return false
  }
  const variantOf = (feature: CompiledFeature, decided: Outcome, context: EvaluationContext): VariantResult => {
    if (decided === false) return DISABLED_VARIANT
    if (decided !== true) return decided
    return feature.variants(context) ?? NO_VARIANT
  }
  // One level only, as in the SDK: a parent that has dependencies of its own fails the child.
  // `explained` (explain mode) receives each dependency checked.
  const dependenciesSatisfied = (feature: CompiledFeature, context: EvaluationContext, explained?: DependencyExplanation[]): boolean => {
    for (const dependency of feature.dependencies) if (!dependencySatisfied(dependency, context, explained)) return false
    return true
  }
  const dependencySatisfied = (
    dependency: CompiledDependency,
    context: EvaluationContext,
    explained: DependencyExplanation[] | undefined,
  ): boolean => {
    const parent = dependency.parentFeature
    if (parent === undefined || parent.hasDependencies) {
      explained?.push({
        parent: dependency.parent,
        found: parent !== undefined,
        parentHasDependencies: parent !== undefined,
        parentEnabled: undefined,
        satisfied: false,
      })
      return false
    }
    const decided = outcome(parent, context)
    let satisfied: boolean
    let variant: VariantResult | undefined
    if (!dependency.parentEnabled) satisfied = decided === false
    else if (dependency.variants !== undefined) {
      variant = variantOf(parent, decided, context)
      satisfied = variant.feature_enabled && dependency.variants.has(variant.name)
    } else satisfied = decided !== false
    if (explained !== undefined) {
      const entry: DependencyExplanation = {
        parent: dependency.parent,
        found: true,
        parentHasDependencies: false,
        parentEnabled: decided !== false,
        satisfied,
      }
      if (variant !== undefined) entry.parentVariant = variant.name
      explained.push(entry)
    }
    return satisfied
  }

  const toggleOf = (feature: CompiledFeature, variant: VariantResult): FrontendFeature => {
    const { toggles } = feature
    for (let i = 0; i < toggles.length; i++) if (toggles[i]!.variant === variant) return toggles[i]!
    const toggle: FrontendFeature = Object.freeze({ name: feature.name, enabled: true, variant, impressionData: feature.impressionData })
    toggles.push(toggle)
    return toggle
  }

  const decisionOf = (feature: CompiledFeature, context: EvaluationContext): Decision => {
    const decided = outcome(feature, context)
    const variant = variantOf(feature, decided, context)
    const { decisions, why } = feature
    for (let i = 0; i < decisions.length; i++) if (decisions[i]!.variant === variant && decisions[i]!.why === why) return decisions[i]!
    const decision: Decision = Object.freeze({ id: allDecisions.length, name: feature.name, enabled: decided !== false, variant, why })
    decisions.push(decision)
    allDecisions.push(decision)
    return decision
  }
  const everyFeature = [...features.values()]
  const allDecisions: Decision[] = []

  // Explain mode: a segment's explanation is made once per pass, whatever the strategies using it.
  const segmentAnswers = new Map<number, { pass: number; explanation: SegmentExplanation }>()
  const explainSegment = (id: number, context: EvaluationContext): SegmentExplanation => {
    const known = segmentAnswers.get(id)
    if (known !== undefined && known.pass === pass) return known.explanation
    const constraints = segmentConstraints.get(id)
    const results = constraints?.map((predicate) => predicate(context)) ?? []
    const explanation: SegmentExplanation = {
      id,
      found: constraints !== undefined,
      result: constraints !== undefined && results.every(Boolean),
      constraints: results,
    }
    segmentAnswers.set(id, { pass, explanation })
    return explanation
  }
  /** The flag's explanation; its outcome becomes the pass's decision (as `outcome` would have made it). */
  const explainFeature = (feature: CompiledFeature, context: EvaluationContext): FeatureExplanation => {
    const explained = feature.explained!
    const strategies = explained.strategies.map((strategy) => explainStrategy(strategy, context, explainSegment))
    const dependencies: DependencyExplanation[] = []
    const satisfied = !feature.hasDependencies || dependenciesSatisfied(feature, context, dependencies)
    const first = strategies.findIndex((strategy) => strategy.enabled)
    const enabledBy = first >= 0 ? first : undefined
    // decide(), from the explained pieces.
    let decided: Outcome = false
    if (feature.enabled && feature.strategies !== undefined && satisfied) {
      if (feature.strategies.length === 0) decided = true
      else if (enabledBy !== undefined) decided = strategies[enabledBy]!.variant?.variant ?? true
    }
    feature.pass = pass
    feature.decided = decided
    // variantOf(), likewise.
    let variant: VariantResult
    let variantChoice: FeatureExplanation['variantChoice']
    if (decided === false) variant = DISABLED_VARIANT
    else if (decided !== true) {
      variant = decided
      variantChoice = { ...strategies[enabledBy!]!.variant!, strategy: enabledBy }
    } else {
      const choice = explained.variants(context)
      variant = choice.variant ?? NO_VARIANT
      if (choice.variant !== undefined) variantChoice = choice
    }
    return {
      name: feature.name,
      switchedOn: feature.enabled,
      isEnabled: decided !== false,
      variant,
      strategies,
      enabledBy,
      hasUnsatisfiedDependency: !satisfied,
      dependencies,
      variantChoice,
    }
  }

  const evaluator: ExplainingEvaluator = {
    isEnabled(name, context) {
      pass++
      const feature = features.get(name)
      return feature !== undefined && outcome(feature, context) !== false
    },
    getVariant(name, context) {
      pass++
      const feature = features.get(name)
      return feature === undefined ? DISABLED_VARIANT : variantOf(feature, outcome(feature, context), context)
    },
    evaluateAll(context) {
      pass++
      const enabled: FrontendFeature[] = []
      for (const feature of switchedOn) {
        const decided = outcome(feature, context)
        if (decided === false) continue
        // One evaluation gives both answers, so a random rollout cannot disagree with itself.
        enabled.push(toggleOf(feature, variantOf(feature, decided, context)))
      }
      return enabled
    },
    decideAll(context) {
      pass++
      const decisions = new Array<Decision>(everyFeature.length)
      for (let i = 0; i < everyFeature.length; i++) decisions[i] = decisionOf(everyFeature[i]!, context)
      return decisions
    },
    decisionById: (id) => allDecisions[id]!,
    decide(name, context) {
      pass++
      const feature = features.get(name)
      return feature === undefined ? undefined : decisionOf(feature, context)
    },
    regexWork(context) {
      let work = 0
      for (const [field, weight] of regexWeights) work += (contextValue(context, field)?.length ?? 0) * weight
      return work
    },
    explainAll(context) {
      if (!explain) throw new Error('explainAll needs an evaluator created with { explain: true }')
      pass++
      const explanations = new Map<CompiledFeature, FeatureExplanation>()
      // Parents first (a parent with dependencies of its own is never asked): a child's dependency reads the parent's explained outcome.
      for (const feature of features.values()) if (!feature.hasDependencies) explanations.set(feature, explainFeature(feature, context))
      for (const feature of features.values()) if (feature.hasDependencies) explanations.set(feature, explainFeature(feature, context))
      return [...features.values()].map((feature) => explanations.get(feature)!)
    },
  }
  return evaluator
}

/**
 * Constraints and segments compiled once per distinct definition. One used more than once (the
 * same `plan IN [pro, team]` on hundreds of strategies, a segment on many) is evaluated at most
 * once per pass: its first answer in the pass is remembered.
 */
function sharedPredicates(payload: ClientFeaturesPayload, currentPass: () => number, regexWeights: RegexWeights, explain: boolean) {
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

function compileFeature(
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
