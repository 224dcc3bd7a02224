// @ts-check
/**
 * Sentences a person reads from one flag of a playground answer: why it is on or off, which
 * variant it gave and why, its parent and its segments. Pure (no DOM, no fetch), so it is
 * unit-tested (test/playground-explain.test.ts). Code-like parts are wrapped in backticks; the
 * page shows them as code.
 *
 * explainFeature(feature, context).headline
 * // "off: strategy 1's constraint `region IN [eu]` is false for region=us"
 */

/** @typedef {{ contextName: string, operator: string, caseInsensitive?: boolean, inverted?: boolean, values?: string[], value?: string, result: boolean }} PlayedConstraint */
/** @typedef {{ id: number, name: string, result: boolean, constraints: PlayedConstraint[] }} PlayedSegment */
/** @typedef {{ percentage: number | null, groupId: string, stickiness: string, value: string | null, bucket: number | null }} PlayedRollout */
/** @typedef {{ evaluationStatus: 'complete' | 'incomplete' | 'unevaluated', enabled: boolean | 'unknown', variant?: { name: string }, rollout?: PlayedRollout }} PlayedStrategyResult */
/** @typedef {{ name: string, id: string, title?: string, disabled: boolean, parameters: Record<string, string>, result: PlayedStrategyResult, constraints: PlayedConstraint[], segments: PlayedSegment[] }} PlayedStrategy */
/** @typedef {{ feature: string, enabled: boolean, variants?: string[], parentEnabled: boolean | null, parentVariant?: string, satisfied: boolean }} PlayedDependency */
/** @typedef {{ source: 'strategy' | 'environment', strategyId?: string, override?: { contextName: string, value: string }, stickiness?: string, value?: string, bucket?: number, totalWeight: number }} PlayedVariantChoice */
/**
 * @typedef {object} PlayedFeature
 * @property {string} name
 * @property {string} projectId
 * @property {boolean} isEnabled
 * @property {boolean} isEnabledInCurrentEnvironment
 * @property {boolean} hasUnsatisfiedDependency
 * @property {{ name: string, enabled: boolean, payload?: { type: string, value: string } }} variant
 * @property {{ name: string }[]} variants
 * @property {{ result: boolean | 'unknown', data: PlayedStrategy[] }} strategies
 * @property {{ enabledBy: string | null, dependency: PlayedDependency | null, variant: PlayedVariantChoice | null }} [explanation]
 */
/** @typedef {{ appName?: string, currentTime?: string, properties?: Record<string, string>, [field: string]: unknown }} PlayedContext */

/**
 * @typedef {object} FeatureStory
 * @property {'on' | 'off'} state what the evaluator answered
 * @property {string} headline one sentence: the state and the deciding reason
 * @property {{ label: string, verdict: 'holds' | 'fails' | 'paused' | 'unknown', reasons: string[] }[]} strategies each strategy's own account, in order
 * @property {string} variant which variant and why
 * @property {string | null} dependency the parent and what it answered, when there is one
 * @property {string[]} segments each segment used, with its answer
 */

/** A context field's value as the evaluator saw it, or undefined when the context lacks it. @param {PlayedContext} context @param {string} name */
export function contextValue(context, name) {
  const top = context[name]
  if (name !== 'properties' && typeof top === 'string') return top
  const property = context.properties?.[name]
  return typeof property === 'string' ? property : undefined
}

/** `region IN [eu]`, `age NOT NUM_GT 40 (any case)`. @param {Omit<PlayedConstraint, 'result'>} constraint */
export function constraintText(constraint) {
  const values =
    constraint.value !== undefined && (constraint.values ?? []).length === 0
      ? constraint.value
      : `[${(constraint.values ?? []).join(', ')}]`
  return `${constraint.contextName} ${constraint.inverted ? 'NOT ' : ''}${constraint.operator} ${values}${constraint.caseInsensitive ? ' (any case)' : ''}`
}

/** @param {PlayedContext} context @param {PlayedConstraint} constraint */
function constraintSentence(context, constraint) {
  const value = contextValue(context, constraint.contextName)
  const given =
    value !== undefined
      ? `${constraint.contextName}=${value}`
      : constraint.contextName === 'currentTime'
        ? 'currentTime=now'
        : `${constraint.contextName}, which the context does not set`
  return `constraint \`${constraintText(constraint)}\` is ${constraint.result} for ${given}`
}

/** `rollout: userId=7 is in bucket 63 of group checkout, above 50%`. @param {PlayedRollout} rollout */
export function rolloutSentence(rollout) {
  const percentage = rollout.percentage ?? 0
  if (percentage <= 0) return 'rollout: 0%, nobody is in it'
  if (rollout.value === null || rollout.bucket === null)
    return `rollout: by ${rollout.stickiness}, which the context does not set, so nobody is in it`
  const who = rollout.stickiness === 'random' ? 'a random draw' : `${rollout.stickiness}=${rollout.value}`
  return `rollout: ${who} is in bucket ${rollout.bucket} of group ${rollout.groupId}, ${rollout.bucket <= percentage ? 'within' : 'above'} ${percentage}%`
}

/**
 * What decided one strategy: every reason it fails (not only the first the evaluator stopped
 * at), or what made it hold. Each reason reads after "strategy 1's".
 * @param {PlayedStrategy} strategy
 * @param {PlayedContext} context
 * @returns {{ verdict: 'holds' | 'fails' | 'paused' | 'unknown', reasons: string[] }}
 */
export function strategyReasons(strategy, context) {
  if (strategy.disabled) return { verdict: 'paused', reasons: ['paused: not evaluated'] }
  const rollout = strategy.result.rollout
  if (strategy.result.enabled === true) {
    const reasons = [
      ...strategy.constraints.map((constraint) => constraintSentence(context, constraint)),
      ...strategy.segments.map((segment) => `segment \`${segment.name}\` is true`),
    ]
    if (rollout) reasons.push(rolloutSentence(rollout))
    return {
      verdict: 'holds',
      reasons: reasons.length ? reasons : [`rule (${strategy.name}${parameterText(strategy.parameters)}) holds for everyone`],
    }
  }
  const failing = [
    ...strategy.constraints.filter((constraint) => !constraint.result).map((constraint) => constraintSentence(context, constraint)),
    ...strategy.segments.filter((segment) => !segment.result).map((segment) => segmentSentence(segment, context)),
  ]
  if (strategy.result.evaluationStatus === 'incomplete') {
    return failing.length
      ? { verdict: 'fails', reasons: failing }
      : {
          verdict: 'unknown',
          reasons: [`rule (${strategy.name}) is a custom strategy Pennon cannot evaluate: an SDK that implements it decides`],
        }
  }
  if (
    rollout &&
    (rollout.bucket === null || rollout.value === null || rollout.bucket > (rollout.percentage ?? 0) || (rollout.percentage ?? 0) <= 0)
  )
    failing.push(rolloutSentence(rollout))
  if (failing.length === 0) failing.push(`rule (${strategy.name}${parameterText(strategy.parameters)}) is false for this context`)
  return { verdict: 'fails', reasons: failing }
}

/** @param {Record<string, string>} parameters */
function parameterText(parameters) {
  const entries = Object.entries(parameters)
  return entries.length ? ` with ${entries.map(([key, value]) => `${key}=${value}`).join(', ')}` : ''
}

/** @param {PlayedSegment} segment @param {PlayedContext} context */
function segmentSentence(segment, context) {
  const failing = segment.constraints.filter((constraint) => !constraint.result)
  if (failing.length === 0) return `segment \`${segment.name}\` is false`
  return `segment \`${segment.name}\` is false: its ${failing.map((constraint) => constraintSentence(context, constraint)).join(', and its ')}`
}

/** `strategy 2` and, for lists, `strategy 2 (Half of Europe, flexibleRollout)`. @param {number} index @param {PlayedStrategy} [strategy] */
function strategyLabel(index, strategy) {
  const name = `strategy ${index + 1}`
  if (!strategy) return name
  return `${name} (${strategy.title ? `${strategy.title}, ${strategy.name}` : strategy.name})`
}

/** @param {PlayedDependency} dependency */
export function dependencySentence(dependency) {
  const wanted = dependency.enabled ? `on${dependency.variants?.length ? ` with variant ${dependency.variants.join(' or ')}` : ''}` : 'off'
  const answered =
    dependency.parentEnabled === null
      ? 'the parent could not be evaluated'
      : `the parent is ${dependency.parentEnabled ? 'on' : 'off'}${dependency.parentVariant ? ` with variant ${dependency.parentVariant}` : ''} for this context`
  return `depends on \`${dependency.feature}\` being ${wanted}, and ${answered}: ${dependency.satisfied ? 'satisfied' : 'not satisfied'}`
}

/**
 * @param {PlayedFeature} feature
 * @param {PlayedContext} context
 */
export function variantSentence(feature, context) {
  const choice = feature.explanation?.variant ?? null
  const name = feature.variant.name
  if (!feature.isEnabled) return 'no variant: the flag is off'
  if (!choice) return feature.variant.enabled ? `variant ${name}` : 'no variant: the flag has no variants here'
  const index = feature.strategies.data.findIndex((strategy) => strategy.id === choice.strategyId)
  const from = choice.source === 'strategy' ? `the variants of ${strategyLabel(index)}` : "the flag's variants"
  if (choice.override) return `variant ${name}: ${from} override it for ${choice.override.contextName}=${choice.override.value}`
  const who = choice.stickiness === 'random' || choice.value === undefined ? 'a random draw' : `${choice.stickiness}=${choice.value}`
  const lacking =
    choice.stickiness && choice.stickiness !== 'random' && contextValue(context, choice.stickiness) === undefined
      ? ` (${choice.stickiness} not set)`
      : ''
  return `variant ${name}: ${who}${lacking} is in bucket ${choice.bucket} of ${choice.totalWeight}, which falls to ${name} by weight among ${from}`
}

/**
 * The whole story of one flag for one context.
 * @param {PlayedFeature} feature
 * @param {PlayedContext} context
 * @param {string} environment the environment evaluated
 * @returns {FeatureStory}
 */
export function explainFeature(feature, context, environment) {
  const strategies = feature.strategies.data.map((strategy, index) => ({
    label: strategyLabel(index, strategy),
    ...strategyReasons(strategy, context),
  }))
  const dependency = feature.explanation?.dependency ? dependencySentence(feature.explanation.dependency) : null
  const segments = feature.strategies.data.flatMap((strategy, index) =>
    strategy.segments.map(
      (segment) => `\`${segment.name}\` (in strategy ${index + 1}) is ${segment.result ? 'true' : 'false'} for this context`,
    ),
  )
  return {
    state: feature.isEnabled ? 'on' : 'off',
    headline: headline(feature, strategies, environment),
    strategies,
    variant: variantSentence(feature, context),
    dependency,
    segments,
  }
}

/**
 * @param {PlayedFeature} feature
 * @param {FeatureStory['strategies']} strategies
 * @param {string} environment
 */
function headline(feature, strategies, environment) {
  const dependency = feature.explanation?.dependency
  const deciding = strategies.findIndex((strategy) => strategy.verdict === 'holds')
  if (feature.isEnabled) {
    const because =
      deciding >= 0
        ? `${strategyLabel(deciding)} holds: ${strategies[deciding]?.reasons.join('; ')}`
        : 'switched on, with no strategy to ask'
    return `on: ${because}${dependency ? `; its parent \`${dependency.feature}\` is ${dependency.parentEnabled ? 'on' : 'off'}, as required` : ''}`
  }
  if (!feature.isEnabledInCurrentEnvironment) {
    return `off: switched off in ${environment}${deciding >= 0 ? ` (were it on, ${strategyLabel(deciding)} would hold)` : ''}`
  }
  if (feature.hasUnsatisfiedDependency)
    return `off: ${dependency ? dependencySentence(dependency) : 'its parent dependency is not satisfied'}`
  const evaluated = strategies.map((strategy, index) => ({ ...strategy, index })).filter((strategy) => strategy.verdict !== 'paused')
  const unknown = evaluated.find((strategy) => strategy.verdict === 'unknown')
  if (unknown) return `off here, unknown in an SDK: ${strategyLabel(unknown.index)}'s ${unknown.reasons[0]}`
  if (evaluated.length === 0) return strategies.length ? 'off: every strategy is paused' : 'off: it has no strategy'
  const [only] = evaluated
  if (evaluated.length === 1 && only) return `off: ${strategyLabel(only.index)}'s ${only.reasons.join('; and its ')}`
  return `off: none of its ${evaluated.length} strategies holds (${evaluated.map((strategy) => `${strategyLabel(strategy.index)}'s ${strategy.reasons[0]}`).join('; ')})`
}
