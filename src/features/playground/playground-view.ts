/**
 * A flag's explanation (evaluation/explain.ts) in the reference's playground shapes
 * (playgroundFeatureSchema, playgroundStrategySchema, …), keys in the reference's order, with
 * Pennon's additions: `result.rollout` on a rollout strategy's result, and the flag's
 * `explanation` (which strategy enabled it, its dependency, how its variant was chosen).
 * Nothing is evaluated here: every answer comes from the explanation.
 *
 * Written as JSON text: a strategy's fixed parts (name, parameters, constraint definitions, link)
 * are written once per read of the flags and kept with it; only the results are written per
 * context. Building and stringifying the whole object per flag and context cost twice as much CPU
 * on the playground's bench (bench/playground.ts).
 */
import type { ConstraintDefinition, VariantResult } from '../evaluation/types.ts'
import type { FeatureExplanation, StrategyExplanation } from '../evaluation/explain.ts'
import type { VariantExplanation } from '../evaluation/variants.ts'
import type { ClientFeature, ClientSegment, ClientStrategy } from '../client-api/client-features-store.ts'

const UNKNOWN = 'unknown'

/** A flag's answer but its strategies' details (`strategies.data`, JSON text). */
export interface FeatureView {
  isEnabled: boolean
  isEnabledInCurrentEnvironment: boolean
  hasUnsatisfiedDependency: boolean
  variant: VariantResult
  variants: unknown[]
  name: string
  projectId: string
  strategies: { result: boolean | typeof UNKNOWN; data: string }
  explanation: {
    enabledBy: string | null
    dependency: Record<string, unknown> | null
    variant: Record<string, unknown> | null
  }
}

/** The reference's link to a strategy in its UI (`links.edit`). */
const editLink = (project: string, feature: string, environment: string, strategyId: string) =>
  `/projects/${project}/features/${feature}/strategies/edit?environmentId=${environment}&strategyId=${strategyId}`

/** A constraint as `playgroundConstraintSchema`, up to its result: `{…,"result":` (kept per definition). */
const constraintHeads = new WeakMap<ConstraintDefinition, string>()
function constraintJson(constraint: ConstraintDefinition, result: boolean): string {
  let head = constraintHeads.get(constraint)
  if (head === undefined) {
    const definition = {
      contextName: constraint.contextName,
      operator: constraint.operator,
      caseInsensitive: constraint.caseInsensitive ?? false,
      inverted: constraint.inverted ?? false,
      values: constraint.values ?? [],
      ...(constraint.value != null ? { value: constraint.value } : {}),
    }
    head = `${JSON.stringify(definition).slice(0, -1)},"result":`
    constraintHeads.set(constraint, head)
  }
  return `${head}${result}}`
}

/** A strategy's fixed parts around its result and conditions (kept per definition, which belongs to one flag and environment). */
interface StrategyText {
  /** `{"name":…,"id":…,"title"?,"disabled":…,"parameters":{…},"result":` */
  head: string
  /** `,"links":{"edit":…}}` */
  tail: string
}
const strategyTexts = new WeakMap<ClientStrategy, StrategyText>()
function strategyText(feature: ClientFeature, strategy: ClientStrategy, environment: string): StrategyText {
  let text = strategyTexts.get(strategy)
  if (text === undefined) {
    const fixed = {
      name: strategy.name,
      id: strategy.id!,
      ...(strategy.title ? { title: strategy.title } : {}),
      disabled: strategy.disabled ?? false,
      parameters: strategy.parameters,
    }
    text = {
      head: `${JSON.stringify(fixed).slice(0, -1)},"result":`,
      tail: `,"links":${JSON.stringify({ edit: editLink(feature.project, feature.name, environment, strategy.id!) })}}`,
    }
    strategyTexts.set(strategy, text)
  }
  return text
}

/** A segment as `playgroundSegmentSchema`, up to its result: `{"id":…,"name":…,"result":` (kept per definition). */
const segmentHeads = new WeakMap<ClientSegment, string>()
function segmentJson(id: number, definition: ClientSegment | undefined, explained: StrategyExplanation['segments'][number]): string {
  let head = definition && segmentHeads.get(definition)
  if (head === undefined) {
    head = `${JSON.stringify({ id, name: definition?.name ?? String(id) }).slice(0, -1)},"result":`
    if (definition) segmentHeads.set(definition, head)
  }
  const constraints = (definition?.constraints ?? []).map((constraint, i) => constraintJson(constraint, explained.constraints[i]!))
  return `${head}${explained.result},"constraints":[${constraints.join(',')}]}`
}

/** `playgroundStrategySchema.result`: unevaluated (disabled), incomplete (a strategy the server cannot evaluate) or complete. */
function resultView(strategy: ClientStrategy, explained: StrategyExplanation) {
  if (explained.disabled) return { evaluationStatus: 'unevaluated', enabled: UNKNOWN }
  const conditionsHold = explained.constraints.every(Boolean) && explained.segments.every((segment) => segment.result)
  // A custom strategy: the SDK that knows it may say yes when its constraints and segments hold.
  if (!explained.known) return { evaluationStatus: 'incomplete', enabled: conditionsHold ? UNKNOWN : false }
  const variant = explained.variant?.variant
  return {
    evaluationStatus: 'complete',
    enabled: explained.enabled,
    ...(variant !== undefined
      ? {
          variant: { name: variant.name, enabled: true, ...(variant.payload ? { payload: variant.payload } : {}) },
          variants: strategy.variants,
        }
      : {}),
    ...(explained.rule?.rollout ? { rollout: explained.rule.rollout } : {}),
  }
}

function choiceView(choice: VariantExplanation) {
  if (choice.override) return { override: choice.override, totalWeight: choice.totalWeight }
  return { stickiness: choice.stickiness, value: choice.value, bucket: choice.bucket, totalWeight: choice.totalWeight }
}

/** One flag as `playgroundFeatureSchema` (without `context` and `environment`, which the advanced playground adds). */
export function featureView(
  feature: ClientFeature,
  explained: FeatureExplanation,
  segments: ReadonlyMap<number, ClientSegment>,
  environment: string,
): FeatureView {
  const definitions = feature.strategies
  let someUnknown = false
  const data = definitions.map((strategy, index) => {
    const strategyExplained = explained.strategies[index]!
    const { head, tail } = strategyText(feature, strategy, environment)
    const result = resultView(strategy, strategyExplained)
    if (result.enabled === UNKNOWN) someUnknown = true
    const constraints = strategy.constraints.map((constraint, i) => constraintJson(constraint, strategyExplained.constraints[i]!))
    const segmentTexts = strategyExplained.segments.map((segment) => segmentJson(segment.id, segments.get(segment.id), segment))
    return `${head}${JSON.stringify(result)},"constraints":[${constraints.join(',')}],"segments":[${segmentTexts.join(',')}]${tail}`
  })

  const { enabledBy, variantChoice } = explained
  const evaluated = explained.strategies.filter((strategy) => !strategy.disabled)
  // As the reference: true when a strategy enables the flag, `unknown` when none does but a custom one might; without strategies, the switch.
  const result: boolean | typeof UNKNOWN =
    enabledBy !== undefined ? true : evaluated.length === 0 ? explained.switchedOn : someUnknown ? UNKNOWN : false
  const decidingStrategy = enabledBy === undefined ? undefined : definitions[enabledBy]
  const strategyVariants = enabledBy !== undefined && explained.strategies[enabledBy]!.variant?.variant !== undefined
  const [dependency] = explained.dependencies
  const parent = feature.dependencies?.find((candidate) => candidate.feature === dependency?.parent)

  return {
    isEnabled: explained.isEnabled,
    isEnabledInCurrentEnvironment: explained.switchedOn,
    hasUnsatisfiedDependency: explained.hasUnsatisfiedDependency,
    variant: explained.variant,
    variants: strategyVariants ? decidingStrategy!.variants : feature.variants,
    name: feature.name,
    projectId: feature.project,
    strategies: { result, data: `[${data.join(',')}]` },
    explanation: {
      enabledBy: decidingStrategy?.id ?? null,
      dependency:
        dependency === undefined
          ? null
          : {
              feature: dependency.parent,
              enabled: parent?.enabled ?? true,
              ...(parent?.variants?.length ? { variants: parent.variants } : {}),
              parentEnabled: dependency.parentEnabled ?? null,
              ...(dependency.parentVariant !== undefined ? { parentVariant: dependency.parentVariant } : {}),
              satisfied: dependency.satisfied,
            },
      variant:
        variantChoice === undefined
          ? null
          : variantChoice.strategy !== undefined
            ? { source: 'strategy', strategyId: definitions[variantChoice.strategy]!.id!, ...choiceView(variantChoice) }
            : { source: 'environment', ...choiceView(variantChoice) },
    },
  }
}

/**
 * A view as JSON text, keys in its order (`strategies.data` placed as the text it is), with
 * `extra` keys (the advanced playground's `context`, `environment`) where the reference puts them.
 */
export function featureJson(view: FeatureView, extra?: { context: unknown; environment: string }): string {
  const {
    isEnabled,
    isEnabledInCurrentEnvironment,
    hasUnsatisfiedDependency,
    variant,
    variants,
    name,
    projectId,
    strategies,
    explanation,
  } = view
  const head = extra
    ? {
        isEnabled,
        isEnabledInCurrentEnvironment,
        hasUnsatisfiedDependency,
        variant,
        context: extra.context,
        variants,
        name,
        environment: extra.environment,
        projectId,
      }
    : { isEnabled, isEnabledInCurrentEnvironment, hasUnsatisfiedDependency, variant, variants, name, projectId }
  return `${JSON.stringify(head).slice(0, -1)},"strategies":{"result":${JSON.stringify(strategies.result)},"data":${strategies.data}},"explanation":${JSON.stringify(explanation)}}`
}
