/**
 * A flag's explanation (evaluation/explain.ts) in the reference's playground shapes
 * (playgroundFeatureSchema, playgroundStrategySchema, …), keys in the reference's order, with
 * Pennon's additions: `result.rollout` on a rollout strategy's result, and the flag's
 * `explanation` (which strategy enabled it, its dependency, how its variant was chosen).
 * Nothing is evaluated here: every answer comes from the explanation.
 */
import type { ConstraintDefinition, VariantResult } from '../evaluation/types.ts'
import type { FeatureExplanation, StrategyExplanation } from '../evaluation/explain.ts'
import type { VariantExplanation } from '../evaluation/variants.ts'
import type { ClientFeature, ClientSegment, ClientStrategy } from '../client-api/client-features-store.ts'

const UNKNOWN = 'unknown'

export interface FeatureView {
  isEnabled: boolean
  isEnabledInCurrentEnvironment: boolean
  hasUnsatisfiedDependency: boolean
  variant: VariantResult
  variants: unknown[]
  name: string
  projectId: string
  strategies: { result: boolean | typeof UNKNOWN; data: unknown[] }
  explanation: {
    enabledBy: string | null
    dependency: Record<string, unknown> | null
    variant: Record<string, unknown> | null
  }
}

/** The reference's link to a strategy in its UI (`links.edit`). */
const editLink = (project: string, feature: string, environment: string, strategyId: string) =>
  `/projects/${project}/features/${feature}/strategies/edit?environmentId=${environment}&strategyId=${strategyId}`

function constraintView(constraint: ConstraintDefinition, result: boolean) {
  return {
    contextName: constraint.contextName,
    operator: constraint.operator,
    caseInsensitive: constraint.caseInsensitive ?? false,
    inverted: constraint.inverted ?? false,
    values: constraint.values ?? [],
    ...(constraint.value != null ? { value: constraint.value } : {}),
    result,
  }
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
      ? { variant: { name: variant.name, enabled: true, ...(variant.payload ? { payload: variant.payload } : {}) }, variants: strategy.variants }
      : {}),
    ...(explained.rule?.rollout ? { rollout: explained.rule.rollout } : {}),
  }
}

function choiceView(choice: VariantExplanation) {
  if (choice.override) return { override: choice.override, totalWeight: choice.totalWeight }
  return { stickiness: choice.stickiness, value: choice.value, bucket: choice.bucket, totalWeight: choice.totalWeight }
}

/** One flag as `playgroundFeatureSchema` (without `context` and `environment`, which the advanced playground adds). */
export function featureView(feature: ClientFeature, explained: FeatureExplanation, segments: ReadonlyMap<number, ClientSegment>, environment: string): FeatureView {
  const definitions = feature.strategies
  const data = definitions.map((strategy, index) => {
    const strategyExplained = explained.strategies[index]!
    return {
      name: strategy.name,
      id: strategy.id!,
      ...(strategy.title ? { title: strategy.title } : {}),
      disabled: strategy.disabled ?? false,
      parameters: strategy.parameters,
      result: resultView(strategy, strategyExplained),
      constraints: strategy.constraints.map((constraint, i) => constraintView(constraint, strategyExplained.constraints[i]!)),
      segments: strategyExplained.segments.map((segment) => {
        const definition = segments.get(segment.id)
        return {
          id: segment.id,
          name: definition?.name ?? String(segment.id),
          result: segment.result,
          constraints: (definition?.constraints ?? []).map((constraint, i) => constraintView(constraint, segment.constraints[i]!)),
        }
      }),
      links: { edit: editLink(feature.project, feature.name, environment, strategy.id!) },
    }
  })

  const { enabledBy, variantChoice } = explained
  const evaluated = explained.strategies.filter((strategy) => !strategy.disabled)
  // As the reference: true when a strategy enables the flag, `unknown` when none does but a custom one might; without strategies, the switch.
  const result: boolean | typeof UNKNOWN =
    enabledBy !== undefined ? true : evaluated.length === 0 ? explained.switchedOn : data.some((strategy) => strategy.result.enabled === UNKNOWN) ? UNKNOWN : false
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
    strategies: { result, data },
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
