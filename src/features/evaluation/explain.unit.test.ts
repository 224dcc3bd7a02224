import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEvaluator } from './evaluate.ts'
import { normalizedStrategyValue, normalizedVariantValue } from './murmurhash.ts'
import type { ClientFeaturesPayload, EvaluationContext, FeatureDefinition } from './types.ts'

const payload = (features: FeatureDefinition[], segments: ClientFeaturesPayload['segments'] = []): ClientFeaturesPayload => ({
  features,
  segments,
})
const explainer = (features: FeatureDefinition[], segments: ClientFeaturesPayload['segments'] = [], random?: () => number) =>
  createEvaluator(payload(features, segments), { explain: true, ...(random ? { random } : {}) })
const explainOne = (
  features: FeatureDefinition[],
  name: string,
  context: EvaluationContext,
  segments: ClientFeaturesPayload['segments'] = [],
) =>
  explainer(features, segments)
    .explainAll(context)
    .find((explanation) => explanation.name === name)!

const inRegion = (...values: string[]) => ({ contextName: 'region', operator: 'IN', values })
const disabledVariant = { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false }
const noVariant = { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }

describe('explainAll', () => {
  test('answers every constraint of every strategy; the first strategy that holds decides', () => {
    const explained = explainOne(
      [
        {
          name: 'f',
          enabled: true,
          strategies: [
            { name: 'default', constraints: [inRegion('eu'), { contextName: 'plan', operator: 'IN', values: ['pro'] }] },
            { name: 'default', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'] }] },
            { name: 'default' },
          ],
        },
      ],
      'f',
      { properties: { region: 'us', plan: 'pro' } },
    )
    assert.deepEqual(
      explained.strategies.map(({ constraints, enabled }) => ({ constraints, enabled })),
      [
        { constraints: [false, true], enabled: false },
        { constraints: [true], enabled: true },
        { constraints: [], enabled: true },
      ],
    )
    assert.equal(explained.enabledBy, 1)
    assert.equal(explained.isEnabled, true)
    assert.deepEqual(explained.variant, noVariant)
    assert.equal(explained.variantChoice, undefined)
  })

  test('a switched-off flag is explained (its strategies evaluated) and is off', () => {
    const explained = explainOne([{ name: 'f', enabled: false, strategies: [{ name: 'default' }] }], 'f', {})
    assert.equal(explained.switchedOn, false)
    assert.equal(explained.strategies[0]!.enabled, true)
    assert.equal(explained.isEnabled, false)
    assert.deepEqual(explained.variant, disabledVariant)
  })

  test('segments are answered with each constraint; a segment missing from the payload is false', () => {
    const explained = explainOne(
      [{ name: 'f', enabled: true, strategies: [{ name: 'default', segments: [1, 2] }] }],
      'f',
      { properties: { region: 'eu' } },
      [{ id: 1, constraints: [inRegion('eu'), { contextName: 'region', operator: 'STR_STARTS_WITH', values: ['u'] }] }],
    )
    assert.deepEqual(explained.strategies[0]!.segments, [
      { id: 1, found: true, result: false, constraints: [true, false] },
      { id: 2, found: false, result: false, constraints: [] },
    ])
    assert.equal(explained.isEnabled, false)
  })

  test('a flexible rollout tells the id it bucketed, by which field, and its bucket', () => {
    const strategy = { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'g' } }
    const features = [{ name: 'f', enabled: true, strategies: [strategy] }]
    for (const [context, stickiness, value] of [
      [{ userId: 'u1', sessionId: 's1' }, 'userId', 'u1'],
      [{ sessionId: 's1' }, 'sessionId', 's1'],
    ] as const) {
      const explained = explainOne(features, 'f', context)
      const bucket = normalizedStrategyValue(value, 'g')
      assert.deepEqual(explained.strategies[0]!.rule, {
        enabled: bucket <= 50,
        rollout: { percentage: 50, groupId: 'g', stickiness, value, bucket },
      })
      assert.equal(explained.isEnabled, bucket <= 50)
    }
    const custom = explainOne(
      [
        {
          name: 'f',
          enabled: true,
          strategies: [{ name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'tenant', groupId: 'g' } }],
        },
      ],
      'f',
      {},
    )
    assert.deepEqual(custom.strategies[0]!.rule, {
      enabled: false,
      rollout: { percentage: 100, groupId: 'g', stickiness: 'tenant', value: null, bucket: null },
    })
  })

  test('a random draw is drawn once: the explanation and the answer come from it', () => {
    const draws = [0.3, 0.9]
    const evaluator = explainer(
      [{ name: 'f', enabled: true, strategies: [{ name: 'gradualRolloutRandom', parameters: { percentage: '50' } }] }],
      [],
      () => draws.shift()!,
    )
    const [explained] = evaluator.explainAll({})
    assert.deepEqual(explained!.strategies[0]!.rule, {
      enabled: true,
      rollout: { percentage: 50, groupId: '', stickiness: 'random', value: null, bucket: 31 },
    })
    assert.equal(explained!.isEnabled, true)
    assert.deepEqual(draws, [0.9])
  })

  test('the variant: an override names its field, a weight tells the bucket; a strategy variant names its strategy', () => {
    const variants = [
      { name: 'a', weight: 500, stickiness: 'default', overrides: [{ contextName: 'plan', values: ['pro'] }] },
      { name: 'b', weight: 500, stickiness: 'default' },
    ]
    const features = [
      { name: 'env', enabled: true, strategies: [{ name: 'default' }], variants },
      {
        name: 'strategy',
        enabled: true,
        strategies: [
          { name: 'default', constraints: [inRegion('eu')] },
          { name: 'default', parameters: { groupId: 'grp' }, variants: [{ name: 'x', weight: 1000, stickiness: 'default' }] },
        ],
      },
    ]
    const overridden = explainOne(features, 'env', { userId: 'u1', properties: { plan: 'pro' } })
    assert.equal(overridden.variant.name, 'a')
    assert.deepEqual(overridden.variantChoice, {
      variant: overridden.variant,
      totalWeight: 1000,
      override: { contextName: 'plan', value: 'pro' },
    })

    const weighed = explainOne(features, 'env', { userId: 'u1' })
    const bucket = normalizedVariantValue('u1', 'env', 1000)
    assert.equal(weighed.variant.name, bucket <= 500 ? 'a' : 'b')
    assert.deepEqual(weighed.variantChoice, { variant: weighed.variant, totalWeight: 1000, stickiness: 'userId', value: 'u1', bucket })

    const byStrategy = explainOne(features, 'strategy', { userId: 'u1' })
    assert.equal(byStrategy.enabledBy, 1)
    assert.equal(byStrategy.variant.name, 'x')
    assert.deepEqual(byStrategy.variantChoice, {
      variant: byStrategy.variant,
      totalWeight: 1000,
      stickiness: 'userId',
      value: 'u1',
      bucket: normalizedVariantValue('u1', 'grp', 1000),
      strategy: 1,
    })
  })

  test('a disabled strategy is listed with its constraints answered, and never decides, explained or not', () => {
    const features = [
      {
        name: 'f',
        enabled: true,
        strategies: [
          { name: 'default', disabled: true, constraints: [inRegion('eu')] },
          { name: 'default', constraints: [inRegion('us')] },
        ],
      },
    ]
    const explained = explainOne(features, 'f', { properties: { region: 'eu' } })
    assert.deepEqual(explained.strategies[0], { disabled: true, known: true, constraints: [true], segments: [], enabled: false })
    assert.equal(explained.isEnabled, false)
    assert.equal(createEvaluator(payload(features)).isEnabled('f', { properties: { region: 'eu' } }), false)
  })

  test('a custom strategy is unknown to the evaluator: false, and said so', () => {
    const explained = explainOne([{ name: 'f', enabled: true, strategies: [{ name: 'my-own', parameters: {} }] }], 'f', {})
    assert.deepEqual(explained.strategies[0], {
      disabled: false,
      known: false,
      constraints: [],
      segments: [],
      rule: { enabled: false },
      enabled: false,
    })
    assert.equal(explained.isEnabled, false)
  })

  test('a dependency tells what the parent answered', () => {
    const features: FeatureDefinition[] = [
      { name: 'child', enabled: true, strategies: [{ name: 'default' }], dependencies: [{ feature: 'parent', variants: ['blue'] }] },
      {
        name: 'parent',
        enabled: true,
        strategies: [{ name: 'default', constraints: [inRegion('eu')] }],
        variants: [{ name: 'blue', weight: 1000, stickiness: 'default' }],
      },
      { name: 'off-child', enabled: true, strategies: [{ name: 'default' }], dependencies: [{ feature: 'parent', enabled: false }] },
    ]
    const inEu = explainer(features).explainAll({ properties: { region: 'eu' } })
    assert.deepEqual(
      inEu.map(({ name, isEnabled, hasUnsatisfiedDependency, dependencies }) => ({
        name,
        isEnabled,
        hasUnsatisfiedDependency,
        dependencies,
      })),
      [
        {
          name: 'child',
          isEnabled: true,
          hasUnsatisfiedDependency: false,
          dependencies: [
            { parent: 'parent', found: true, parentHasDependencies: false, parentEnabled: true, parentVariant: 'blue', satisfied: true },
          ],
        },
        { name: 'parent', isEnabled: true, hasUnsatisfiedDependency: false, dependencies: [] },
        {
          name: 'off-child',
          isEnabled: false,
          hasUnsatisfiedDependency: true,
          dependencies: [{ parent: 'parent', found: true, parentHasDependencies: false, parentEnabled: true, satisfied: false }],
        },
      ],
    )
    const inUs = explainer(features).explainAll({ properties: { region: 'us' } })
    assert.deepEqual(inUs[0]!.dependencies, [
      { parent: 'parent', found: true, parentHasDependencies: false, parentEnabled: false, parentVariant: 'disabled', satisfied: false },
    ])
    assert.equal(inUs[2]!.isEnabled, true)
  })

  test('needs an evaluator made with { explain: true }', () => {
    const evaluator = createEvaluator(payload([])) as ReturnType<typeof explainer>
    assert.throws(() => evaluator.explainAll({}), /explain: true/)
  })
})
