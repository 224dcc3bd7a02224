import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { archive, createFlag, createProject, eventMark } from '../../../test/helpers/flags.ts'
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
  strategiesPath,
  toggle,
  ULID,
  validationError,
} from '../../../test/helpers/strategies.ts'

const DEV = 'development'
const path = (feature: string, id?: string) => `${strategiesPath(feature, DEV)}${id === undefined ? '' : `/${id}`}`
const noStrategy = (id: string, feature = 'checkout', environment = DEV) =>
  errorOf('NotFoundError', `Flag "${feature}" has no strategy "${id}" in environment "${environment}".`)

/** A strategy as stored, every field given: what the tests change from. */
const strategy = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  name: 'default',
  constraints: [],
  parameters: {},
  variants: [],
  segments: [],
  title: null,
  disabled: false,
  sortOrder: 0,
  ...fields,
})

async function createSegment(pennon: TestApp, name: string, project?: string): Promise<number> {
  const response = await call(pennon, 'POST', '/api/admin/segments', {
    name,
    constraints: [],
    ...(project === undefined ? {} : { project }),
  })
  assert.equal(response.status, 201, response.text)
  return response.body.id
}

onEachDatabase('strategies', (database) => {
  test('GET /strategies: the built-in definitions, in order, userWithId and the gradualRollout* ones deprecated', async (t) => {
    const pennon = await useTestApp(t, database)
    const body = jsonOk(await call(pennon, 'GET', '/api/admin/strategies'))
    assert.deepEqual(Object.keys(body), ['version', 'strategies'])
    assert.equal(body.version, 1)
    assert.deepEqual(
      body.strategies.map((s: any) => [s.name, s.deprecated, s.editable, s.parameters.map((p: any) => `${p.name}:${p.type}`)]),
      [
        ['flexibleRollout', false, false, ['rollout:percentage', 'stickiness:string', 'groupId:string']],
        ['default', false, false, []],
        ['userWithId', true, false, ['userIds:list']],
        ['remoteAddress', false, false, ['IPs:list']],
        ['applicationHostname', false, false, ['hostNames:list']],
        ['gradualRolloutRandom', true, false, ['percentage:percentage']],
        ['gradualRolloutSessionId', true, false, ['percentage:percentage', 'groupId:string']],
        ['gradualRolloutUserId', true, false, ['percentage:percentage', 'groupId:string']],
      ],
    )
    assert.deepEqual(body.strategies[1], {
      title: null,
      name: 'default',
      displayName: 'Standard',
      description: 'This strategy turns on / off for your entire userbase. Prefer using "Gradual rollout" strategy (100%=on, 0%=off).',
      editable: false,
      deprecated: false,
      parameters: [],
    })
  })

  test('POST: 200 with the whole strategy, its event; it is listed, and does not enable the environment', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const mark = await eventMark(pennon)
    const response = await call(pennon, 'POST', path('checkout'), {
      name: 'flexibleRollout',
      title: 'Half',
      parameters: { rollout: 50, stickiness: 'userId', extra: 7 },
      constraints: [
        { contextName: 'userId', operator: 'IN', values: ['a', 'b'] },
        { value: '18', operator: 'NUM_GT', contextName: 'age', inverted: false },
      ],
      variants: [
        { name: 'blue', weightType: 'fix', weight: 300, payload: { type: 'json', value: '{"a":1}' } },
        { name: 'red', weight: 999, stickiness: 'userId' },
        { name: 'green', payload: { type: 'number', value: '-1.5e3' } },
        { name: 'plain', weightType: 'variable' },
      ],
    })
    const created = jsonOk(response)
    assert.match(created.id, ULID)
    assert.deepEqual(Object.keys(created), [
      'id',
      'name',
      'constraints',
      'parameters',
      'variants',
      'segments',
      'title',
      'disabled',
      'sortOrder',
    ])
    // The 700 that the fixed variant leaves are spread, the first ones sent taking one more; then sorted by name, as the reference stores them.
    assert.deepEqual(
      created,
      strategy(created.id, {
        name: 'flexibleRollout',
        constraints: [
          { contextName: 'userId', operator: 'IN', values: ['a', 'b'] },
          { contextName: 'age', operator: 'NUM_GT', inverted: false, values: [], value: '18' },
        ],
        parameters: { rollout: '50', stickiness: 'userId', groupId: 'checkout', extra: '7' },
        variants: [
          { name: 'blue', weight: 300, weightType: 'fix', stickiness: 'default', payload: { type: 'json', value: '{"a":1}' } },
          { name: 'green', weight: 233, weightType: 'variable', stickiness: 'default', payload: { type: 'number', value: '-1.5e3' } },
          { name: 'plain', weight: 233, weightType: 'variable', stickiness: 'default' },
          { name: 'red', weight: 234, weightType: 'variable', stickiness: 'userId' },
        ],
        title: 'Half',
      }),
    )
    assert.deepEqual(fromOneRequestIn(await mark.since()), [placeEvent('feature-strategy-add', 'checkout', DEV, created)])

    // Later ones go after the last, unless they say where; the list is in evaluation order.
    const second = await addStrategy(pennon, 'checkout', DEV, { name: 'default', disabled: null, title: null })
    assert.deepEqual(second, strategy(second.id, { sortOrder: 1 }))
    const first = await addStrategy(pennon, 'checkout', DEV, {
      name: 'userWithId',
      parameters: { userIds: 'a,b' },
      sortOrder: -5,
      disabled: true,
    })
    assert.deepEqual(first, strategy(first.id, { name: 'userWithId', parameters: { userIds: 'a,b' }, sortOrder: -5, disabled: true }))
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), [first, created, second])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', path('checkout', created.id))), created)
    assert.deepEqual(await listStrategies(pennon, 'checkout', 'production'), [])

    const place = await placeOf(pennon, 'checkout', DEV)
    assert.deepEqual([place.enabled, place.hasStrategies, place.hasEnabledStrategies], [false, true, true])
    assert.deepEqual(place.strategies, [first, created, second])

    const missing = await call(pennon, 'GET', path('checkout', 'nope'))
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), noStrategy('nope'))
    // A strategy is found only through its own environment.
    const elsewhere = await call(pennon, 'GET', `${strategiesPath('checkout', 'production')}/${created.id}`)
    assert.equal(elsewhere.status, 404)
    assert.deepEqual(withoutId(elsewhere.body), noStrategy(created.id, 'checkout', 'production'))
  })

  test('PUT replaces constraints, variants and parameters, keeps the rest; no event when nothing changes', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const segment = await createSegment(pennon, 'beta')
    const stored = await addStrategy(pennon, 'checkout', DEV, {
      name: 'flexibleRollout',
      title: 'T',
      sortOrder: 4,
      segments: [segment],
      parameters: { rollout: '30', stickiness: 'userId', groupId: 'g' },
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }],
      variants: [{ name: 'v' }],
    })
    const mark = await eventMark(pennon)
    const body = { parameters: { rollout: 60 } }
    const updated = jsonOk(await call(pennon, 'PUT', path('checkout', stored.id), body))
    const after = strategy(stored.id, {
      name: 'flexibleRollout',
      title: 'T',
      sortOrder: 4,
      segments: [segment],
      parameters: { rollout: '60', stickiness: 'default', groupId: 'checkout' },
    })
    assert.deepEqual(updated, after)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', path('checkout', stored.id))), after)
    assert.deepEqual(jsonOk(await call(pennon, 'PUT', path('checkout', stored.id), body)), after)
    assert.deepEqual(fromOneRequestIn(await mark.since()), [placeEvent('feature-strategy-update', 'checkout', DEV, after, stored)])

    const renamed = jsonOk(
      await call(pennon, 'PUT', path('checkout', stored.id), { name: 'default', title: null, disabled: true, segments: [], sortOrder: 9 }),
    )
    assert.deepEqual(renamed, strategy(stored.id, { disabled: true, sortOrder: 9 }))

    const missing = await call(pennon, 'PUT', path('checkout', 'nope'), body)
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), noStrategy('nope'))
    const invalid = await call(pennon, 'PUT', path('checkout', stored.id), { name: 'flexibleRollout', parameters: { rollout: 101 } })
    assert.equal(invalid.status, 400)
    const message = 'The `/body/parameters/rollout` property must be a whole percentage from 0 to 100. You sent 101.'
    assert.deepEqual(withoutId(invalid.body), validationError(at('/body/parameters/rollout', message)))
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), [renamed])
  })

  test('PATCH: JSON Patch on the strategy without its id; a bad result or an op that cannot apply is a 400 and changes nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const stored = await addStrategy(pennon, 'checkout', DEV, { name: 'flexibleRollout' })
    assert.deepEqual(stored, defaultStrategy('checkout', stored.id))
    const mark = await eventMark(pennon)
    const patched = jsonOk(
      await call(pennon, 'PATCH', path('checkout', stored.id), [
        { op: 'test', path: '/name', value: 'flexibleRollout' },
        { op: 'replace', path: '/parameters/rollout', value: '25' },
        { op: 'add', path: '/constraints/-', value: { contextName: 'userId', operator: 'IN', values: ['x'] } },
        { op: 'replace', path: '/title', value: 'Quarter' },
        { op: 'add', path: '/id', value: 'ignored' },
      ]),
    )
    const after = {
      ...stored,
      parameters: { ...stored.parameters, rollout: '25' },
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['x'] }],
      title: 'Quarter',
    }
    assert.deepEqual(patched, after)
    assert.deepEqual(fromOneRequestIn(await mark.since()), [placeEvent('feature-strategy-update', 'checkout', DEV, after, stored)])

    const refusals: Array<[unknown[], Record<string, unknown>]> = [
      // The result is checked like a POST body: its shape…
      [
        [
          { op: 'add', path: '/constraints/0', value: { contextName: 'x' } },
          { op: 'remove', path: '/name' },
        ],
        validationError(
          at('/body/name', 'The `/body/name` property is required. It was not present on the data you sent.'),
          at(
            '/body/constraints/0/operator',
            'The `/body/constraints/0/operator` property is required. It was not present on the data you sent.',
          ),
        ),
      ],
      // …and its rules.
      [
        [{ op: 'replace', path: '/parameters/rollout', value: '101' }],
        validationError(
          at(
            '/body/parameters/rollout',
            'The `/body/parameters/rollout` property must be a whole percentage from 0 to 100. You sent "101".',
          ),
        ),
      ],
      // An operation that cannot apply is named by its place in the patch.
      [
        [
          { op: 'replace', path: '/title', value: 'x' },
          { op: 'remove', path: '/nope' },
        ],
        validationError(
          at('/body/1/path', 'Patch operation 1 ("remove") cannot apply: the `/body/1/path` property names "nope", which does not exist.'),
        ),
      ],
      [
        [{ op: 'test', path: '/name', value: 'default' }],
        validationError(
          at(
            '/body/0/value',
            'Patch operation 0 ("test") cannot apply: the `/body/0/value` property does not equal the value at "/name": the test failed.',
          ),
        ),
      ],
    ]
    const before = await eventMark(pennon)
    for (const [operations, expected] of refusals) {
      const response = await call(pennon, 'PATCH', path('checkout', stored.id), operations)
      assert.equal(response.status, 400, JSON.stringify(operations))
      assert.deepEqual(withoutId(response.body), expected)
    }
    const missing = await call(pennon, 'PATCH', path('checkout', 'nope'), [])
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), noStrategy('nope'))
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), [after])
    assert.deepEqual(await before.since(), [])
  })

  test('DELETE: 200 and feature-strategy-remove; the last active strategy of an enabled environment takes the flag off there', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    assertEmpty(await toggle(pennon, 'checkout', DEV, 'on'))
    const [active] = await listStrategies(pennon, 'checkout', DEV)
    const spare = await addStrategy(pennon, 'checkout', DEV, { name: 'default', disabled: true })
    const extra = await addStrategy(pennon, 'checkout', DEV, { name: 'default' })

    // Another active one is left: the environment stays on.
    let mark = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', path('checkout', extra.id)))
    assert.deepEqual(fromOneRequestIn(await mark.since()), [placeEvent('feature-strategy-remove', 'checkout', DEV, null, extra)])
    assert.equal((await placeOf(pennon, 'checkout', DEV)).enabled, true)

    mark = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', path('checkout', active.id)))
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      placeEvent('feature-strategy-remove', 'checkout', DEV, null, active),
      placeEvent('feature-environment-disabled', 'checkout', DEV),
    ])
    const place = await placeOf(pennon, 'checkout', DEV)
    assert.deepEqual([place.enabled, place.strategies, place.hasStrategies, place.hasEnabledStrategies], [false, [spare], true, false])

    const again = await call(pennon, 'DELETE', path('checkout', active.id))
    assert.equal(again.status, 404)
    assert.deepEqual(withoutId(again.body), noStrategy(active.id))
    // In a disabled environment, removing the last one writes its event alone.
    mark = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', path('checkout', spare.id)))
    assert.deepEqual(fromOneRequestIn(await mark.since()), [placeEvent('feature-strategy-remove', 'checkout', DEV, null, spare)])
  })

  test('PUT or PATCH that disables the last active strategy of an enabled environment takes the flag off there', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    for (const [method, body] of [
      ['PUT', { disabled: true }],
      ['PATCH', [{ op: 'replace', path: '/disabled', value: true }]],
    ] as const) {
      assertEmpty(await toggle(pennon, 'checkout', DEV, 'on'))
      const active = (await listStrategies(pennon, 'checkout', DEV)).find((s) => !s.disabled)
      const mark = await eventMark(pennon)
      const updated = jsonOk(await call(pennon, method, path('checkout', active.id), body))
      assert.deepEqual(updated, { ...active, disabled: true })
      assert.deepEqual(
        fromOneRequestIn(await mark.since()),
        [
          placeEvent('feature-strategy-update', 'checkout', DEV, updated, active),
          placeEvent('feature-environment-disabled', 'checkout', DEV),
        ],
        method,
      )
      assert.equal((await placeOf(pennon, 'checkout', DEV)).enabled, false)
    }
    // Each `on` found only disabled strategies, so added a new one after them.
    assert.deepEqual(
      (await listStrategies(pennon, 'checkout', DEV)).map((s) => [s.sortOrder, s.disabled]),
      [
        [0, true],
        [1, true],
      ],
    )
  })

  test('set-sort-order: 200, strategy-order-changed; unknown ids are a 404 that changes nothing; no event when nothing moves', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const [a, b, c] = [
      await addStrategy(pennon, 'checkout', DEV, { name: 'default', title: 'a' }),
      await addStrategy(pennon, 'checkout', DEV, { name: 'default', title: 'b' }),
      await addStrategy(pennon, 'checkout', DEV, { name: 'default', title: 'c' }),
    ]
    const other = await addStrategy(pennon, 'checkout', 'production', { name: 'default' })
    const order = `${path('checkout')}/set-sort-order`

    const mark = await eventMark(pennon)
    const body = [
      { id: c.id, sortOrder: 0 },
      { id: a.id, sortOrder: 1 },
      { id: b.id, sortOrder: 2 },
    ]
    assertEmpty(await call(pennon, 'POST', order, body))
    const reordered = [
      { ...c, sortOrder: 0 },
      { ...a, sortOrder: 1 },
      { ...b, sortOrder: 2 },
    ]
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), reordered)
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      placeEvent(
        'strategy-order-changed',
        'checkout',
        DEV,
        { strategyIds: [c.id, a.id, b.id], sortOrders: [0, 1, 2] },
        { strategyIds: [a.id, b.id, c.id], sortOrders: [0, 1, 2] },
      ),
    ])

    const unchanged = await eventMark(pennon)
    assertEmpty(await call(pennon, 'POST', order, body))
    for (const refused of [
      [
        { id: a.id, sortOrder: 5 },
        { id: 'nope', sortOrder: 0 },
      ],
      [{ id: other.id, sortOrder: 9 }],
    ]) {
      const response = await call(pennon, 'POST', order, refused)
      assert.equal(response.status, 404)
      assert.deepEqual(withoutId(response.body), noStrategy(refused.at(-1)!.id))
    }
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), reordered)
    assert.deepEqual(await listStrategies(pennon, 'checkout', 'production'), [other])
    assert.deepEqual(await unchanged.since(), [])

    // New numbers in the same order are a change too, and recorded.
    const spread = await eventMark(pennon)
    assertEmpty(await call(pennon, 'POST', order, [{ id: b.id, sortOrder: 20 }]))
    assert.deepEqual(fromOneRequestIn(await spread.since()), [
      placeEvent(
        'strategy-order-changed',
        'checkout',
        DEV,
        { strategyIds: [c.id, a.id, b.id], sortOrders: [0, 1, 20] },
        { strategyIds: [c.id, a.id, b.id], sortOrders: [0, 1, 2] },
      ),
    ])
  })

  test('validation: every violation of a strategy in one 400, nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const mark = await eventMark(pennon)
    const refuse = async (body: unknown, ...details: Array<{ path: string; message: string }>) => {
      const response = await call(pennon, 'POST', path('checkout'), body)
      assert.equal(response.status, 400, JSON.stringify(body).slice(0, 200))
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      assert.deepEqual(withoutId(response.body), validationError(...details))
    }
    const names =
      '"applicationHostname", "default", "flexibleRollout", "gradualRolloutRandom", "gradualRolloutSessionId", "gradualRolloutUserId", "remoteAddress", "userWithId"'
    await refuse(
      { name: 'gradualRollout' },
      at('/body/name', `The \`/body/name\` property must name a strategy this instance knows (${names}). You sent "gradualRollout".`),
    )
    await refuse({}, at('/body/name', 'The `/body/name` property is required. It was not present on the data you sent.'))
    for (const [rollout, shown] of [
      [101, '101'],
      ['abc', '"abc"'],
      [50.5, '50.5'],
      [-1, '-1'],
      ['050', '"050"'],
      ['', '""'],
    ] as const) {
      await refuse(
        { name: 'flexibleRollout', parameters: { rollout } },
        at(
          '/body/parameters/rollout',
          `The \`/body/parameters/rollout\` property must be a whole percentage from 0 to 100. You sent ${shown}.`,
        ),
      )
    }
    await refuse(
      {
        name: 'flexibleRollout',
        parameters: { rollout: 'abc' },
        constraints: [
          { contextName: 'age', operator: 'NUM_GT', value: 'x' },
          { contextName: 'userId', operator: 'IN', values: [] },
        ],
        variants: [
          { name: 'a', weightType: 'fix', weight: 600, payload: { type: 'json', value: '{nope' } },
          { name: 'a', weightType: 'fix', weight: 600, payload: { type: 'number', value: 'ten' } },
        ],
      },
      at('/body/parameters/rollout', 'The `/body/parameters/rollout` property must be a whole percentage from 0 to 100. You sent "abc".'),
      at(
        '/body/constraints/0/value',
        'The `/body/constraints/0/value` property must be a finite number (optional sign, digits with an optional fraction, optional exponent, e.g. -1.5 or 1e3) for the NUM_GT operator. You sent "x".',
      ),
      at(
        '/body/constraints/1/values',
        'The `/body/constraints/1/values` property must hold at least one value for the IN operator. You sent [].',
      ),
      at(
        '/body/variants/0/payload/value',
        'The `/body/variants/0/payload/value` property must be valid JSON for a "json" payload. You sent "{nope".',
      ),
      at('/body/variants/1/name', 'The `/body/variants/1/name` property must be unique among the variants: "a" is there twice.'),
      at(
        '/body/variants/1/payload/value',
        'The `/body/variants/1/payload/value` property must be a finite number for a "number" payload. You sent "ten".',
      ),
      at(
        '/body/variants',
        "The `/body/variants` property's weights must sum to 1000 when every variant's weight is fixed. Yours sum to 1200.",
      ),
    )
    await refuse(
      {
        name: 'default',
        variants: [{ name: 'a', weightType: 'fix', weight: 700 }, { name: 'b', weightType: 'fix', weight: 400 }, { name: 'c' }],
      },
      at('/body/variants', "The `/body/variants` property's fixed weights must sum to at most 1000. Yours sum to 1100."),
    )
    await refuse(
      {
        name: 'default',
        variants: [
          { name: 'a', weightType: 'fix', weight: 400 },
          { name: 'b', weightType: 'fix', weight: 400 },
        ],
      },
      at(
        '/body/variants',
        "The `/body/variants` property's weights must sum to 1000 when every variant's weight is fixed. Yours sum to 800.",
      ),
    )
    // The values limit (SEGMENT_VALUES_LIMIT, 1000) is summed over the strategy's constraints.
    const values = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
    await refuse(
      { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: values(10_000, 'u') }] },
      at(
        '/body/constraints',
        'The `/body/constraints` property holds 10000 values in all; a strategy may hold at most 1000. You sent 10000 values across 1 constraint.',
      ),
    )
    await refuse(
      {
        name: 'default',
        constraints: [
          { contextName: 'userId', operator: 'IN', values: values(600, 'u') },
          { contextName: 'email', operator: 'NOT_IN', values: values(401, 'e') },
        ],
      },
      at(
        '/body/constraints',
        'The `/body/constraints` property holds 1001 values in all; a strategy may hold at most 1000. You sent 1001 values across 2 constraints.',
      ),
    )
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), [])

    // The edges that pass: 0 and 100 as text or number, exactly 1000 values, all-fix weights summing to 1000.
    for (const rollout of [0, '0', 100, '100']) {
      const added = await addStrategy(pennon, 'checkout', DEV, { name: 'flexibleRollout', parameters: { rollout } })
      assert.equal(added.parameters.rollout, String(rollout))
    }
    const full = await addStrategy(pennon, 'checkout', DEV, {
      name: 'default',
      constraints: [
        { contextName: 'userId', operator: 'IN', values: values(600, 'u') },
        { contextName: 'email', operator: 'NOT_IN', values: values(400, 'e') },
      ],
      variants: [
        { name: 'a', weightType: 'fix', weight: 999 },
        { name: 'b', weightType: 'fix', weight: 1 },
      ],
    })
    assert.deepEqual(
      full.variants.map((v: any) => v.weight),
      [999, 1],
    )
  })

  test('segments: ids ascending, unknown or foreign ones a 400 naming them; usage counted, and a used segment kept', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'checkout')
    await createFlag(pennon, 'search', 'other')
    const global = await createSegment(pennon, 'global')
    const local = await createSegment(pennon, 'local', 'default')
    const foreign = await createSegment(pennon, 'foreign', 'other')

    const used = await addStrategy(pennon, 'checkout', DEV, { name: 'default', segments: [local, global, local] })
    assert.deepEqual(used.segments, [global, local])
    const refusals: Array<[number[], string, string]> = [
      [
        [99, global],
        '/body/segments/0',
        'The `/body/segments/0` property must be the id of an existing segment. Segment 99 does not exist.',
      ],
      [
        [global, 99],
        '/body/segments/1',
        'The `/body/segments/1` property must be the id of an existing segment. Segment 99 does not exist.',
      ],
      [
        [foreign],
        '/body/segments/0',
        `The \`/body/segments/0\` property names segment ${foreign}, which belongs to project "other": a flag of project "default" cannot use it.`,
      ],
    ]
    for (const [segments, where, message] of refusals) {
      const response = await call(pennon, 'POST', path('checkout'), { name: 'default', segments })
      assert.equal(response.status, 400, JSON.stringify(segments))
      assert.deepEqual(withoutId(response.body), validationError(at(where, message)))
      const put = await call(pennon, 'PUT', path('checkout', used.id), { segments })
      assert.equal(put.status, 400)
      assert.deepEqual(withoutId(put.body), validationError(at(where, message)))
    }
    // A segment problem is listed with the others.
    const both = await call(pennon, 'POST', path('checkout'), {
      name: 'flexibleRollout',
      parameters: { rollout: 101 },
      segments: [global, 99],
    })
    assert.equal(both.status, 400)
    assert.deepEqual(
      withoutId(both.body),
      validationError(
        at('/body/parameters/rollout', 'The `/body/parameters/rollout` property must be a whole percentage from 0 to 100. You sent 101.'),
        at('/body/segments/1', 'The `/body/segments/1` property must be the id of an existing segment. Segment 99 does not exist.'),
      ),
    )
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), [used])

    const other = await addStrategy(pennon, 'search', 'production', { name: 'default', segments: [global, foreign] }, 'other')
    const usage = async () =>
      (await call(pennon, 'GET', '/api/admin/segments')).body.segments.map((s: any) => [s.name, s.usedInFeatures, s.usedInProjects])
    assert.deepEqual(await usage(), [
      ['foreign', 1, 1],
      ['global', 2, 2],
      ['local', 1, 1],
    ])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `/api/admin/segments/${global}/strategies`)), {
      strategies: [
        { id: used.id, featureName: 'checkout', projectId: 'default', environment: DEV, strategyName: 'default' },
        { id: other.id, featureName: 'search', projectId: 'other', environment: 'production', strategyName: 'default' },
      ],
      changeRequestStrategies: [],
    })
    assert.deepEqual(
      jsonOk(await call(pennon, 'GET', `/api/admin/segments/${foreign}/strategies`)).strategies.map((s: any) => s.id),
      [other.id],
    )

    const inUse = await call(pennon, 'DELETE', `/api/admin/segments/${global}`)
    assert.equal(inUse.status, 409)
    assert.deepEqual(
      withoutId(inUse.body),
      errorOf(
        'InvalidOperationError',
        `Segment ${global} is in use by the strategies of flags "checkout", "search": remove it from them first.`,
      ),
    )
    const moved = await call(pennon, 'PUT', `/api/admin/segments/${local}`, { name: 'local', project: 'other', constraints: [] })
    assert.equal(moved.status, 409)
    assert.deepEqual(
      withoutId(moved.body),
      errorOf('InvalidOperationError', `Segment ${local} cannot move to project "other": strategies of project "default" use it.`),
    )

    // An archived flag's strategies no longer count, but still hold their segments.
    assert.equal((await archive(pennon, ['search'], 'other')).status, 202)
    assert.deepEqual(await usage(), [
      ['foreign', 0, 0],
      ['global', 1, 1],
      ['local', 1, 1],
    ])
    assert.equal((await call(pennon, 'DELETE', `/api/admin/segments/${foreign}`)).status, 409)
    // Once no strategy uses it, it goes.
    assertEmpty(await call(pennon, 'DELETE', path('checkout', used.id)))
    assert.equal((await call(pennon, 'DELETE', `/api/admin/segments/${local}`)).status, 204)
  })

  test('permissions: a Viewer reads strategies and is refused every write; an Editor writes', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const stored = await addStrategy(pennon, 'checkout', DEV, { name: 'default' })
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2, 'editor')

    for (const url of ['/api/admin/strategies', path('checkout'), path('checkout', stored.id)]) {
      assert.equal((await call(pennon, 'GET', url, undefined, { token: viewer })).status, 200, url)
    }
    const mark = await eventMark(pennon)
    const writes = [
      ['POST', path('checkout'), { name: 'default' }, 'CREATE_FEATURE_STRATEGY'],
      ['PUT', path('checkout', stored.id), { title: 'x' }, 'UPDATE_FEATURE_STRATEGY'],
      ['PATCH', path('checkout', stored.id), [{ op: 'replace', path: '/title', value: 'y' }], 'UPDATE_FEATURE_STRATEGY'],
      ['POST', `${path('checkout')}/set-sort-order`, [{ id: stored.id, sortOrder: 3 }], 'UPDATE_FEATURE_STRATEGY'],
      ['DELETE', path('checkout', stored.id), undefined, 'DELETE_FEATURE_STRATEGY'],
    ] as const
    for (const [method, url, body, permission] of writes) {
      const refused = await call(pennon, method, url, body, { token: viewer })
      assert.equal(refused.status, 403, `${method} ${url}`)
      // The 403 names the environment of the path too.
      const environment = /\/environments\/([^/]+)/.exec(url)![1]
      const message = `Missing permission: this operation needs "${permission}" in the "${environment}" environment.`
      assert.deepEqual(withoutId(refused.body), errorOf('NoAccessError', message, { permissions: [permission] }))
    }
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(await listStrategies(pennon, 'checkout', DEV), [stored])

    for (const [method, url, body] of writes) {
      const response = await call(pennon, method, url, body, { token: editor })
      assert.equal(response.status, 200, `${method} ${url}: ${response.text}`)
    }
    const events = await mark.since()
    assert.deepEqual(
      events.map((e) => [e.type, e.createdBy]),
      [
        ['feature-strategy-add', 'editor'],
        ['feature-strategy-update', 'editor'],
        ['feature-strategy-update', 'editor'],
        ['strategy-order-changed', 'editor'],
        ['feature-strategy-remove', 'editor'],
      ],
    )
  })
})
