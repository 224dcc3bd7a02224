import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { archive, createFlag, createProject, eventMark, getFlag, projectPath, revive } from '../../../test/helpers/flags.ts'
import {
  addStrategy,
  assertEmpty,
  at,
  defaultStrategy,
  fromOneRequestIn,
  jsonOk,
  listStrategies,
  placeEvent,
  placeOf,
  placePath,
  strategiesPath,
  toggle,
  ULID,
  validationError,
} from '../../../test/helpers/strategies.ts'

const DEV = 'development'
const PROD = 'production'

/** A flag's environment as the flag read shows it, off and empty unless told. */
const environment = (name: string, sortOrder: number, fields: Record<string, unknown> = {}) => ({
  name,
  lastSeenAt: null,
  enabled: false,
  type: name,
  sortOrder,
  variantCount: 0,
  strategies: [],
  variants: [],
  hasStrategies: false,
  hasEnabledStrategies: false,
  ...fields,
})

const bulk = (state: 'on' | 'off', features: unknown, environmentName = DEV, project = 'default') =>
  [`${projectPath(project)}/bulk_features/environments/${environmentName}/${state}`, { features }] as const

const variantsPath = (feature: string, environmentName = DEV) => `${placePath(feature, environmentName)}/variants`

onEachDatabase('flag environments', (database) => {
  test("a new flag is off, without strategies or variants, in each of its project's environments", async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'checkout')
    await createFlag(pennon, 'search', 'other')
    for (const [flag, project] of [
      ['checkout', 'default'],
      ['search', 'other'],
    ]) {
      assert.deepEqual((await getFlag(pennon, flag!, project)).environments, [environment(DEV, 2), environment(PROD, 3)])
    }
    const response = await call(pennon, 'GET', placePath('checkout', PROD))
    const place = jsonOk(response)
    assert.deepEqual(Object.keys(place), [
      'name',
      'lastSeenAt',
      'enabled',
      'type',
      'sortOrder',
      'variantCount',
      'strategies',
      'variants',
      'hasStrategies',
      'hasEnabledStrategies',
      'environment',
      'featureName',
    ])
    assert.deepEqual(place, { ...environment(PROD, 3), environment: PROD, featureName: 'checkout' })
    assert.deepEqual(jsonOk(await call(pennon, 'GET', strategiesPath('checkout', PROD))), [])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', variantsPath('checkout', PROD))), { version: 1, variants: [] })
  })

  test('on: the default strategy, then enabled, in one group; a second on writes nothing; off keeps the strategies', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    let mark = await eventMark(pennon)
    assertEmpty(await toggle(pennon, 'checkout', DEV, 'on'))
    const [added] = await listStrategies(pennon, 'checkout', DEV)
    assert.match(added.id, ULID)
    assert.deepEqual(added, defaultStrategy('checkout', added.id))
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      placeEvent('feature-strategy-add', 'checkout', DEV, added),
      placeEvent('feature-environment-enabled', 'checkout', DEV),
    ])
    assert.deepEqual((await getFlag(pennon, 'checkout')).environments, [
      environment(DEV, 2, { enabled: true, strategies: [added], hasStrategies: true, hasEnabledStrategies: true }),
      environment(PROD, 3),
    ])

    mark = await eventMark(pennon)
    assertEmpty(await toggle(pennon, 'checkout', DEV, 'on'))
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), [added])

    mark = await eventMark(pennon)
    assertEmpty(await toggle(pennon, 'checkout', DEV, 'off'))
    assert.deepEqual(fromOneRequestIn(await mark.since()), [placeEvent('feature-environment-disabled', 'checkout', DEV)])
    assertEmpty(await toggle(pennon, 'checkout', DEV, 'off'))
    assert.deepEqual((await mark.since()).length, 1, 'a second off writes nothing')
    const place = await placeOf(pennon, 'checkout', DEV)
    assert.deepEqual([place.enabled, place.strategies], [false, [added]])

    // Its strategy is active: on again adds none.
    mark = await eventMark(pennon)
    assertEmpty(await toggle(pennon, 'checkout', DEV, 'on'))
    assert.deepEqual(fromOneRequestIn(await mark.since()), [placeEvent('feature-environment-enabled', 'checkout', DEV)])
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), [added])
    assert.equal((await placeOf(pennon, 'checkout', PROD)).enabled, false)
  })

  test('on where every strategy is disabled adds the default one after them', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const first = await addStrategy(pennon, 'checkout', PROD, { name: 'default', disabled: true, sortOrder: 7 })
    const second = await addStrategy(pennon, 'checkout', PROD, { name: 'default', disabled: true, sortOrder: 3 })
    const mark = await eventMark(pennon)
    assertEmpty(await toggle(pennon, 'checkout', PROD, 'on'))
    const strategies = await listStrategies(pennon, 'checkout', PROD)
    assert.equal(strategies.length, 3)
    const added = strategies[2]
    assert.deepEqual(strategies, [second, first, defaultStrategy('checkout', added.id, 8)])
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      placeEvent('feature-strategy-add', 'checkout', PROD, added),
      placeEvent('feature-environment-enabled', 'checkout', PROD),
    ])
  })

  test('bulk on/off: every named flag in one group; an unknown, foreign or archived flag switches none', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    for (const name of ['b', 'a', 'c']) await createFlag(pennon, name)
    await createFlag(pennon, 'elsewhere', 'other')
    const mark = await eventMark(pennon)
    assertEmpty(await call(pennon, 'POST', ...bulk('on', ['b', 'a', 'b'])))
    const [a] = await listStrategies(pennon, 'a', DEV)
    const [b] = await listStrategies(pennon, 'b', DEV)
    assert.deepEqual([a, b], [defaultStrategy('a', a.id), defaultStrategy('b', b.id)])
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      placeEvent('feature-strategy-add', 'a', DEV, a),
      placeEvent('feature-environment-enabled', 'a', DEV),
      placeEvent('feature-strategy-add', 'b', DEV, b),
      placeEvent('feature-environment-enabled', 'b', DEV),
    ])

    assert.equal((await archive(pennon, ['c'])).status, 202)
    const unchanged = await eventMark(pennon)
    const refusals = [
      [bulk('off', ['a', 'ghost']), 404, errorOf('NotFoundError', 'There\'s no flag named "ghost" in project "default".')],
      [
        bulk('off', ['a', 'elsewhere']),
        404,
        errorOf('NotFoundError', 'There\'s no flag named "elsewhere" in project "default", but there is one in project "other".'),
      ],
      [bulk('off', ['a', 'c']), 400, errorOf('ArchivedFeatureError', 'Flag "c" is archived: revive it before changing it.')],
      [bulk('on', ['a'], 'nowhere'), 404, errorOf('NotFoundError', 'Environment "nowhere" does not exist.')],
      [bulk('on', ['a'], DEV, 'ghost'), 404, errorOf('NotFoundError', 'Project "ghost" does not exist.')],
      // The place is checked even for an empty batch.
      [bulk('on', [], DEV, 'ghost'), 404, errorOf('NotFoundError', 'Project "ghost" does not exist.')],
      [bulk('off', [], 'nowhere'), 404, errorOf('NotFoundError', 'Environment "nowhere" does not exist.')],
    ] as const
    for (const [[url, body], status, expected] of refusals) {
      const response = await call(pennon, 'POST', url, body)
      assert.equal(response.status, status, `${url} ${JSON.stringify(body)}`)
      assert.deepEqual(withoutId(response.body), expected)
    }
    const notArray = await call(pennon, 'POST', ...bulk('on', 'a'))
    assert.equal(notArray.status, 400)
    assert.equal(notArray.body.details[0].path, '/body/features')
    assertEmpty(await call(pennon, 'POST', ...bulk('off', [])))
    assert.deepEqual(await unchanged.since(), [])
    assert.deepEqual([(await placeOf(pennon, 'a', DEV)).enabled, (await placeOf(pennon, 'b', DEV)).enabled], [true, true])

    const off = await eventMark(pennon)
    assertEmpty(await call(pennon, 'POST', ...bulk('off', ['a', 'b'])))
    assert.deepEqual(fromOneRequestIn(await off.since()), [
      placeEvent('feature-environment-disabled', 'a', DEV),
      placeEvent('feature-environment-disabled', 'b', DEV),
    ])
  })

  test("every route of a flag's environment: a 404 that says which of project, flag and environment is wrong", async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'checkout')
    await createFlag(pennon, 'search', 'other')
    // An environment that exists but is not one of project default's.
    const staging = await call(pennon, 'POST', '/api/admin/environments', { name: 'staging', type: 'test' })
    assert.equal(staging.status, 201, staging.text)

    const wrong = [
      ['ghost', 'checkout', DEV, 'Project "ghost" does not exist.'],
      ['default', 'ghost', DEV, 'There\'s no flag named "ghost" in project "default".'],
      ['default', 'search', DEV, 'There\'s no flag named "search" in project "default", but there is one in project "other".'],
      ['default', 'checkout', 'nowhere', 'Environment "nowhere" does not exist.'],
      ['default', 'checkout', 'staging', 'Environment "staging" is not one of project "default"\'s environments.'],
    ] as const
    const mark = await eventMark(pennon)
    for (const [project, flag, env, message] of wrong) {
      const place = placePath(flag, env, project)
      const routes = [
        ['GET', place, undefined],
        ['POST', `${place}/on`, undefined],
        ['POST', `${place}/off`, undefined],
        ['GET', `${place}/strategies`, undefined],
        ['POST', `${place}/strategies`, { name: 'default' }],
        ['GET', `${place}/strategies/01ARZ3NDEKTSV4RRFFQ69G5FAV`, undefined],
        ['PUT', `${place}/strategies/01ARZ3NDEKTSV4RRFFQ69G5FAV`, {}],
        ['PATCH', `${place}/strategies/01ARZ3NDEKTSV4RRFFQ69G5FAV`, []],
        ['DELETE', `${place}/strategies/01ARZ3NDEKTSV4RRFFQ69G5FAV`, undefined],
        ['POST', `${place}/strategies/set-sort-order`, []],
        ['GET', `${place}/variants`, undefined],
        ['PUT', `${place}/variants`, []],
        ['PATCH', `${place}/variants`, []],
      ] as const
      for (const [method, url, body] of routes) {
        const response = await call(pennon, method, url, body)
        assert.equal(response.status, 404, `${method} ${url}: ${response.text}`)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
        assert.deepEqual(withoutId(response.body), errorOf('NotFoundError', message), `${method} ${url}`)
      }
    }
    assert.deepEqual(await mark.since(), [])
  })

  test('archiving takes a flag off everywhere and keeps its strategies; an archived flag refuses every change', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    assertEmpty(await toggle(pennon, 'checkout', DEV, 'on'))
    const prod = await addStrategy(pennon, 'checkout', PROD, { name: 'default' })
    const [dev] = await listStrategies(pennon, 'checkout', DEV)

    const mark = await eventMark(pennon)
    assert.equal((await archive(pennon, ['checkout'])).status, 202)
    // The log says where it was switched off (only where it was on).
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      { type: 'feature-archived', featureName: 'checkout', project: 'default', environment: null, data: null, preData: null },
      placeEvent('feature-environment-disabled', 'checkout', DEV),
    ])
    const enabledStrategies = { hasStrategies: true, hasEnabledStrategies: true }
    const off = [
      environment(DEV, 2, { strategies: [dev], ...enabledStrategies }),
      environment(PROD, 3, { strategies: [prod], ...enabledStrategies }),
    ]
    assert.deepEqual((await getFlag(pennon, 'checkout')).environments, off)
    assert.deepEqual(await placeOf(pennon, 'checkout', DEV), { ...off[0], environment: DEV, featureName: 'checkout' })

    const place = placePath('checkout', DEV)
    const writes = [
      ['POST', `${place}/on`, undefined],
      ['POST', `${place}/off`, undefined],
      ['POST', `${place}/strategies`, { name: 'default' }],
      ['PUT', `${place}/strategies/${dev.id}`, { title: 'x' }],
      ['PATCH', `${place}/strategies/${dev.id}`, [{ op: 'replace', path: '/title', value: 'x' }]],
      ['DELETE', `${place}/strategies/${dev.id}`, undefined],
      ['POST', `${place}/strategies/set-sort-order`, [{ id: dev.id, sortOrder: 5 }]],
      ['PUT', `${place}/variants`, [{ name: 'v' }]],
      ['PATCH', `${place}/variants`, [{ op: 'add', path: '/-', value: { name: 'v' } }]],
      ['POST', ...bulk('on', ['checkout'])],
    ] as const
    const refusedAt = await eventMark(pennon)
    for (const [method, url, body] of writes) {
      const response = await call(pennon, method, url, body)
      assert.equal(response.status, 400, `${method} ${url}`)
      assert.deepEqual(
        withoutId(response.body),
        errorOf('ArchivedFeatureError', 'Flag "checkout" is archived: revive it before changing it.'),
      )
    }
    assert.deepEqual(await refusedAt.since(), [])

    // Revived, it is still off, with its strategies.
    assert.equal((await revive(pennon, ['checkout'])).status, 200)
    assert.deepEqual((await getFlag(pennon, 'checkout')).environments, off)
  })

  test('variants: PUT normalizes and writes its event, an identical PUT writes nothing; PATCH edits the list', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    let mark = await eventMark(pennon)
    const sent = [
      {
        name: 'a',
        weightType: 'fix',
        weight: 201,
        payload: { type: 'string', value: 'x' },
        overrides: [{ contextName: 'userId', values: ['1', '2'] }],
      },
      { name: 'b', weight: 5 },
      { name: 'c', stickiness: 'userId', weightType: 'variable', payload: { type: 'csv', value: 'a,b' } },
    ]
    const variants = [
      {
        name: 'a',
        weight: 201,
        weightType: 'fix',
        stickiness: 'default',
        payload: { type: 'string', value: 'x' },
        overrides: [{ contextName: 'userId', values: ['1', '2'] }],
      },
      { name: 'b', weight: 400, weightType: 'variable', stickiness: 'default', overrides: [] },
      { name: 'c', weight: 399, weightType: 'variable', stickiness: 'userId', payload: { type: 'csv', value: 'a,b' }, overrides: [] },
    ]
    assert.deepEqual(jsonOk(await call(pennon, 'PUT', variantsPath('checkout'), sent)), { version: 1, variants })
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      placeEvent('feature-environment-variants-updated', 'checkout', DEV, { variants }, { variants: [] }),
    ])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', variantsPath('checkout'))), { version: 1, variants })
    const place = await placeOf(pennon, 'checkout', DEV)
    assert.deepEqual([place.variantCount, place.variants], [3, variants])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', variantsPath('checkout', PROD))), { version: 1, variants: [] })

    mark = await eventMark(pennon)
    assert.deepEqual(jsonOk(await call(pennon, 'PUT', variantsPath('checkout'), sent)), { version: 1, variants })
    assert.deepEqual(await mark.since(), [])

    // Removing the fixed one leaves the variable ones the whole 1000.
    const patched = [
      { ...variants[1], weight: 500 },
      { ...variants[2], weight: 500 },
    ]
    assert.deepEqual(jsonOk(await call(pennon, 'PATCH', variantsPath('checkout'), [{ op: 'remove', path: '/0' }])), {
      version: 1,
      variants: patched,
    })
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      placeEvent('feature-environment-variants-updated', 'checkout', DEV, { variants: patched }, { variants }),
    ])

    const refused = await eventMark(pennon)
    const patchRefusals: Array<[unknown[], Record<string, unknown>]> = [
      [
        [{ op: 'add', path: '/-', value: { weight: 5 } }],
        validationError(at('/body/2/name', 'The `/body/2/name` property is required. It was not present on the data you sent.')),
      ],
      [
        [{ op: 'remove', path: '/9' }],
        validationError(
          at(
            '/body/0/path',
            'Patch operation 0 ("remove") cannot apply: the `/body/0/path` property names array index "9", which does not exist (the array has 2 items).',
          ),
        ),
      ],
      [
        [{ op: 'copy', from: '/0', path: '/-' }],
        validationError(at('/body/2/name', 'The `/body/2/name` property must be unique among the variants: "b" is there twice.')),
      ],
    ]
    for (const [operations, expected] of patchRefusals) {
      const response = await call(pennon, 'PATCH', variantsPath('checkout'), operations)
      assert.equal(response.status, 400, JSON.stringify(operations))
      assert.deepEqual(withoutId(response.body), expected)
    }
    const putRefusals: Array<[unknown, Record<string, unknown>]> = [
      [
        [
          { name: 'x', weightType: 'fix', weight: 700, payload: { type: 'json', value: '[1,' } },
          { name: 'x', weightType: 'fix', weight: 400, payload: { type: 'number', value: '1e999' } },
          { name: 'y' },
        ],
        validationError(
          at('/body/0/payload/value', 'The `/body/0/payload/value` property must be valid JSON for a "json" payload. You sent "[1,".'),
          at('/body/1/name', 'The `/body/1/name` property must be unique among the variants: "x" is there twice.'),
          at(
            '/body/1/payload/value',
            'The `/body/1/payload/value` property must be a finite number for a "number" payload. You sent "1e999".',
          ),
          at('/body', "The `/body` property's fixed weights must sum to at most 1000. Yours sum to 1100."),
        ),
      ],
      [
        [{ name: 'x', weightType: 'fix', weight: 999 }],
        validationError(
          at('/body', "The `/body` property's weights must sum to 1000 when every variant's weight is fixed. Yours sum to 999."),
        ),
      ],
      [
        [{ name: 'x', weightType: 'fix' }, { name: 'y' }],
        validationError(
          at(
            '/body/0/weight',
            'The `/body/0/weight` property is required for a variant whose weightType is "fix". It was not present on the data you sent.',
          ),
        ),
      ],
    ]
    for (const [body, expected] of putRefusals) {
      const response = await call(pennon, 'PUT', variantsPath('checkout'), body)
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.deepEqual(withoutId(response.body), expected)
    }
    assert.equal((await call(pennon, 'PUT', variantsPath('checkout'), { variants: [] })).status, 400)
    assert.deepEqual(await refused.since(), [])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', variantsPath('checkout'))), { version: 1, variants: patched })

    assert.deepEqual(jsonOk(await call(pennon, 'PUT', variantsPath('checkout'), [])), { version: 1, variants: [] })
    assert.equal((await placeOf(pennon, 'checkout', DEV)).variantCount, 0)
  })

  test('permissions: a Viewer reads and is refused every change; an Editor switches flags and sets variants', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2, 'editor')
    const place = placePath('checkout', DEV)

    for (const url of [place, `${place}/strategies`, `${place}/variants`, `${projectPath()}/features/checkout`]) {
      const response = await call(pennon, 'GET', url, undefined, { token: viewer })
      assert.equal(response.status, 200, url)
    }
    const writes = [
      ['POST', `${place}/on`, undefined, 'UPDATE_FEATURE_ENVIRONMENT'],
      ['POST', ...bulk('on', ['checkout']), 'UPDATE_FEATURE_ENVIRONMENT'],
      ['PUT', `${place}/variants`, [{ name: 'v' }], 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS'],
      ['PATCH', `${place}/variants`, [{ op: 'add', path: '/-', value: { name: 'w' } }], 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS'],
      ['POST', `${place}/off`, undefined, 'UPDATE_FEATURE_ENVIRONMENT'],
      ['POST', ...bulk('off', ['checkout'], PROD), 'UPDATE_FEATURE_ENVIRONMENT'],
    ] as const
    const mark = await eventMark(pennon)
    for (const [method, url, body, permission] of writes) {
      const refused = await call(pennon, method, url, body, { token: viewer })
      assert.equal(refused.status, 403, `${method} ${url}`)
      // The 403 names the environment of the path too.
      const environment = /\/environments\/([^/]+)/.exec(url)![1]
      const message = `Missing permission: this operation needs "${permission}" in the "${environment}" environment.`
      assert.deepEqual(withoutId(refused.body), errorOf('NoAccessError', message, { permissions: [permission] }))
    }
    assert.deepEqual(await mark.since(), [])

    for (const [method, url, body] of writes) {
      const response = await call(pennon, method, url, body, { token: editor })
      assert.equal(response.status, 200, `${method} ${url}: ${response.text}`)
    }
    assert.deepEqual(
      (await mark.since()).map((e) => [e.type, e.environment, e.createdBy]),
      [
        ['feature-strategy-add', DEV, 'editor'],
        ['feature-environment-enabled', DEV, 'editor'],
        ['feature-environment-variants-updated', DEV, 'editor'],
        ['feature-environment-variants-updated', DEV, 'editor'],
        ['feature-environment-disabled', DEV, 'editor'],
      ],
    )
    const variants = jsonOk(await call(pennon, 'GET', `${place}/variants`, undefined, { token: viewer })).variants
    assert.deepEqual(
      variants.map((v: any) => [v.name, v.weight]),
      [
        ['v', 500],
        ['w', 500],
      ],
    )
  })
})
