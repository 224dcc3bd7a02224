/**
 * The playground through the real app on each database: exact answers for a constraint that
 * refuses, a segment, a rollout's bucket, a dependency, variants (override, weight, strategy),
 * disabled and custom strategies; the advanced playground's combinations and warnings; its bounds.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  apiToken,
  call,
  errorOf,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import { compileRegex, MAX_REGEX_WORK } from '../evaluation/regex.ts'
import { createFlag, createProject, depend } from '../../../test/helpers/flags.ts'
import { addStrategy, jsonOk, placePath, toggle } from '../../../test/helpers/strategies.ts'
import { loadConfig } from '../../config.ts'
import { MAX_REQUEST_REGEX_WORK } from './playground-service.ts'

// The limits by default: the reference's 15,000 evaluations, 64 Mi characters of answer.
const { playgroundMaxEvaluations: MAX_EVALUATIONS, playgroundMaxAnswerCharacters: MAX_ANSWER_CHARACTERS } = loadConfig({})

const PLAYGROUND = '/api/admin/playground'
const ADVANCED = '/api/admin/playground/advanced'
const DEV = 'development'
const PROD = 'production'

const link = (feature: string, environment: string, id: string) =>
  `/projects/default/features/${feature}/strategies/edit?environmentId=${environment}&strategyId=${id}`
const disabledVariant = { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false }
const noVariant = { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }
const constraint = (contextName: string, operator: string, values: string[], result: boolean) => ({
  contextName,
  operator,
  caseInsensitive: false,
  inverted: false,
  values,
  result,
})
const noExplanation = { enabledBy: null, dependency: null, variant: null }

async function switchedOn(pennon: TestApp, name: string, strategies: Record<string, unknown>[], environment = DEV): Promise<string[]> {
  await createFlag(pennon, name)
  const ids: string[] = []
  for (const strategy of strategies) ids.push((await addStrategy(pennon, name, environment, strategy)).id)
  assert.equal((await toggle(pennon, name, environment, 'on')).status, 200)
  return ids
}

async function segment(pennon: TestApp, name: string, constraints: unknown[]): Promise<number> {
  const response = await call(pennon, 'POST', '/api/admin/segments', { name, constraints })
  assert.equal(response.status, 201, response.text)
  return response.body.id
}

onEachDatabase('playground', (database) => {
  test('each flag explains itself: a constraint that refuses, a segment, a rollout with its bucket', async (t) => {
    const pennon = await useTestApp(t, database)
    const eu = await segment(pennon, 'eu-users', [{ contextName: 'region', operator: 'IN', values: ['eu'] }])
    const rollout = { rollout: '50', stickiness: 'default', groupId: 'checkout' }
    const [plans, half] = await switchedOn(pennon, 'checkout', [
      { name: 'default', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro', 'team'] }] },
      { name: 'flexibleRollout', parameters: rollout, segments: [eu], title: 'Half of Europe' },
    ])
    const body = { environment: DEV, context: { appName: 'web', userId: '9', properties: { plan: 'free', region: 'eu' } } }
    const strategies = (userId: string, bucket: number, region: string) => [
      {
        name: 'default',
        id: plans,
        disabled: false,
        parameters: {},
        result: { evaluationStatus: 'complete', enabled: false },
        constraints: [constraint('plan', 'IN', ['pro', 'team'], false)],
        segments: [],
        links: { edit: link('checkout', DEV, plans!) },
      },
      {
        name: 'flexibleRollout',
        id: half,
        title: 'Half of Europe',
        disabled: false,
        parameters: rollout,
        result: {
          evaluationStatus: 'complete',
          enabled: bucket <= 50 && region === 'eu',
          rollout: { percentage: 50, groupId: 'checkout', stickiness: 'userId', value: userId, bucket },
        },
        constraints: [],
        segments: [
          { id: eu, name: 'eu-users', result: region === 'eu', constraints: [constraint('region', 'IN', ['eu'], region === 'eu')] },
        ],
        links: { edit: link('checkout', DEV, half!) },
      },
    ]
    // userId 9 is in bucket 34 of `checkout`: within 50 %.
    const on = await call(pennon, 'POST', PLAYGROUND, body)
    assert.equal(on.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(jsonOk(on), {
      input: body,
      features: [
        {
          isEnabled: true,
          isEnabledInCurrentEnvironment: true,
          hasUnsatisfiedDependency: false,
          variant: noVariant,
          variants: [],
          name: 'checkout',
          projectId: 'default',
          strategies: { result: true, data: strategies('9', 34, 'eu') },
          explanation: { enabledBy: half, dependency: null, variant: null },
        },
      ],
    })
    // userId 7 is in bucket 63: the rollout says no; in region us the segment says no too.
    const off = { ...body, context: { ...body.context, userId: '7', properties: { plan: 'free', region: 'us' } } }
    assert.deepEqual(jsonOk(await call(pennon, 'POST', PLAYGROUND, off)).features, [
      {
        isEnabled: false,
        isEnabledInCurrentEnvironment: true,
        hasUnsatisfiedDependency: false,
        variant: disabledVariant,
        variants: [],
        name: 'checkout',
        projectId: 'default',
        strategies: { result: false, data: strategies('7', 63, 'us') },
        explanation: noExplanation,
      },
    ])
  })

  test('a dependency: the child names its parent and what the parent answered', async (t) => {
    const pennon = await useTestApp(t, database)
    const [parentStrategy] = await switchedOn(pennon, 'parent', [
      { name: 'default', constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }] },
    ])
    const [childStrategy] = await switchedOn(pennon, 'child', [{ name: 'default' }])
    await depend(pennon, 'child', 'parent')
    const body = { environment: DEV, projects: ['default'], context: { appName: 'web', properties: { region: 'us' } } }
    assert.deepEqual(jsonOk(await call(pennon, 'POST', PLAYGROUND, body)), {
      input: body,
      features: [
        {
          isEnabled: false,
          isEnabledInCurrentEnvironment: true,
          hasUnsatisfiedDependency: true,
          variant: disabledVariant,
          variants: [],
          name: 'child',
          projectId: 'default',
          strategies: {
            result: true,
            data: [
              {
                name: 'default',
                id: childStrategy,
                disabled: false,
                parameters: {},
                result: { evaluationStatus: 'complete', enabled: true },
                constraints: [],
                segments: [],
                links: { edit: link('child', DEV, childStrategy!) },
              },
            ],
          },
          explanation: {
            enabledBy: childStrategy,
            dependency: { feature: 'parent', enabled: true, parentEnabled: false, satisfied: false },
            variant: null,
          },
        },
        {
          isEnabled: false,
          isEnabledInCurrentEnvironment: true,
          hasUnsatisfiedDependency: false,
          variant: disabledVariant,
          variants: [],
          name: 'parent',
          projectId: 'default',
          strategies: {
            result: false,
            data: [
              {
                name: 'default',
                id: parentStrategy,
                disabled: false,
                parameters: {},
                result: { evaluationStatus: 'complete', enabled: false },
                constraints: [constraint('region', 'IN', ['eu'], false)],
                segments: [],
                links: { edit: link('parent', DEV, parentStrategy!) },
              },
            ],
          },
          explanation: noExplanation,
        },
      ],
    })
    const inEu = jsonOk(await call(pennon, 'POST', PLAYGROUND, { ...body, context: { appName: 'web', properties: { region: 'eu' } } }))
    assert.deepEqual(
      inEu.features.map((feature: any) => [feature.name, feature.isEnabled, feature.explanation.dependency]),
      [
        ['child', true, { feature: 'parent', enabled: true, parentEnabled: true, satisfied: true }],
        ['parent', true, null],
      ],
    )
  })

  test("variants: an override, a weight bucket, and a strategy's variants, each saying how it was chosen", async (t) => {
    const pennon = await useTestApp(t, database)
    const [colorsStrategy] = await switchedOn(pennon, 'colors', [{ name: 'default' }])
    const variants = [
      { name: 'blue', weight: 500, weightType: 'fix', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['vip'] }] },
      { name: 'red', weight: 500, weightType: 'fix', stickiness: 'default', overrides: [] },
    ]
    assert.equal((await call(pennon, 'PUT', `${placePath('colors', DEV)}/variants`, variants)).status, 200)
    const big = { name: 'big', weight: 1000, weightType: 'fix', stickiness: 'default', payload: { type: 'string', value: 'x' } }
    const [bannerStrategy] = await switchedOn(pennon, 'banner', [
      { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'banner' }, variants: [big] },
    ])
    const ask = async (userId: string) =>
      jsonOk(await call(pennon, 'POST', PLAYGROUND, { environment: DEV, context: { appName: 'web', userId } })).features
    const colors = (_userId: string, variant: string, explanation: Record<string, unknown>) => ({
      isEnabled: true,
      isEnabledInCurrentEnvironment: true,
      hasUnsatisfiedDependency: false,
      variant: { name: variant, enabled: true, feature_enabled: true, featureEnabled: true },
      variants,
      name: 'colors',
      projectId: 'default',
      strategies: {
        result: true,
        data: [
          {
            name: 'default',
            id: colorsStrategy,
            disabled: false,
            parameters: {},
            result: { evaluationStatus: 'complete', enabled: true },
            constraints: [],
            segments: [],
            links: { edit: link('colors', DEV, colorsStrategy!) },
          },
        ],
      },
      explanation: { enabledBy: colorsStrategy, dependency: null, variant: { source: 'environment', ...explanation } },
    })
    const banner = (userId: string, rolloutBucket: number, variantBucket: number) => ({
      isEnabled: true,
      isEnabledInCurrentEnvironment: true,
      hasUnsatisfiedDependency: false,
      variant: { name: 'big', enabled: true, payload: { type: 'string', value: 'x' }, feature_enabled: true, featureEnabled: true },
      variants: [big],
      name: 'banner',
      projectId: 'default',
      strategies: {
        result: true,
        data: [
          {
            name: 'flexibleRollout',
            id: bannerStrategy,
            disabled: false,
            parameters: { rollout: '100', stickiness: 'default', groupId: 'banner' },
            result: {
              evaluationStatus: 'complete',
              enabled: true,
              variant: { name: 'big', enabled: true, payload: { type: 'string', value: 'x' } },
              variants: [big],
              rollout: { percentage: 100, groupId: 'banner', stickiness: 'userId', value: userId, bucket: rolloutBucket },
            },
            constraints: [],
            segments: [],
            links: { edit: link('banner', DEV, bannerStrategy!) },
          },
        ],
      },
      explanation: {
        enabledBy: bannerStrategy,
        dependency: null,
        variant: {
          source: 'strategy',
          strategyId: bannerStrategy,
          stickiness: 'userId',
          value: userId,
          bucket: variantBucket,
          totalWeight: 1000,
        },
      },
    })
    // userId 7: bucket 258 of 1000 for `colors` (blue holds 1–500); in the strategy's group `banner`, rollout bucket 40 and variant bucket 514.
    assert.deepEqual(await ask('7'), [
      banner('7', 40, 514),
      colors('7', 'blue', { stickiness: 'userId', value: '7', bucket: 258, totalWeight: 1000 }),
    ])
    // userId 42: bucket 752, red. vip: blue by its override, whatever its bucket.
    assert.deepEqual(await ask('42'), [
      banner('42', 55, 898),
      colors('42', 'red', { stickiness: 'userId', value: '42', bucket: 752, totalWeight: 1000 }),
    ])
    assert.deepEqual(await ask('vip'), [
      banner('vip', 29, 850),
      colors('vip', 'blue', { override: { contextName: 'userId', value: 'vip' }, totalWeight: 1000 }),
    ])
  })

  test('a disabled strategy is unevaluated, a custom one incomplete; a switched-off flag is still explained', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/strategies', { name: 'my-own', parameters: [] })).status, 201)
    const [disabled, custom] = await switchedOn(pennon, 'mixed', [
      { name: 'default', disabled: true, constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] },
      { name: 'my-own', parameters: {} },
    ])
    await createFlag(pennon, 'dark')
    const [dark] = [(await addStrategy(pennon, 'dark', DEV, { name: 'default' })).id]
    const body = { environment: DEV, context: { appName: 'web', userId: '1' } }
    // `*` among the projects is every project, as alone.
    assert.deepEqual(
      jsonOk(await call(pennon, 'POST', PLAYGROUND, { ...body, projects: ['*'] })).features,
      jsonOk(await call(pennon, 'POST', PLAYGROUND, body)).features,
    )
    assert.deepEqual(jsonOk(await call(pennon, 'POST', PLAYGROUND, body)).features, [
      {
        isEnabled: false,
        isEnabledInCurrentEnvironment: false,
        hasUnsatisfiedDependency: false,
        variant: disabledVariant,
        variants: [],
        name: 'dark',
        projectId: 'default',
        strategies: {
          result: true,
          data: [
            {
              name: 'default',
              id: dark,
              disabled: false,
              parameters: {},
              result: { evaluationStatus: 'complete', enabled: true },
              constraints: [],
              segments: [],
              links: { edit: link('dark', DEV, dark) },
            },
          ],
        },
        explanation: { enabledBy: dark, dependency: null, variant: null },
      },
      {
        isEnabled: false,
        isEnabledInCurrentEnvironment: true,
        hasUnsatisfiedDependency: false,
        variant: disabledVariant,
        variants: [],
        name: 'mixed',
        projectId: 'default',
        strategies: {
          result: 'unknown',
          data: [
            {
              name: 'default',
              id: disabled,
              disabled: true,
              parameters: {},
              result: { evaluationStatus: 'unevaluated', enabled: 'unknown' },
              constraints: [constraint('userId', 'IN', ['1'], true)],
              segments: [],
              links: { edit: link('mixed', DEV, disabled!) },
            },
            {
              name: 'my-own',
              id: custom,
              disabled: false,
              parameters: {},
              result: { evaluationStatus: 'incomplete', enabled: 'unknown' },
              constraints: [],
              segments: [],
              links: { edit: link('mixed', DEV, custom!) },
            },
          ],
        },
        explanation: noExplanation,
      },
    ])
  })

  test('the playground answers as the frontend API: the same flags, enabled and variants, for the same context', async (t) => {
    const pennon = await useTestApp(t, database)
    await switchedOn(pennon, 'half', [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'half' } }])
    await switchedOn(pennon, 'pro', [{ name: 'default', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'] }] }])
    await switchedOn(pennon, 'split', [{ name: 'default' }])
    assert.equal(
      (
        await call(pennon, 'PUT', `${placePath('split', DEV)}/variants`, [
          { name: 'a', weight: 500, weightType: 'fix' },
          { name: 'b', weight: 500, weightType: 'fix' },
        ])
      ).status,
      200,
    )
    await createFlag(pennon, 'never')
    const token = await apiToken(pennon, 'frontend', 'frontend')
    for (let userId = 0; userId < 20; userId++) {
      const context = {
        appName: 'web',
        userId: String(userId),
        sessionId: 's',
        remoteAddress: '10.0.0.1',
        properties: { plan: userId % 3 === 0 ? 'pro' : 'free' },
      }
      const frontend = jsonOk(await call(pennon, 'POST', '/api/frontend', { context }, { token })).toggles
      const played = jsonOk(await call(pennon, 'POST', PLAYGROUND, { environment: DEV, context })).features
      assert.deepEqual(
        played
          .filter((feature: any) => feature.isEnabled)
          .map((feature: any) => ({ name: feature.name, enabled: true, variant: feature.variant, impressionData: false })),
        frontend,
        `userId ${userId}`,
      )
      assert.equal(played.length, 4)
    }
  })

  test('advanced: every combination of comma-separated values, in every environment; non-text fields are warned about', async (t) => {
    const pennon = await useTestApp(t, database)
    const [only] = await switchedOn(pennon, 'f', [
      { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] },
    ])
    const body = {
      environments: [DEV, PROD],
      context: { appName: 'web', userId: '1,2', invalid: {}, count: 3, properties: { region: 'eu,us' } },
    }
    const inDev = (userId: string, region: string) => ({
      isEnabled: userId === '1',
      isEnabledInCurrentEnvironment: true,
      hasUnsatisfiedDependency: false,
      variant: userId === '1' ? noVariant : disabledVariant,
      context: { userId, region, appName: 'web' },
      variants: [],
      name: 'f',
      environment: DEV,
      projectId: 'default',
      strategies: {
        result: userId === '1',
        data: [
          {
            name: 'default',
            id: only,
            disabled: false,
            parameters: {},
            result: { evaluationStatus: 'complete', enabled: userId === '1' },
            constraints: [constraint('userId', 'IN', ['1'], userId === '1')],
            segments: [],
            links: { edit: link('f', DEV, only!) },
          },
        ],
      },
      explanation: { enabledBy: userId === '1' ? only : null, dependency: null, variant: null },
    })
    const inProd = (userId: string, region: string) => ({
      isEnabled: false,
      isEnabledInCurrentEnvironment: false,
      hasUnsatisfiedDependency: false,
      variant: disabledVariant,
      context: { userId, region, appName: 'web' },
      variants: [],
      name: 'f',
      environment: PROD,
      projectId: 'default',
      strategies: { result: false, data: [] },
      explanation: noExplanation,
    })
    const pairs = [
      ['1', 'eu'],
      ['1', 'us'],
      ['2', 'eu'],
      ['2', 'us'],
    ] as const
    assert.deepEqual(jsonOk(await call(pennon, 'POST', ADVANCED, body)), {
      features: [
        {
          name: 'f',
          projectId: 'default',
          environments: { [DEV]: pairs.map(([u, r]) => inDev(u, r)), [PROD]: pairs.map(([u, r]) => inProd(u, r)) },
        },
      ],
      input: body,
      warnings: { invalidContextProperties: ['invalid', 'count'] },
    })
    // Without invalid fields, no warnings; an environment named twice is evaluated once; no flag in the projects, no features.
    await createProject(pennon, 'empty')
    assert.deepEqual(
      jsonOk(await call(pennon, 'POST', ADVANCED, { environments: [DEV, DEV], projects: ['empty'], context: { appName: 'a,b' } })),
      {
        features: [],
        input: { environments: [DEV, DEV], projects: ['empty'], context: { appName: 'a,b' } },
      },
    )
    const twice = jsonOk(await call(pennon, 'POST', ADVANCED, { environments: [DEV, DEV], context: { appName: 'a,b' } }))
    assert.deepEqual(Object.keys(twice.features[0].environments), [DEV])
    assert.deepEqual(
      twice.features[0].environments[DEV].map((entry: any) => entry.context),
      [{ appName: 'a' }, { appName: 'b' }],
    )
  })

  test("bounds: combinations, evaluations, REGEX work and the answer's length each have a limit, answered with a 400 that says which", async (t) => {
    const pennon = await useTestApp(t, database)
    await switchedOn(pennon, 'one', [{ name: 'default' }])
    await switchedOn(pennon, 'two', [{ name: 'default' }])
    const values = (count: number) => Array.from({ length: count }, (_, i) => String(i)).join(',')
    const refused = async (body: unknown, name: string, message: string) => {
      const response = await call(pennon, 'POST', ADVANCED, body)
      assert.equal(response.status, 400, response.text)
      assert.deepEqual(withoutId(response.body), errorOf(name, message))
    }
    await refused(
      { environments: [DEV], context: { appName: 'a', userId: values(200), sessionId: values(100) } },
      'ExceedsLimitError',
      `The context's comma-separated values make 20000 combinations, more than the limit of ${MAX_EVALUATIONS}. Send fewer values.`,
    )
    await refused(
      { environments: [DEV, PROD], context: { appName: 'a', userId: values(11), sessionId: values(341) } },
      'ExceedsLimitError',
      `This would make 15004 evaluations (2 environments × 2 flags × 3751 context combinations), more than the limit of ${MAX_EVALUATIONS}. Ask for fewer environments, projects or context values.`,
    )
    assert.equal(
      (
        await call(pennon, 'POST', ADVANCED, {
          environments: [DEV, PROD],
          context: { appName: 'a', userId: values(10), sessionId: values(375) },
        })
      ).status,
      200,
    )

    // REGEX: per context as the frontend API, and over the whole request.
    const pattern = '[a-z]{1,200}!'
    await createFlag(pennon, 'regex')
    await addStrategy(pennon, 'regex', DEV, { name: 'default', constraints: [{ contextName: 'email', operator: 'REGEX', value: pattern }] })
    const size = compileRegex(pattern, false)!.programSize()
    const longest = Math.floor(MAX_REGEX_WORK / size)
    const tooLong = (longest + 1) * size
    const message = `The context's values are too long for this instance's REGEX constraints: matching them would cost ${tooLong} units of work (each value's length times the program size of the patterns on its field), more than the limit of ${MAX_REGEX_WORK} per context. Send shorter values.`
    const simple = await call(pennon, 'POST', PLAYGROUND, {
      environment: DEV,
      context: { appName: 'a', properties: { email: 'a'.repeat(longest + 1) } },
    })
    assert.equal(simple.status, 400)
    assert.deepEqual(withoutId(simple.body), errorOf('ValidationError', message))
    await refused({ environments: [DEV], context: { appName: 'a', email: 'a'.repeat(longest + 1) } }, 'ValidationError', message)
    assert.equal(
      (await call(pennon, 'POST', PLAYGROUND, { environment: DEV, context: { appName: 'a', properties: { email: 'a'.repeat(longest) } } }))
        .status,
      200,
    )
    const contexts = Math.floor(MAX_REQUEST_REGEX_WORK / (longest * size)) + 1
    await refused(
      { environments: [DEV], context: { appName: values(contexts), email: 'a'.repeat(longest) } },
      'ExceedsLimitError',
      `Matching this instance's REGEX constraints for every context combination would cost ${contexts * longest * size} units of work, more than the limit of ${MAX_REQUEST_REGEX_WORK} per request. Send fewer or shorter values.`,
    )
  })

  test('bounds: PLAYGROUND_MAX_EVALUATIONS and PLAYGROUND_MAX_ANSWER_MB set the limits', async (t) => {
    const pennon = await useTestApp(t, database, { env: { PLAYGROUND_MAX_EVALUATIONS: '20000', PLAYGROUND_MAX_ANSWER_MB: '1' } })
    await switchedOn(pennon, 'one', [{ name: 'default' }])
    await switchedOn(pennon, 'two', [{ name: 'default' }])
    const ids = (count: number) => Array.from({ length: count }, (_, i) => String(i)).join(',')
    const ask = (users: number, sessions: number) =>
      call(pennon, 'POST', ADVANCED, { environments: [DEV], context: { appName: 'a', userId: ids(users), sessionId: ids(sessions) } })
    const refused = async (users: number, sessions: number, message: string) => {
      const response = await ask(users, sessions)
      assert.equal(response.status, 400, response.text.slice(0, 200))
      assert.deepEqual(withoutId(response.body), errorOf('ExceedsLimitError', message))
    }
    await refused(
      101,
      100,
      'This would make 20200 evaluations (1 environment × 2 flags × 10100 context combinations), more than the limit of 20000. Ask for fewer environments, projects or context values.',
    )
    // 10,000 evaluations: allowed, but their answer is longer than 1 Mi characters.
    await refused(
      100,
      50,
      `The answer would be longer than ${1024 * 1024} characters: each flag's explanation repeats its strategies, constraints and segments for every context. Ask for fewer environments, projects or context values.`,
    )
    const fits = await ask(10, 10)
    assert.equal(fits.status, 200)
    assert.deepEqual(
      fits.body.features.map((feature: any) => [feature.name, feature.environments[DEV].length]),
      [
        ['one', 100],
        ['two', 100],
      ],
    )
  })

  test('bounds: an answer past its length limit is refused before more is evaluated', async (t) => {
    const pennon = await useTestApp(t, database)
    // A strategy of 1,000 values of 100 characters: some 100 kB of explanation per flag and context.
    const long = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(4, '0')}${'v'.repeat(96)}`)
    await switchedOn(pennon, 'wide', [{ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: long }] }])
    const perContext = JSON.stringify(
      jsonOk(await call(pennon, 'POST', ADVANCED, { environments: [DEV], context: { appName: 'a' } })).features[0].environments[DEV][0],
    ).length
    const contexts = Math.ceil(MAX_ANSWER_CHARACTERS / perContext) + 1
    const appNames = Array.from({ length: contexts }, () => 'a').join(',')
    const response = await call(pennon, 'POST', ADVANCED, { environments: [DEV], context: { appName: appNames } })
    assert.equal(response.status, 400, response.text.slice(0, 200))
    assert.deepEqual(
      withoutId(response.body),
      errorOf(
        'ExceedsLimitError',
        `The answer would be longer than ${MAX_ANSWER_CHARACTERS} characters: each flag's explanation repeats its strategies, constraints and segments for every context. Ask for fewer environments, projects or context values.`,
      ),
    )
  })

  test('unknown environments and projects are a 400 naming each; any admin-API credential may ask, no SDK token', async (t) => {
    const pennon = await useTestApp(t, database)
    const response = await call(pennon, 'POST', ADVANCED, {
      environments: [DEV, 'staging'],
      projects: ['default', 'nope', '*'],
      context: { appName: 'a' },
    })
    assert.equal(response.status, 400)
    const environment =
      'The `/body/environments/1` property must be the name of an existing environment. Environment "staging" does not exist.'
    const project = 'The `/body/projects/1` property must be the id of an existing project. Project "nope" does not exist.'
    assert.deepEqual(withoutId(response.body), {
      name: 'ValidationError',
      message: `${environment} (1 more problem listed in details)`,
      details: [
        { path: '/body/environments/1', message: environment },
        { path: '/body/projects/1', message: project },
      ],
    })
    const simple = await call(pennon, 'POST', PLAYGROUND, { environment: 'staging', context: { appName: 'a' } })
    assert.equal(simple.status, 400)
    assert.deepEqual(withoutId(simple.body).details, [
      {
        path: '/body/environment',
        message: 'The `/body/environment` property must be the name of an existing environment. Environment "staging" does not exist.',
      },
    ])

    const missingAppName = await call(pennon, 'POST', PLAYGROUND, { environment: DEV, context: {} })
    assert.equal(missingAppName.status, 400)
    assert.equal(missingAppName.body.details[0].path, '/body/context/appName')

    const body = { environment: DEV, context: { appName: 'a' } }
    const viewer = await serviceAccountToken(pennon, 3)
    assert.deepEqual(jsonOk(await call(pennon, 'POST', PLAYGROUND, body, { token: viewer })), { input: body, features: [] })
    for (const kind of ['client', 'frontend'] as const) {
      const token = await apiToken(pennon, kind, `${kind}-token`)
      assert.equal((await call(pennon, 'POST', PLAYGROUND, body, { token })).status, 403)
      assert.equal((await call(pennon, 'POST', ADVANCED, { environments: [DEV], context: { appName: 'a' } }, { token })).status, 403)
    }
    assert.equal((await call(pennon, 'POST', PLAYGROUND, body, { token: null })).status, 401)
  })
})
