/**
 * The built-in activation strategies of the Node SDK, compiled once per strategy into a
 * predicate over the context (constraints are applied separately, before the strategy).
 * An unknown strategy name is false.
 */
import { contextValue } from './context.ts'
import type { ContextPredicate } from './constraint-evaluation.ts'
import { bucketsOf, normalizedStrategyValue, STRATEGY_SEED } from './murmurhash.ts'
import { Address4 } from 'ip-address'
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

/** The strategy's own rule, for the strategy names the SDK knows; false for any other. */
export function compileStrategy(strategy: StrategyDefinition, options: StrategyOptions): ContextPredicate {
  const parameters: Parameters = strategy.parameters ?? {}
  switch (strategy.name) {
    case 'default':
      return ALWAYS
    case 'userWithId': {
      const userIds = parameters.userIds ? parameters.userIds.split(LIST_SEPARATOR) : []
      if (options.userIds !== undefined) return options.userIds.add(userIds)
      const listed = new Set(userIds)
      return (context) => context.userId !== undefined && listed.has(context.userId)
    }
    case 'flexibleRollout':
      return compileFlexibleRollout(parameters, options)
    case 'gradualRolloutUserId':
      return compileGradualRollout(parameters, (context) => context.userId)
    case 'gradualRolloutSessionId':
      return compileGradualRollout(parameters, (context) => context.sessionId)
    case 'gradualRolloutRandom': {
      const percentage = Number(parameters.percentage)
      return () => percentage >= Math.floor(options.random() * 100) + 1
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

/**
 * `rollout` percent of stickiness ids, bucketed by `groupId:id`. Stickiness `default` is the
 * userId, else the sessionId, else a random id; `random` is always random; any other name is a
 * context field, and the strategy is false without it. Without a groupId the SDK uses the
 * context's `featureToggle` field, else '' (it never sets that field itself).
 */
function compileFlexibleRollout(parameters: Parameters, options: StrategyOptions): ContextPredicate {
  const percentage = Number(parameters.rollout)
  // Every bucket is 1..100: no id holds below 1 %, and from 100 % on every id does, without a hash.
  if (!(percentage > 0)) return never
  const stickiness = parameters.stickiness || 'default'
  const groupId = parameters.groupId
  const buckets = groupId ? bucketsOf(groupId, 100, STRATEGY_SEED) : undefined
  const randomId = () => `${Math.round(options.random() * 10000) + 1}`
  const inRollout = (id: string, context: EvaluationContext) =>
    percentage >= 100 || (buckets !== undefined ? buckets(id) : normalizedStrategyValue(id, String(ownField(context, 'featureToggle') || ''))) <= percentage
  // One closure per kind of stickiness, so that the common ones read their field directly.
  if (stickiness === 'default') return (context) => inRollout(context.userId || context.sessionId || randomId(), context)
  if (stickiness === 'random') return (context) => inRollout(randomId(), context)
  return (context) => {
    const id = contextValue(context, stickiness)
    return !!id && inRollout(id, context)
  }
}

function ownField(context: EvaluationContext, field: string): unknown {
  return Object.hasOwn(context, field) ? (context as Record<string, unknown>)[field] : undefined
}

/** Legacy rollouts: `percentage` percent of user ids or session ids, bucketed by `groupId:id`. */
function compileGradualRollout(parameters: Parameters, id: (context: EvaluationContext) => string | undefined): ContextPredicate {
  const percentage = Number(parameters.percentage)
  const buckets = bucketsOf(parameters.groupId || '', 100, STRATEGY_SEED)
  return (context) => {
    const value = id(context)
    return !!value && percentage > 0 && buckets(value) <= percentage
  }
}

/**
 * `IPs`: addresses or IPv4 CIDR ranges. An entry equal to the remote address as text matches
 * (IPv6 included); otherwise both must be valid IPv4 (`ip-address`, as the SDK) and the address inside the range.
 */
function compileRemoteAddress(parameters: Parameters): ContextPredicate {
  if (!parameters.IPs) return never
  const entries = parameters.IPs.split(LIST_SEPARATOR).map((text) => ({ text, range: readIpv4(text) }))
  return (context) => {
    const { remoteAddress } = context
    if (entries.some((entry) => entry.text === remoteAddress)) return true
    const address = readIpv4(remoteAddress || '')
    return address !== undefined && entries.some((entry) => entry.range !== undefined && address.isInSubnet(entry.range))
  }
}

function readIpv4(text: string): Address4 | undefined {
  return Address4.isValid(text) ? new Address4(text) : undefined
}
