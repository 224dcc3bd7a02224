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
        [
          on('segmented', { strategies: [{ name: 'default', segments: [7] }] }),
          on('dangling', { strategies: [{ name: 'default', segments: [7, 8] }] }),
        ],
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
    assert.deepEqual(evaluator.getVariant('strategy-variants', {}), {
      name: 'red',
      enabled: true,
      feature_enabled: true,
      featureEnabled: true,
    })
    assert.deepEqual(evaluator.getVariant('feature-variants', {}), {
      name: 'blue',
      enabled: true,
      payload: { type: 'string', value: 'b' },
      feature_enabled: true,
      featureEnabled: true,
    })
    assert.deepEqual(evaluator.getVariant('empty-strategy-variants', {}), {
      name: 'blue',
      enabled: true,
      feature_enabled: true,
      featureEnabled: true,
    })
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
      on('prod-only', {
        strategies: [{ name: 'default', constraints: [{ contextName: 'environment', operator: 'IN', values: ['prod'] }] }],
      }),
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

  test('each (flag, variant) is one frozen toggle, the same object on every call that gives it', () => {
    const evaluator = createEvaluator(
      payload([
        on('split', {
          variants: [
            { name: 'a', weight: 1, stickiness: 'userId' },
            { name: 'b', weight: 1, stickiness: 'userId', overrides: [{ contextName: 'userId', values: ['bea'] }] },
          ],
        }),
        on('plain'),
      ]),
    )
    const first = evaluator.evaluateAll({ userId: 'bea' })
    const again = evaluator.evaluateAll({ userId: 'bea' })
    assert.equal(first[0], again[0])
    assert.equal(first[1], again[1])
    assert.ok(Object.isFrozen(first[0]) && Object.isFrozen(first[1]))
    assert.deepEqual(
      first.map((toggle) => [toggle.name, toggle.variant.name]),
      [
        ['split', 'b'],
        ['plain', 'disabled'],
      ],
    )
    // Another variant of the same flag is another toggle; the flag without variants keeps its one.
    const users = Array.from({ length: 50 }, (_, i) => `user-${i}`)
    const toggles = users.map((userId) => evaluator.evaluateAll({ userId }))
    const splits = new Set(toggles.map((list) => list[0]))
    assert.deepEqual([...splits].map((toggle) => toggle.variant.name).sort(), ['a', 'b'])
    assert.ok(splits.has(first[0]!))
    assert.equal(new Set(toggles.map((list) => list[1])).size, 1)
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

describe('decideSwitchedOn and switchedOff', () => {
  test('the flags off (or malformed) are decided once, the others per context, each list in payload order', () => {
    const evaluator = createEvaluator(
      payload([
        on('off-first', { enabled: false }),
        on('named', { strategies: [{ name: 'userWithId', parameters: { userIds: 'u1' } }] }),
        on('malformed', { strategies: undefined as unknown as FeatureDefinition['strategies'] }),
        on('everyone'),
        on('off-last', { enabled: false }),
      ]),
    )
    const brief = (decision: { name: string; enabled: boolean; why: string; variant: { name: string } }) =>
      `${decision.name} ${decision.enabled} ${decision.why} ${decision.variant.name}`
    assert.deepEqual(evaluator.switchedOff.map(brief), [
      'off-first false off disabled',
      'malformed false off disabled',
      'off-last false off disabled',
    ])
    assert.ok(Object.isFrozen(evaluator.switchedOff))
    assert.deepEqual(evaluator.decideSwitchedOn({ userId: 'u1' }).map(brief), [
      'named true targeted disabled',
      'everyone true unconditional disabled',
    ])
    assert.deepEqual(evaluator.decideSwitchedOn({ userId: 'u2' }).map(brief), [
      'named false no-match disabled',
      'everyone true unconditional disabled',
    ])
    // The same decision objects as one flag's decide(), so their answers are made once.
    assert.equal(evaluator.decide('off-last', { userId: 'u1' }), evaluator.switchedOff[2])
    assert.equal(evaluator.decide('everyone', { userId: 'u2' }), evaluator.decideSwitchedOn({ userId: 'u1' })[1])
  })
})

describe('work shared within one call', () => {
  /** A context whose `plan` property counts how often it is read. */
  const countingContext = (plan: string) => {
    const reads = { plan: 0 }
    const properties = {}
    Object.defineProperty(properties, 'plan', { enumerable: true, get: () => (reads.plan++, plan) })
    return { context: { userId: 'u1', properties }, reads }
  }

  test('a constraint or segment used by many strategies is evaluated once per call, and again in the next call', () => {
    const plan = { contextName: 'plan', operator: 'IN', values: ['pro'] }
    const features = Array.from({ length: 50 }, (_, i) =>
      on(`flag-${i}`, { strategies: [{ name: 'default', constraints: [plan], segments: i % 2 === 0 ? [1] : [] }] }),
    )
    const evaluator = createEvaluator(
      payload(features, [{ id: 1, constraints: [{ contextName: 'plan', operator: 'NOT_IN', values: ['free'] }] }]),
    )
    const pro = countingContext('pro')
    assert.equal(evaluator.evaluateAll(pro.context).length, 50)
    // One read for the shared IN and the segment's NOT_IN: IN and NOT_IN look a field's value up once per call.
    assert.equal(pro.reads.plan, 1)
    const free = countingContext('free')
    assert.deepEqual(evaluator.evaluateAll(free.context), [])
    assert.equal(free.reads.plan, 1)
    // The same context object, changed between calls, is read again.
    const mutable = { properties: { plan: 'pro' } }
    assert.equal(evaluator.isEnabled('flag-0', mutable), true)
    mutable.properties.plan = 'team'
    assert.equal(evaluator.isEnabled('flag-0', mutable), false)
    assert.equal(evaluator.isEnabled('flag-1', { properties: { plan: 'pro' } }), true)
  })

  test('a parent is decided once per call: its children see the answer it gets itself, even by chance', () => {
    let draws = 0
    const random = () => (draws++ % 2 === 0 ? 0.1 : 0.9)
    const parent = on('parent', {
      strategies: [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'random', groupId: 'parent' } }],
    })
    const children = ['a', 'b', 'c'].map((name) => on(`child-${name}`, { dependencies: [{ feature: 'parent' }] }))
    const evaluator = createEvaluator(payload([...children, parent]), { random })
    for (let call = 0; call < 6; call++) {
      const before = draws
      const names = evaluator.evaluateAll({}).map((toggle) => toggle.name)
      assert.equal(draws, before + 1, 'one draw for the parent per call')
      assert.ok(names.length === 0 || names.length === 4, names.join())
    }
  })

  test('IN and NOT_IN lists looked up together: each answers as its own set would, and a changed context is read again', () => {
    const users = (i: number) => ({
      contextName: 'userId',
      operator: i % 3 === 0 ? 'NOT_IN' : 'IN',
      values: [`u${i}`, `u${i + 1}`, ' ', `u${i}`],
    })
    const features = Array.from({ length: 30 }, (_, i) => on(`flag-${i}`, { strategies: [{ name: 'default', constraints: [users(i)] }] }))
    const evaluator = createEvaluator(payload(features))
    for (const userId of ['u0', 'u1', 'u7', 'u29', 'u30', 'nobody', '']) {
      const expected = features
        .filter((_, i) => (i % 3 === 0) !== [`u${i}`, `u${i + 1}`, ''].includes(userId)) // ' ' is kept, trimmed to '' (as the SDK)
        .map((feature) => feature.name)
      assert.deepEqual(
        evaluator.evaluateAll({ userId }).map((toggle) => toggle.name),
        expected,
        userId,
      )
    }
    // Without the field: every IN false, every NOT_IN true.
    assert.deepEqual(
      evaluator.evaluateAll({}).map((toggle) => toggle.name),
      features.filter((_, i) => i % 3 === 0).map((feature) => feature.name),
    )
    assert.equal(evaluator.isEnabled('flag-1', { properties: { userId: 'u1' } }), true)
    assert.equal(evaluator.isEnabled('flag-1', { properties: { userId: 'u3' } }), false)
  })

  test('userWithId lists looked up together: each call marks the strategies listing its userId, and only those', () => {
    const listing = (name: string, userIds: string) => on(name, { strategies: [{ name: 'userWithId', parameters: { userIds } }] })
    const evaluator = createEvaluator(payload([listing('a', 'u1, u2'), listing('b', 'u2,u3'), listing('c', 'u1'), listing('empty', '')]))
    const names = (userId?: string) => evaluator.evaluateAll(userId === undefined ? {} : { userId }).map((toggle) => toggle.name)
    assert.deepEqual(names('u1'), ['a', 'c'])
    assert.deepEqual(names('u2'), ['a', 'b'])
    assert.deepEqual(names('u3'), ['b'])
    assert.deepEqual(names('u4'), [])
    assert.deepEqual(names(), [])
    assert.deepEqual(names(''), [])
    const context = { userId: 'u3' }
    assert.equal(evaluator.isEnabled('b', context), true)
    context.userId = 'u1'
    assert.equal(evaluator.isEnabled('b', context), false)
    assert.equal(evaluator.isEnabled('c', context), true)
  })

  test('flexibleRollout at 100 % needs no hash but still needs a stickiness value; at 0 % nobody', () => {
    const rollout = (percent: string) =>
      on(`rollout-${percent}`, {
        strategies: [{ name: 'flexibleRollout', parameters: { rollout: percent, stickiness: 'userId', groupId: 'g' } }],
      })
    const evaluator = createEvaluator(payload([rollout('100'), rollout('0')]))
    assert.equal(evaluator.isEnabled('rollout-100', { userId: 'anyone' }), true)
    assert.equal(evaluator.isEnabled('rollout-100', {}), false)
    assert.equal(evaluator.isEnabled('rollout-0', { userId: 'anyone' }), false)
  })
})
