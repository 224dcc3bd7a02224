/**
 * The built-in activation strategies of the Node SDK, compiled once per strategy into a
 * predicate over the context (constraints are applied separately, before the strategy).
 * An unknown strategy name is false.
 */
import { contextValue } from './context.ts'
import type { ContextPredicate } from './constraint-evaluation.ts'
import { bucketsOf, normalizedStrategyValue, STRATEGY_SEED } from './murmurhash.ts'
import { contextIpv4, inIpv4Range, parseIpv4, type Ipv4 } from './ipv4.ts'
import type { EvaluationContext, StrategyDefinition } from './types.ts'

export interface StrategyOptions {
  /** Host name applicationHostname compares with, lower-cased by the caller. */
  hostname: string
  /** Source of randomness in [0, 1), for random stickiness and gradualRolloutRandom. */
  random: () => number
  /** Where userWithId strategies look the context's userId up together (an evaluator's); one of their own otherwise. */
  userIds?: UserIdIndex
}

/**
 * The user ids of many userWithId strategies in one map: a context's userId is looked up once
 * per pass (one call of the evaluator, one context), marking the strategies that list it, and
 * each strategy then reads its mark, instead of every strategy hashing the userId into a set of
 * its own.
 */
export function createUserIdIndex(currentPass: () => number) {
  const slotsOf = new Map<string, number[]>()
  let marks = new Float64Array(16).fill(-1)
  let slots = 0
  let markedPass = -1
  const mark = (userId: unknown) => {
    markedPass = currentPass()
    const listed = typeof userId === 'string' ? slotsOf.get(userId) : undefined
    if (listed !== undefined) for (const slot of listed) marks[slot] = markedPass
  }
  return {
    /** A predicate: the context's userId is one of `userIds`. */
    add(userIds: readonly string[]): ContextPredicate {
      const slot = slots++
      if (slot === marks.length) {
        const grown = new Float64Array(slot * 2).fill(-1)
        grown.set(marks)
        marks = grown
      }
      for (const userId of new Set(userIds)) {
        const listed = slotsOf.get(userId)
        if (listed === undefined) slotsOf.set(userId, [slot])
        else listed.push(slot)
      }
      return (context) => {
        if (context.userId === undefined) return false
        if (markedPass !== currentPass()) mark(context.userId)
        return marks[slot] === markedPass
      }
    },
  }
}

export type UserIdIndex = ReturnType<typeof createUserIdIndex>

type Parameters = Record<string, string | undefined>

/** The default strategy's rule. */
export const ALWAYS: ContextPredicate = () => true
const never: ContextPredicate = () => false
// The SDK splits lists (userIds, IPs, hostNames) on commas with any surrounding spaces.
const LIST_SEPARATOR = /\s*,\s*/

/** The strategy names the SDK evaluates; any other (a custom strategy) is false. */
export const BUILT_IN_STRATEGIES: ReadonlySet<string> = new Set([
  'default',
  'userWithId',
  'flexibleRollout',
  'gradualRolloutUserId',
  'gradualRolloutSessionId',
  'gradualRolloutRandom',
  'remoteAddress',
  'applicationHostname',
])

/** A strategy's own rule, compiled: the predicate, and the same rule telling what decided it (explain mode). */
export interface StrategyRule {
  matches: ContextPredicate
  /** One evaluation with what decided it: a random draw is drawn once, and both come from it. */
  explain: (context: EvaluationContext) => RuleExplanation
}

/** What decided a strategy's own rule for one context. */
export interface RuleExplanation {
  enabled: boolean
  /** Rollout strategies: the id bucketed and its bucket. */
  rollout?: RolloutExplanation
}

/**
 * Where a rollout put the context: `stickiness` is the field whose value was bucketed (`default`
 * resolved to `userId` or `sessionId`), or `random`; `value` that value (a random id for
 * `random`), null when the context has none (then the rollout is false); `bucket` 1–100, null
 * without a value. The rollout holds when `bucket <= percentage` (and percentage > 0).
 */
export interface RolloutExplanation {
  percentage: number | null
  groupId: string
  stickiness: string
  value: string | null
  bucket: number | null
}

/** The strategy's own rule, for the strategy names the SDK knows; false for any other. */
export function compileStrategy(strategy: StrategyDefinition, options: StrategyOptions): ContextPredicate {
  return compileStrategyRule(strategy, options).matches
}

/** compileStrategy's predicate with its explanation, both from the same compiled pieces. */
export function compileStrategyRule(strategy: StrategyDefinition, options: StrategyOptions): StrategyRule {
  const parameters: Parameters = strategy.parameters ?? {}
  switch (strategy.name) {
    case 'flexibleRollout':
      return compileFlexibleRollout(parameters, options)
    case 'gradualRolloutUserId':
      return compileGradualRollout(parameters, 'userId')
    case 'gradualRolloutSessionId':
      return compileGradualRollout(parameters, 'sessionId')
    case 'gradualRolloutRandom':
      return compileGradualRolloutRandom(parameters, options)
    default: {
      const matches = compilePlainRule(strategy.name, parameters, options)
      return { matches, explain: (context) => ({ enabled: matches(context) }) }
    }
  }
}

/** The rules whose answer is all there is to tell. */
function compilePlainRule(name: string, parameters: Parameters, options: StrategyOptions): ContextPredicate {
  switch (name) {
    case 'default':
      return ALWAYS
    case 'userWithId': {
      const userIds = parameters.userIds ? parameters.userIds.split(LIST_SEPARATOR) : []
      if (options.userIds !== undefined) return options.userIds.add(userIds)
      const listed = new Set(userIds)
      return (context) => context.userId !== undefined && listed.has(context.userId)
    }
    case 'remoteAddress':
      return compileRemoteAddress(parameters)
    case 'applicationHostname': {
      const hostNames = parameters.hostNames ? parameters.hostNames.toLowerCase().split(LIST_SEPARATOR) : []
      return hostNames.includes(options.hostname) ? ALWAYS : never
    }
    default:
      return never
  }
}

const numberOrNull = (value: number) => (Number.isNaN(value) ? null : value)

/**
 * `rollout` percent of stickiness ids, bucketed by `groupId:id`. Stickiness `default` is the
 * userId, else the sessionId, else a random id; `random` is always random; any other name is a
 * context field, and the strategy is false without it. Without a groupId the SDK uses the
 * context's `featureToggle` field, else '' (it never sets that field itself).
 */
function compileFlexibleRollout(parameters: Parameters, options: StrategyOptions): StrategyRule {
  const percentage = Number(parameters.rollout)
  const stickiness = parameters.stickiness || 'default'
  const groupId = parameters.groupId
  const buckets = groupId ? bucketsOf(groupId, 100, STRATEGY_SEED) : undefined
  const randomId = () => `${Math.round(options.random() * 10000) + 1}`
  const groupOf = (context: EvaluationContext) => String(ownField(context, 'featureToggle') || '')
  const bucketOf = (id: string, context: EvaluationContext) =>
    buckets !== undefined ? buckets(id) : normalizedStrategyValue(id, groupOf(context))
  const inRollout = (id: string, context: EvaluationContext) => percentage >= 100 || bucketOf(id, context) <= percentage

  const explain = (context: EvaluationContext): RuleExplanation => {
    // The id as the predicates below take it.
    const [field, id] =
      stickiness === 'default'
        ? context.userId
          ? ['userId', context.userId]
          : context.sessionId
            ? ['sessionId', context.sessionId]
            : ['random', randomId()]
        : stickiness === 'random'
          ? ['random', randomId()]
          : [stickiness, contextValue(context, stickiness)]
    const bucket = id ? bucketOf(id, context) : null
    return {
      enabled: percentage > 0 && bucket !== null && (percentage >= 100 || bucket <= percentage),
      rollout: { percentage: numberOrNull(percentage), groupId: groupId || groupOf(context), stickiness: field, value: id || null, bucket },
    }
  }
  // Every bucket is 1..100: no id holds below 1 %, and from 100 % on every id does, without a hash.
  if (!(percentage > 0)) return { matches: never, explain }
  // One closure per kind of stickiness, so that the common ones read their field directly.
  if (stickiness === 'default')
    return { matches: (context) => inRollout(context.userId || context.sessionId || randomId(), context), explain }
  if (stickiness === 'random') return { matches: (context) => inRollout(randomId(), context), explain }
  return {
    matches: (context) => {
      const id = contextValue(context, stickiness)
      return !!id && inRollout(id, context)
    },
    explain,
  }
}

function ownField(context: EvaluationContext, field: string): unknown {
  return Object.hasOwn(context, field) ? (context as Record<string, unknown>)[field] : undefined
}

/** Legacy rollouts: `percentage` percent of user ids or session ids, bucketed by `groupId:id`. */
function compileGradualRollout(parameters: Parameters, field: 'userId' | 'sessionId'): StrategyRule {
  const percentage = Number(parameters.percentage)
  const groupId = parameters.groupId || ''
  const buckets = bucketsOf(groupId, 100, STRATEGY_SEED)
  return {
    matches: (context) => {
      const value = context[field]
      return !!value && percentage > 0 && buckets(value) <= percentage
    },
    explain: (context) => {
      const value = context[field]
      const bucket = value ? buckets(value) : null
      return {
        enabled: bucket !== null && percentage > 0 && bucket <= percentage,
        rollout: { percentage: numberOrNull(percentage), groupId, stickiness: field, value: value || null, bucket },
      }
    },
  }
}

/** `percentage` percent of calls, at random: the draw is a number 1–100, and holds when at most `percentage`. */
function compileGradualRolloutRandom(parameters: Parameters, options: StrategyOptions): StrategyRule {
  const percentage = Number(parameters.percentage)
  const draw = () => Math.floor(options.random() * 100) + 1
  return {
    matches: () => percentage >= draw(),
    explain: () => {
      const bucket = draw()
      return {
        enabled: percentage >= bucket,
        rollout: { percentage: numberOrNull(percentage), groupId: '', stickiness: 'random', value: null, bucket },
      }
    },
  }
}

/**
 * `IPs`: addresses or IPv4 CIDR ranges. An entry equal to the remote address as text matches
 * (IPv6 included); otherwise both must be valid IPv4 (as `ip-address`, the SDK's package, reads
 * them: ipv4.ts) and the address inside the range. The context's address is parsed once per
 * evaluation, whatever the number of strategies reading it.
 */
function compileRemoteAddress(parameters: Parameters): ContextPredicate {
  if (!parameters.IPs) return never
  const entries = parameters.IPs.split(LIST_SEPARATOR)
  const texts = new Set(entries)
  const ranges = entries.map(parseIpv4).filter((range): range is Ipv4 => range !== undefined)
  return (context) => {
    const { remoteAddress } = context
    if (typeof remoteAddress !== 'string') return false
    if (texts.has(remoteAddress)) return true
    if (ranges.length === 0) return false
    const address = contextIpv4(remoteAddress)
    if (address === undefined) return false
    for (const range of ranges) if (inIpv4Range(address, range)) return true
    return false
  }
}
