/**
 * Flag evaluation over a client API payload, following the Unleash client specification and
 * the Node SDK (`client.js`). `createEvaluator` compiles the payload once (features and
 * segments indexed, constraints, regexes, ranges and variant tables prepared); evaluating a
 * flag then only reads the context.
 */
import { hostname as osHostname } from 'node:os'
import {
  compileFeature,
  sharedPredicates,
  type CompiledDependency,
  type CompiledFeature,
  type CompiledStrategy,
  type Decision,
  type Outcome,
} from './compile.ts'
import type { ContextPredicate, RegexWeights } from './constraint-evaluation.ts'
import { contextValue } from './context.ts'
import { explainStrategy, type DependencyExplanation, type FeatureExplanation, type SegmentExplanation } from './explain.ts'
import { createUserIdIndex, type StrategyOptions } from './strategies.ts'
import type { ClientFeaturesPayload, EvaluationContext, FrontendFeature, VariantResult } from './types.ts'
import { DISABLED_VARIANT, NO_VARIANT } from './variants.ts'

export type { Decision, DecisionWhy } from './compile.ts'

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
   * Every flag of the payload that is on in its environment (in payload order), with why it is
   * what it is (for OpenFeature's reasons). Each (flag, variant, why) is one shared, frozen object,
   * as the toggles. With `switchedOff`, every flag of the payload.
   */
  decideSwitchedOn(context: EvaluationContext): Decision[]
  /** The flags that are off in their environment (or malformed), in payload order: their decisions hold for every context. */
  readonly switchedOff: readonly Decision[]
  /** One flag's decision; undefined for a flag the payload lacks. */
  decide(name: string, context: EvaluationContext): Decision | undefined
  /** The decision numbered `id` (its `id`), for callers that count decisions in a table rather than a map. */
  decisionById(id: number): Decision
}

export interface ExplainingEvaluator extends Evaluator {
  /**
   * Every flag of the payload (in its order) for one context, with what decided it. One pass,
   * as `evaluateAll`: a parent is decided once, and its children's dependencies read that answer.
   */
  explainAll(context: EvaluationContext): FeatureExplanation[]
}

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
  const isSwitchedOn = (feature: CompiledFeature) => feature.enabled && feature.strategies !== undefined
  const switchedOn = [...features.values()].filter(isSwitchedOn)

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
  const allDecisions: Decision[] = []
  const switchedOff = Object.freeze(
    [...features.values()].filter((feature) => !isSwitchedOn(feature)).map((feature) => decisionOf(feature, {})),
  )

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
    decideSwitchedOn(context) {
      pass++
      const decisions = new Array<Decision>(switchedOn.length)
      for (let i = 0; i < switchedOn.length; i++) decisions[i] = decisionOf(switchedOn[i]!, context)
      return decisions
    },
    switchedOff,
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
