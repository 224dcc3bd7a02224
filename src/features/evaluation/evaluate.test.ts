import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEvaluator } from './evaluate.ts'
import type { ClientFeaturesPayload, FeatureDefinition } from './types.ts'

const on = (name: string, extra: Partial<FeatureDefinition> = {}): FeatureDefinition => ({
  name,
  enabled: true,
  strategies: [{ name: 'default', parameters: {}, constraints: [] }],
  ...extra,
})
const payload = (features: FeatureDefinition[], segments: ClientFeaturesPayload['segments'] = []): ClientFeaturesPayload => ({
  version: 2,
  features,
  segments,
})
const noVariant = { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }
const disabledVariant = { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false }

describe('isEnabled', () => {
  test('needs the feature enabled and one strategy (constraints included) to hold', () => {
    const evaluator = createEvaluator(
      payload([
        on('no-strategies', { strategies: [] }),
        on('off', { enabled: false }),
        on('malformed', { strategies: undefined }),
        on('second-wins', {
          strategies: [
            { name: 'unknown-strategy', parameters: {} },
            { name: 'default', constraints: [{ contextName: 'environment', operator: 'IN', values: ['prod'] }] },
          ],
        }),
      ]),
    )
    assert.equal(evaluator.isEnabled('no-strategies', {}), true)
    assert.equal(evaluator.isEnabled('off', {}), false)
    assert.equal(evaluator.isEnabled('malformed', {}), false)
    assert.equal(evaluator.isEnabled('second-wins', { environment: 'prod' }), true)
    assert.equal(evaluator.isEnabled('second-wins', { environment: 'dev' }), false)
    assert.equal(evaluator.isEnabled('missing', {}), false)
  })

  test('segments add their constraints; an unknown segment id makes the strategy false', () => {
    const evaluator = createEvaluator(
      payload(
        [on('segmented', { strategies: [{ name: 'default', segments: [7] }] }), on('dangling', { strategies: [{ name: 'default', segments: [7, 8] }] })],
        [{ id: 7, constraints: [{ contextName: 'tier', operator: 'IN', values: ['gold'] }] }],
      ),
    )
    assert.equal(evaluator.isEnabled('segmented', { properties: { tier: 'gold' } }), true)
    assert.equal(evaluator.isEnabled('segmented', { properties: { tier: 'iron' } }), false)
    assert.equal(evaluator.isEnabled('dangling', { properties: { tier: 'gold' } }), false)
  })

  test('a later feature with the same name replaces an earlier one', () => {
    const evaluator = createEvaluator(payload([on('twice', { enabled: false }), on('twice')]))
    assert.equal(evaluator.isEnabled('twice', {}), true)
  })

  test('the hostname option feeds applicationHostname', () => {
    const feature = on('host', { strategies: [{ name: 'applicationHostname', parameters: { hostNames: 'web-1' } }] })
    assert.equal(createEvaluator(payload([feature]), { hostname: 'WEB-1' }).isEnabled('host', {}), true)
    assert.equal(createEvaluator(payload([feature]), { hostname: 'web-2' }).isEnabled('host', {}), false)
  })
})

describe('getVariant', () => {
  const evaluator = createEvaluator(
    payload([
      on('plain'),
      on('feature-variants', { variants: [{ name: 'blue', weight: 1, payload: { type: 'string', value: 'b' } }] }),
      on('strategy-variants', {
        strategies: [{ name: 'flexibleRollout', parameters: { rollout: '100', groupId: 'g' }, variants: [{ name: 'red', weight: 1 }] }],
        variants: [{ name: 'blue', weight: 1 }],
      }),
      on('empty-strategy-variants', {
        strategies: [{ name: 'default', variants: [{ name: 'never', weight: 0 }] }],
        variants: [{ name: 'blue', weight: 1 }],
      }),
      on('off', { enabled: false, variants: [{ name: 'blue', weight: 1 }] }),
    ]),
  )

  test('the winning strategy’s variants come first, then the feature’s, then the enabled "disabled" variant', () => {
    assert.deepEqual(evaluator.getVariant('strategy-variants', {}), { name: 'red', enabled: true, feature_enabled: true, featureEnabled: true })
    assert.deepEqual(evaluator.getVariant('feature-variants', {}), {
      name: 'blue',
      enabled: true,
      payload: { type: 'string', value: 'b' },
      feature_enabled: true,
      featureEnabled: true,
    })
    assert.deepEqual(evaluator.getVariant('empty-strategy-variants', {}), { name: 'blue', enabled: true, feature_enabled: true, featureEnabled: true })
    assert.deepEqual(evaluator.getVariant('plain', {}), noVariant)
  })

  test('a disabled or unknown feature gives the disabled variant with feature_enabled false', () => {
    assert.deepEqual(evaluator.getVariant('off', {}), disabledVariant)
    assert.deepEqual(evaluator.getVariant('missing', {}), disabledVariant)
  })

  test('results are shared frozen objects', () => {
    assert.equal(evaluator.getVariant('feature-variants', {}), evaluator.getVariant('feature-variants', { userId: 'x' }))
    assert.equal(Object.isFrozen(evaluator.getVariant('feature-variants', {})), true)
  })
})

describe('dependencies', () => {
  const evaluator = createEvaluator(
    payload([
      on('parent'),
      on('parent-off', { enabled: false }),
      on('parent-with-variant', { variants: [{ name: 'v1', weight: 1 }] }),
      on('parent-with-parent', { dependencies: [{ feature: 'parent' }] }),
      on('needs-parent', { dependencies: [{ feature: 'parent' }] }),
      on('needs-parent-off', { dependencies: [{ feature: 'parent-off', enabled: false }] }),
      on('needs-v1', { dependencies: [{ feature: 'parent-with-variant', variants: ['v1'] }] }),
      on('needs-v2', { dependencies: [{ feature: 'parent-with-variant', variants: ['v2'] }] }),
      on('needs-off-parent-on', { dependencies: [{ feature: 'parent', enabled: false }] }),
      on('needs-grandparent-chain', { dependencies: [{ feature: 'parent-with-parent' }] }),
      on('needs-missing', { dependencies: [{ feature: 'nowhere' }] }),
      on('needs-both', { dependencies: [{ feature: 'parent' }, { feature: 'parent-off' }] }),
      on('child-off', { enabled: false, dependencies: [{ feature: 'parent' }] }),
      on('needs-parent-in-prod', { dependencies: [{ feature: 'prod-only' }] }),
      on('prod-only', { strategies: [{ name: 'default', constraints: [{ contextName: 'environment', operator: 'IN', values: ['prod'] }] }] }),
    ]),
  )

  test('each parent must be enabled, or disabled when enabled: false, and show a listed variant', () => {
    assert.equal(evaluator.isEnabled('needs-parent', {}), true)
    assert.equal(evaluator.isEnabled('needs-parent-off', {}), true)
    assert.equal(evaluator.isEnabled('needs-off-parent-on', {}), false)
    assert.equal(evaluator.isEnabled('needs-v1', {}), true)
    assert.equal(evaluator.isEnabled('needs-v2', {}), false)
    assert.equal(evaluator.isEnabled('needs-both', {}), false)
    assert.equal(evaluator.isEnabled('child-off', {}), false)
  })

  test('one level only, and a missing parent fails the child', () => {
    assert.equal(evaluator.isEnabled('parent-with-parent', {}), true)
    assert.equal(evaluator.isEnabled('needs-grandparent-chain', {}), false)
    assert.equal(evaluator.isEnabled('needs-missing', {}), false)
  })

  test('parents are evaluated with the child’s context', () => {
    assert.equal(evaluator.isEnabled('needs-parent-in-prod', { environment: 'prod' }), true)
    assert.equal(evaluator.isEnabled('needs-parent-in-prod', { environment: 'dev' }), false)
    assert.deepEqual(evaluator.getVariant('needs-parent-in-prod', { environment: 'dev' }), disabledVariant)
  })
})

describe('evaluateAll', () => {
  test('lists the enabled flags in payload order, with variant and impressionData (frontendApiFeatureSchema)', () => {
    const evaluator = createEvaluator(
      payload([
        on('b-first', { impressionData: true, variants: [{ name: 'blue', weight: 1, payload: { type: 'json', value: '{"a":1}' } }] }),
        on('off', { enabled: false }),
        on('a-second'),
        on('constrained', { strategies: [{ name: 'userWithId', parameters: { userIds: 'u1' } }] }),
      ]),
    )
    assert.deepEqual(evaluator.evaluateAll({ userId: 'u2' }), [
      {
        name: 'b-first',
        enabled: true,
        variant: { name: 'blue', enabled: true, payload: { type: 'json', value: '{"a":1}' }, feature_enabled: true, featureEnabled: true },
        impressionData: true,
      },
      { name: 'a-second', enabled: true, variant: noVariant, impressionData: false },
    ])
    assert.deepEqual(
      evaluator.evaluateAll({ userId: 'u1' }).map((feature) => feature.name),
      ['b-first', 'a-second', 'constrained'],
    )
  })

  test('evaluates each flag once: the variant comes from the evaluation that enabled it', () => {
    // Random stickiness draws once for the rollout and once for the variant seed.
    let draws = 0
    const random = () => {
      draws++
      return 0.5
    }
    const evaluator = createEvaluator(
      payload([
        on('coin', {
          strategies: [
            {
              name: 'flexibleRollout',
              parameters: { rollout: '100', stickiness: 'random', groupId: 'coin' },
              variants: [{ name: 'heads', weight: 1 }],
            },
          ],
        }),
      ]),
      { random },
    )
    assert.deepEqual(
      evaluator.evaluateAll({}).map((feature) => feature.variant.name),
      ['heads'],
    )
    assert.equal(draws, 2)
  })
})
