import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { compileStrategy, type StrategyOptions } from './strategies.ts'
import type { EvaluationContext } from './types.ts'

const options: StrategyOptions = { hostname: 'web-1', random: () => 0.5 }
function enabled(name: string, parameters: Record<string, string>, context: EvaluationContext, strategyOptions = options): boolean {
  return compileStrategy({ name, parameters }, strategyOptions)(context)
}

// Buckets (normalizedStrategyValue): "gr1:123" → 73, "gr1:s-1" → 19, "gr1:blue" → 12,
// "gr1:5001" → 18 (the random id for random() = 0.5), ":123" → 93.
describe('flexibleRollout', () => {
  const rollout = (percent: string, stickiness?: string) => ({ rollout: percent, groupId: 'gr1', ...(stickiness ? { stickiness } : {}) })

  test('enabled when the bucket of groupId:id is within the rollout', () => {
    assert.equal(enabled('flexibleRollout', rollout('73'), { userId: '123' }), true)
    assert.equal(enabled('flexibleRollout', rollout('72'), { userId: '123' }), false)
    assert.equal(enabled('flexibleRollout', rollout('0'), { userId: '123' }), false)
    assert.equal(enabled('flexibleRollout', rollout('100'), { userId: '123' }), true)
  })

  test('default stickiness: userId, else sessionId, else a random id', () => {
    assert.equal(enabled('flexibleRollout', rollout('19', 'default'), { sessionId: 's-1' }), true)
    assert.equal(enabled('flexibleRollout', rollout('18', 'default'), { sessionId: 's-1' }), false)
    assert.equal(enabled('flexibleRollout', rollout('18'), {}), true)
    assert.equal(enabled('flexibleRollout', rollout('17'), {}), false)
  })

  test('userId and sessionId stickiness read those fields, and are false without them', () => {
    assert.equal(enabled('flexibleRollout', rollout('73', 'userId'), { userId: '123' }), true)
    assert.equal(enabled('flexibleRollout', rollout('100', 'userId'), { sessionId: 's-1' }), false)
    assert.equal(enabled('flexibleRollout', rollout('19', 'sessionId'), { userId: '123', sessionId: 's-1' }), true)
  })

  test('random stickiness ignores the context', () => {
    assert.equal(enabled('flexibleRollout', rollout('18', 'random'), { userId: '123' }), true)
    assert.equal(enabled('flexibleRollout', rollout('17', 'random'), { userId: '123' }), false)
  })

  test('custom stickiness reads a context field or property, and is false without it', () => {
    assert.equal(enabled('flexibleRollout', rollout('12', 'color'), { properties: { color: 'blue' } }), true)
    assert.equal(enabled('flexibleRollout', rollout('11', 'color'), { properties: { color: 'blue' } }), false)
    assert.equal(enabled('flexibleRollout', rollout('100', 'color'), {}), false)
  })

  test('without a groupId the group is "" (the Node SDK does not use the flag name)', () => {
    assert.equal(enabled('flexibleRollout', { rollout: '93' }, { userId: '123' }), true)
    assert.equal(enabled('flexibleRollout', { rollout: '92' }, { userId: '123' }), false)
  })
})

describe('legacy gradual rollouts', () => {
  test('gradualRolloutUserId and gradualRolloutSessionId bucket their id, false without it', () => {
    assert.equal(enabled('gradualRolloutUserId', { percentage: '73', groupId: 'gr1' }, { userId: '123' }), true)
    assert.equal(enabled('gradualRolloutUserId', { percentage: '72', groupId: 'gr1' }, { userId: '123' }), false)
    assert.equal(enabled('gradualRolloutUserId', { percentage: '100', groupId: 'gr1' }, { sessionId: 's-1' }), false)
    assert.equal(enabled('gradualRolloutSessionId', { percentage: '19', groupId: 'gr1' }, { sessionId: 's-1' }), true)
    assert.equal(enabled('gradualRolloutSessionId', { percentage: '18', groupId: 'gr1' }, { sessionId: 's-1' }), false)
  })

  test('gradualRolloutRandom compares the percentage with a random 1..100', () => {
    assert.equal(enabled('gradualRolloutRandom', { percentage: '51' }, {}), true)
    assert.equal(enabled('gradualRolloutRandom', { percentage: '50' }, {}), false)
    assert.equal(enabled('gradualRolloutRandom', { percentage: '100' }, {}, { ...options, random: () => 0.999 }), true)
    assert.equal(enabled('gradualRolloutRandom', { percentage: '0' }, {}, { ...options, random: () => 0 }), false)
  })
})

describe('userWithId', () => {
  test('the userId must be in the comma-separated list', () => {
    assert.equal(enabled('userWithId', { userIds: 'a, b ,c' }, { userId: 'b' }), true)
    assert.equal(enabled('userWithId', { userIds: 'a,b' }, { userId: 'ab' }), false)
    assert.equal(enabled('userWithId', { userIds: 'a' }, { properties: { userId: 'a' } }), false)
    assert.equal(enabled('userWithId', {}, { userId: 'a' }), false)
  })
})

describe('remoteAddress', () => {
  test('exact addresses (any text) and IPv4 ranges', () => {
    const IPs = '127.0.0.1, 10.0.0.0/8, ::1'
    assert.equal(enabled('remoteAddress', { IPs }, { remoteAddress: '127.0.0.1' }), true)
    assert.equal(enabled('remoteAddress', { IPs }, { remoteAddress: '10.200.3.4' }), true)
    assert.equal(enabled('remoteAddress', { IPs }, { remoteAddress: '::1' }), true)
    assert.equal(enabled('remoteAddress', { IPs }, { remoteAddress: '11.0.0.1' }), false)
    assert.equal(enabled('remoteAddress', { IPs: '2001:db8::/32' }, { remoteAddress: '2001:db8::1' }), false)
    assert.equal(enabled('remoteAddress', { IPs }, {}), false)
    assert.equal(enabled('remoteAddress', {}, { remoteAddress: '127.0.0.1' }), false)
  })
})

describe('applicationHostname', () => {
  test('the host name must be in hostNames, ignoring case', () => {
    assert.equal(enabled('applicationHostname', { hostNames: 'Web-1, web-2' }, {}), true)
    assert.equal(enabled('applicationHostname', { hostNames: 'web-2' }, {}), false)
    assert.equal(enabled('applicationHostname', {}, {}), false)
  })
})

describe('other strategies', () => {
  test('default is enabled; an unknown name is not', () => {
    assert.equal(enabled('default', {}, {}), true)
    assert.equal(compileStrategy({ name: 'default' }, options)({}), true)
    assert.equal(enabled('customStrategy', {}, {}), false)
  })
})
