/**
 * The console's playground sentences (console/assets/js/playground-explain.js), from answers in
 * the shapes POST /api/admin/playground gives (as its API test asserts them).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { constraintText, explainFeature, strategyReasons } from '../console/assets/js/playground-explain.js'

const constraint = (contextName: string, operator: string, values: string[], result: boolean) => ({
  contextName,
  operator,
  caseInsensitive: false,
  inverted: false,
  values,
  result,
})
const complete = (enabled: boolean) => ({ evaluationStatus: 'complete' as const, enabled })
const disabledVariant = { name: 'disabled', enabled: false }
const strategy = (fields: Record<string, unknown>) => ({
  name: 'default',
  id: 's1',
  disabled: false,
  parameters: {},
  result: complete(true),
  constraints: [],
  segments: [],
  ...fields,
})

function feature(fields: Record<string, unknown>) {
  return {
    name: 'checkout',
    projectId: 'default',
    isEnabled: false,
    isEnabledInCurrentEnvironment: true,
    hasUnsatisfiedDependency: false,
    variant: disabledVariant,
    variants: [],
    strategies: { result: false, data: [] },
    explanation: { enabledBy: null, dependency: null, variant: null },
    ...fields,
  } as Parameters<typeof explainFeature>[0]
}

test('a constraint that refuses: the headline names the strategy, the constraint and the value the context gave', () => {
  const flag = feature({
    strategies: { result: false, data: [strategy({ result: complete(false), constraints: [constraint('region', 'IN', ['eu'], false)] })] },
  })
  const story = explainFeature(flag, { appName: 'web', properties: { region: 'us' } }, 'development')
  assert.equal(story.state, 'off')
  assert.equal(story.headline, "off: strategy 1's constraint `region IN [eu]` is false for region=us")
  assert.deepEqual(story.strategies, [
    { label: 'strategy 1 (default)', verdict: 'fails', reasons: ['constraint `region IN [eu]` is false for region=us'] },
  ])
  assert.equal(story.variant, 'no variant: the flag is off')
  assert.equal(story.dependency, null)
  // A field the context lacks is said to be missing.
  assert.equal(
    explainFeature(flag, { appName: 'web' }, 'development').headline,
    "off: strategy 1's constraint `region IN [eu]` is false for region, which the context does not set",
  )
})

test('the same flag when the constraint holds: on, by that strategy, with no variant', () => {
  const flag = feature({
    isEnabled: true,
    variant: { name: 'disabled', enabled: false },
    strategies: { result: true, data: [strategy({ constraints: [constraint('region', 'IN', ['eu'], true)] })] },
    explanation: { enabledBy: 's1', dependency: null, variant: null },
  })
  const story = explainFeature(flag, { appName: 'web', properties: { region: 'eu' } }, 'development')
  assert.equal(story.state, 'on')
  assert.equal(story.headline, 'on: strategy 1 holds: constraint `region IN [eu]` is true for region=eu')
  assert.equal(story.variant, 'no variant: the flag has no variants here')
})

test('a segment and a rollout: every reason a strategy fails, and the bucket that let another hold', () => {
  const rollout = (value: string, bucket: number) => ({ percentage: 50, groupId: 'checkout', stickiness: 'userId', value, bucket })
  const segment = (result: boolean) => ({ id: 1, name: 'eu-users', result, constraints: [constraint('region', 'IN', ['eu'], result)] })
  const strategies = (bucket: number, region: boolean) => [
    strategy({ result: complete(false), constraints: [constraint('plan', 'IN', ['pro', 'team'], false)] }),
    strategy({
      name: 'flexibleRollout',
      id: 's2',
      title: 'Half of Europe',
      parameters: { rollout: '50' },
      result: { ...complete(bucket <= 50 && region), rollout: rollout('7', bucket) },
      segments: [segment(region)],
    }),
  ]
  const off = explainFeature(
    feature({ strategies: { result: false, data: strategies(63, false) } }),
    { appName: 'web', userId: '7', properties: { plan: 'free', region: 'us' } },
    'development',
  )
  assert.equal(
    off.headline,
    "off: none of its 2 strategies holds (strategy 1's constraint `plan IN [pro, team]` is false for plan=free; strategy 2's segment `eu-users` is false: its constraint `region IN [eu]` is false for region=us)",
  )
  assert.deepEqual(off.strategies[1], {
    label: 'strategy 2 (Half of Europe, flexibleRollout)',
    verdict: 'fails',
    reasons: [
      'segment `eu-users` is false: its constraint `region IN [eu]` is false for region=us',
      'rollout: userId=7 is in bucket 63 of group checkout, above 50%',
    ],
  })
  assert.deepEqual(off.segments, ['`eu-users` (in strategy 2) is false for this context'])

  const on = explainFeature(
    feature({
      isEnabled: true,
      strategies: { result: true, data: strategies(34, true) },
      explanation: { enabledBy: 's2', dependency: null, variant: null },
    }),
    { appName: 'web', userId: '7', properties: { plan: 'free', region: 'eu' } },
    'development',
  )
  assert.equal(
    on.headline,
    'on: strategy 2 holds: segment `eu-users` is true; rollout: userId=7 is in bucket 34 of group checkout, within 50%',
  )
  // A rollout alone that refuses; a rollout without the value it sticks to.
  assert.deepEqual(strategyReasons(strategy({ result: { ...complete(false), rollout: rollout('7', 63) } }) as never, {}).reasons, [
    'rollout: userId=7 is in bucket 63 of group checkout, above 50%',
  ])
  assert.deepEqual(
    strategyReasons(
      strategy({
        result: { ...complete(false), rollout: { percentage: 50, groupId: 'g', stickiness: 'default', value: null, bucket: null } },
      }) as never,
      {},
    ).reasons,
    ['rollout: by default, which the context does not set, so nobody is in it'],
  )
})

test('switched off, an unsatisfied parent, paused and custom strategies', () => {
  const dark = feature({ isEnabledInCurrentEnvironment: false, strategies: { result: true, data: [strategy({})] } })
  assert.equal(explainFeature(dark, {}, 'production').headline, 'off: switched off in production (were it on, strategy 1 would hold)')

  const dependency = { feature: 'parent', enabled: true, parentEnabled: false, satisfied: false }
  const child = feature({
    hasUnsatisfiedDependency: true,
    strategies: { result: true, data: [strategy({})] },
    explanation: { enabledBy: 's1', dependency, variant: null },
  })
  const story = explainFeature(child, {}, 'development')
  assert.equal(story.headline, 'off: depends on `parent` being on, and the parent is off for this context: not satisfied')
  assert.equal(story.dependency, 'depends on `parent` being on, and the parent is off for this context: not satisfied')
  const satisfied = { feature: 'parent', enabled: true, variants: ['blue'], parentEnabled: true, parentVariant: 'blue', satisfied: true }
  assert.equal(
    explainFeature(
      feature({
        isEnabled: true,
        strategies: { result: true, data: [strategy({})] },
        explanation: { enabledBy: 's1', dependency: satisfied, variant: null },
      }),
      {},
      'development',
    ).dependency,
    'depends on `parent` being on with variant blue, and the parent is on with variant blue for this context: satisfied',
  )

  const mixed = feature({
    strategies: {
      result: 'unknown',
      data: [
        strategy({ disabled: true, result: { evaluationStatus: 'unevaluated', enabled: 'unknown' } }),
        strategy({ name: 'my-own', id: 's2', result: { evaluationStatus: 'incomplete', enabled: 'unknown' } }),
      ],
    },
  })
  const mixedStory = explainFeature(mixed, {}, 'development')
  assert.equal(
    mixedStory.headline,
    "off here, unknown in an SDK: strategy 2's rule (my-own) is a custom strategy Pennon cannot evaluate: an SDK that implements it decides",
  )
  assert.deepEqual(
    mixedStory.strategies.map((item) => item.verdict),
    ['paused', 'unknown'],
  )
  assert.equal(explainFeature(feature({}), {}, 'development').headline, 'off: it has no strategy')
})

test("variants: by an override, by a bucket of the flag's variants, by a strategy's", () => {
  const on = (variant: string, choice: Record<string, unknown>) =>
    feature({
      isEnabled: true,
      variant: { name: variant, enabled: true },
      strategies: { result: true, data: [strategy({ id: 'a' }), strategy({ id: 'b', name: 'flexibleRollout' })] },
      explanation: { enabledBy: 'a', dependency: null, variant: choice },
    })
  assert.equal(
    explainFeature(
      on('blue', { source: 'environment', override: { contextName: 'userId', value: 'vip' }, totalWeight: 1000 }),
      { userId: 'vip' },
      'development',
    ).variant,
    "variant blue: the flag's variants override it for userId=vip",
  )
  assert.equal(
    explainFeature(
      on('red', { source: 'environment', stickiness: 'userId', value: '42', bucket: 752, totalWeight: 1000 }),
      { userId: '42' },
      'development',
    ).variant,
    "variant red: userId=42 is in bucket 752 of 1000, which falls to red by weight among the flag's variants",
  )
  assert.equal(
    explainFeature(
      on('big', { source: 'strategy', strategyId: 'b', stickiness: 'userId', value: '7', bucket: 514, totalWeight: 1000 }),
      { userId: '7' },
      'development',
    ).variant,
    'variant big: userId=7 is in bucket 514 of 1000, which falls to big by weight among the variants of strategy 2',
  )
})

test('constraint text: a single value, inverted, any case', () => {
  assert.equal(constraintText({ contextName: 'age', operator: 'NUM_GT', value: '40', values: [] }), 'age NUM_GT 40')
  assert.equal(
    constraintText({ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@x.io'], inverted: true, caseInsensitive: true }),
    'email NOT STR_ENDS_WITH [@x.io] (any case)',
  )
})
