import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { EvaluationContext, VariantDefinition } from './types.ts'
import { compileVariantSelector, DISABLED_VARIANT, NO_VARIANT, variantResult } from './variants.ts'

const random = () => 0.5
const selectIn = (groupId: string | undefined, variants: VariantDefinition[], context: EvaluationContext, stickiness?: string) =>
  compileVariantSelector(variants, groupId, stickiness, random)(context)?.name
const select = (variants: VariantDefinition[], context: EvaluationContext, stickiness?: string) =>
  selectIn('flag', variants, context, stickiness)

// Buckets of "flag:<id>" over a total weight of 100 (normalizedVariantValue):
// u1 → 18, u4 → 77, u5 → 28, p1 → 50, s1 → 27, 10.0.0.1 → 33, "50000" (random id for 0.5) → 4.
const thirds: VariantDefinition[] = [
  { name: 'a', weight: 33 },
  { name: 'b', weight: 33 },
  { name: 'c', weight: 34 },
]

describe('weights', () => {
  test('the first variant whose cumulative weight reaches the bucket wins', () => {
    assert.equal(select(thirds, { userId: 'u1' }), 'a')
    assert.equal(select(thirds, { userId: 'p1' }), 'b')
    assert.equal(select(thirds, { userId: 'u4' }), 'c')
  })

  test('a bucket equal to the cumulative weight selects that variant', () => {
    assert.equal(
      select(
        [
          { name: 'a', weight: 18 },
          { name: 'b', weight: 82 },
        ],
        { userId: 'u1' },
      ),
      'a',
    )
    assert.equal(
      select(
        [
          { name: 'a', weight: 17 },
          { name: 'b', weight: 83 },
        ],
        { userId: 'u1' },
      ),
      'b',
    )
  })

  test('zero-weight variants are never selected; no positive weight means no variant', () => {
    assert.equal(select([{ name: 'zero', weight: 0 }, ...thirds], { userId: 'u1' }), 'a')
    assert.equal(select([{ name: 'zero', weight: 0 }], { userId: 'u1' }), undefined)
    assert.equal(select([], { userId: 'u1' }), undefined)
  })
})

describe('stickiness', () => {
  test('default: userId, else sessionId, else remoteAddress (non-empty), else random', () => {
    assert.equal(select(thirds, { userId: 'u4', sessionId: 's1' }), 'c')
    assert.equal(select(thirds, { userId: '', sessionId: 'p1' }), 'b')
    assert.equal(select(thirds, { remoteAddress: '10.0.0.1' }), 'a')
    assert.equal(
      select(
        [
          { name: 'a', weight: 4 },
          { name: 'b', weight: 96 },
        ],
        {},
      ),
      'a',
    )
    assert.equal(
      select(
        [
          { name: 'a', weight: 3 },
          { name: 'b', weight: 97 },
        ],
        {},
      ),
      'b',
    )
  })

  test('a named field, random when missing', () => {
    assert.equal(select(thirds, { userId: 'u1', properties: { org: 'u4' } }, 'org'), 'c')
    assert.equal(
      select(
        [
          { name: 'a', weight: 3 },
          { name: 'b', weight: 97 },
        ],
        { userId: 'u1' },
        'org',
      ),
      'b',
    )
  })

  test('the groupId is part of the hash, even when undefined ("undefined:u1" → 69)', () => {
    assert.equal(
      selectIn(
        undefined,
        [
          { name: 'a', weight: 69 },
          { name: 'b', weight: 31 },
        ],
        { userId: 'u1' },
      ),
      'a',
    )
    assert.equal(
      selectIn(
        undefined,
        [
          { name: 'a', weight: 68 },
          { name: 'b', weight: 32 },
        ],
        { userId: 'u1' },
      ),
      'b',
    )
  })
})

describe('overrides', () => {
  test('the first variant with a matching override wins over weights', () => {
    const variants: VariantDefinition[] = [
      { name: 'a', weight: 50 },
      { name: 'b', weight: 0, overrides: [{ contextName: 'userId', values: ['u1', 'u2'] }] },
      {
        name: 'c',
        weight: 50,
        overrides: [
          { contextName: 'team', values: ['x'] },
          { contextName: 'userId', values: ['u1'] },
        ],
      },
    ]
    assert.equal(select(variants, { userId: 'u1' }), 'b')
    assert.equal(select(variants, { userId: 'u4', properties: { team: 'x' } }), 'c')
    assert.equal(select(variants, { userId: 'u4' }), 'c')
    assert.equal(select(variants, { userId: 'u5' }), 'a')
  })

  test('overrides are not consulted when the weights sum to 0', () => {
    assert.equal(select([{ name: 'a', weight: 0, overrides: [{ contextName: 'userId', values: ['u1'] }] }], { userId: 'u1' }), undefined)
  })
})

describe('results', () => {
  test('a selected variant carries its payload, enabled, and both feature-enabled spellings', () => {
    assert.deepEqual(variantResult({ name: 'a', weight: 1, payload: { type: 'json', value: '{}' } }), {
      name: 'a',
      enabled: true,
      payload: { type: 'json', value: '{}' },
      feature_enabled: true,
      featureEnabled: true,
    })
    assert.deepEqual(variantResult({ name: 'a', weight: 1 }), { name: 'a', enabled: true, feature_enabled: true, featureEnabled: true })
  })

  test('the disabled variants, for a disabled feature and for an enabled one without variants', () => {
    assert.deepEqual(DISABLED_VARIANT, { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false })
    assert.deepEqual(NO_VARIANT, { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true })
    assert.equal(Object.isFrozen(NO_VARIANT), true)
  })
})
