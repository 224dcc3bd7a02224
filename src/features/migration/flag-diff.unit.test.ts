import assert from 'node:assert/strict'
import { test } from 'node:test'
import { chunks, flagFingerprints, parentsFirst, sliceExport } from './flag-diff.ts'
import { constraintValues, generateContexts, knownFrontendDifference } from './verify-contexts.ts'

const doc = (strategyId: string, segmentId: number, overrides: unknown[] | undefined) => ({
  features: [
    { name: 'a', type: 'release', description: '', stale: false, impressionData: false },
    { name: 'b', type: 'release' },
  ],
  featureStrategies: [
    {
      id: strategyId,
      name: 'default',
      featureName: 'a',
      parameters: {},
      constraints: [{ contextName: 'x', operator: 'IN', values: ['1'] }],
      segments: [segmentId],
    },
  ],
  featureEnvironments: [
    {
      name: 'a',
      enabled: true,
      variants: [{ name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default', ...(overrides ? { overrides } : {}) }],
    },
  ],
  segments: [{ id: segmentId, name: 'beta' }],
  dependencies: [{ feature: 'a', dependencies: [{ feature: 'b' }] }],
})

test('a flag fingerprints alike across servers: strategy and segment ids, empty overrides and defaults do not count', () => {
  const [x, y] = [flagFingerprints(doc('s1', 3, undefined)), flagFingerprints(doc('s9', 7, []))]
  assert.equal(x.get('a'), y.get('a'))
  assert.equal(x.get('b'), y.get('b'))
  const other = doc('s1', 3, undefined)
  other.featureStrategies[0]!.constraints[0]!.values = ['2']
  assert.notEqual(flagFingerprints(other).get('a'), x.get('a'))
})

test('slices keep a flag with its own strategies, environment and parent; parents come first; chunks', () => {
  const slice = sliceExport(doc('s1', 3, undefined), new Set(['b']))
  assert.deepEqual(
    [slice.features.length, slice.featureStrategies.length, slice.featureEnvironments!.length, slice.dependencies!.length],
    [1, 0, 0, 0],
  )
  assert.deepEqual(parentsFirst(['a', 'b'], doc('s1', 3, undefined)), ['b', 'a'])
  assert.deepEqual(chunks([1, 2, 3], 2), [[1, 2], [3]])
})

test('generated contexts try the constraint values and their neighbours; known frontend differences', () => {
  const served = {
    features: [
      {
        name: 'f',
        strategies: [
          {
            name: 'default',
            constraints: [
              { contextName: 'plan', operator: 'IN', values: ['pro'] },
              { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2026-01-01T00:00:00.000Z' },
            ],
          },
        ],
        dependencies: [{ feature: 'p', enabled: false }],
      },
    ],
  }
  const contexts = generateContexts(served, 4)
  assert.deepEqual(
    contexts.map((c) => c.properties?.plan),
    ['pro', 'pro-other', 'zz-not-listed', 'pro'],
  )
  assert.equal(contexts[0]!.currentTime, '2025-12-31T00:00:00.000Z')
  assert.equal(contexts[1]!.currentTime, undefined)
  assert.match(knownFrontendDifference(served.features[0], contexts[0]!, served)!, /ignores currentTime/)
  assert.match(knownFrontendDifference(served.features[0], contexts[1]!, served)!, /parent must be off/)
})

test('generated currentTime values are always date-times (Unleash refuses any other in a frontend request)', () => {
  const served = {
    features: [
      {
        name: 'a',
        strategies: [
          { name: 'default', constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00Z' }] },
        ],
      },
    ],
  }
  assert.deepEqual(constraintValues(served).get('currentTime'), [
    '2023-12-31T00:00:00.000Z',
    '2024-01-01T00:00:00.000Z',
    '2024-01-02T00:00:00.000Z',
  ])
})
