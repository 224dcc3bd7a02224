/**
 * Explain mode: what decided a flag for one context, told by the pieces that decided it. An
 * evaluator created with `{ explain: true }` keeps, beside each compiled strategy, its constraint
 * and segment predicates, its rule and its variants (the same compiled objects the decision uses),
 * and `explainAll` evaluates them one by one instead of short-circuiting, so every constraint,
 * segment and rollout gets its answer while the flag's answer stays the evaluator's own.
 * The frontend API's evaluators are created without it: nothing here runs on its path.
 */
import type { ContextPredicate } from './constraint-evaluation.ts'
import type { RuleExplanation, StrategyRule } from './strategies.ts'
import type { EvaluationContext, VariantResult } from './types.ts'
import type { CompiledVariants, VariantExplanation } from './variants.ts'

/** One flag for one context: the evaluator's answer and what decided it. */
export interface FeatureExplanation {
  name: string
  /** The flag's switch in the environment. */
  switchedOn: boolean
  /** What `isEnabled` answers (the switch, the dependency and the strategies together). */
  isEnabled: boolean
  /** What `getVariant` answers. */
  variant: VariantResult
  /** Every strategy of the payload, in its order; disabled ones are listed, never evaluated. */
  strategies: StrategyExplanation[]
  /** The index in `strategies` of the first evaluated strategy that holds: the one that decides. */
  enabledBy: number | undefined
  hasUnsatisfiedDependency: boolean
  /** The dependencies checked, in order, up to the first unsatisfied one. */
  dependencies: DependencyExplanation[]
  /**
   * How the variant was chosen, when the flag is enabled and one was: by the variants of the
   * strategy `strategy` (its index), or, without `strategy`, by the flag's own variants.
   */
  variantChoice: (VariantExplanation & { strategy?: number }) | undefined
}

export interface StrategyExplanation {
  /** A disabled strategy takes no part in the decision (the SDKs never receive one). */
  disabled: boolean
  /** Whether the SDK knows its name; an unknown (custom) strategy's rule is false. */
  known: boolean
  /** Each of its own constraints' answer, in order. */
  constraints: boolean[]
  /** Each of its segments, in order. */
  segments: SegmentExplanation[]
  /** Its own rule's answer and what decided it; absent for a disabled strategy. */
  rule?: RuleExplanation
  /** Constraints, segments and rule all hold (false for a disabled strategy). */
  enabled: boolean
  /** The choice its variants make for the context, when it has variants. */
  variant?: VariantExplanation
}

export interface SegmentExplanation {
  id: number
  /** False when the payload lacks the segment: the strategy is then false, as in the SDK. */
  found: boolean
  result: boolean
  /** Each of its constraints' answer, in order. */
  constraints: boolean[]
}

export interface DependencyExplanation {
  parent: string
  /** Whether the payload has the parent (without it, the dependency is unsatisfied). */
  found: boolean
  /** A parent with dependencies of its own never satisfies one (one level only, as the SDK). */
  parentHasDependencies: boolean
  /** The parent's answer for the context; undefined when it was not asked. */
  parentEnabled: boolean | undefined
  /** The parent's variant, when the dependency names variants. */
  parentVariant?: string
  satisfied: boolean
}

/** What an explaining evaluator keeps of a strategy: the same compiled pieces its decision uses. */
export interface ExplainedStrategy {
  disabled: boolean
  known: boolean
  constraints: ContextPredicate[]
  segments: number[]
  /** Absent for a disabled strategy. */
  rule?: StrategyRule['explain']
  variants?: CompiledVariants['explain']
}

/**
 * Each constraint, segment and the rule, all evaluated (the decision stops at the first false
 * one; the answer is the same). A segment's answer comes from `explainSegment`, once per pass.
 */
export function explainStrategy(
  strategy: ExplainedStrategy,
  context: EvaluationContext,
  explainSegment: (id: number, context: EvaluationContext) => SegmentExplanation,
): StrategyExplanation {
  const constraints = strategy.constraints.map((predicate) => predicate(context))
  const segments = strategy.segments.map((id) => explainSegment(id, context))
  const { disabled, known } = strategy
  if (strategy.rule === undefined) return { disabled, known, constraints, segments, enabled: false }
  const rule = strategy.rule(context)
  const enabled = constraints.every(Boolean) && segments.every((segment) => segment.result) && rule.enabled
  const explanation: StrategyExplanation = { disabled, known, constraints, segments, rule, enabled }
  if (strategy.variants !== undefined) explanation.variant = strategy.variants(context)
  return explanation
}
