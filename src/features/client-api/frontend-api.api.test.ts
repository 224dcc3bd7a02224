/**
 * The frontend API (GET and POST /api/frontend): what browser and mobile SDKs call, through the
 * real app on each database — the enabled flags of a frontend token's scope, evaluated for the
 * context sent (strategies, stickiness, constraints, segments, dependencies, variants), ETag and
 * 304, the tokens it takes, CORS for any origin, and the bodies it refuses.
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
import { normalizedStrategyValue, normalizedVariantValue } from '../evaluation/murmurhash.ts'
import { addDependency, createFlag, createProject } from '../../../test/helpers/flags.ts'
import { addStrategy, placePath, toggle } from '../../../test/helpers/strategies.ts'
import { ETAG, FRONTEND, frontendToken, queryOf, togglesOf } from '../../../test/helpers/frontend.ts'

/**
 * The toggles for one context, asked both ways (GET with query parameters, POST with a body),
 * which must agree; returns the toggles.
 */
async function evaluate(
  pennon: TestApp,
  token: string,
  context: Record<string, string>,
  properties: Record<string, string> = {},
): Promise<any[]> {
  const got = togglesOf(await call(pennon, 'GET', `${FRONTEND}${queryOf(context, properties)}`, undefined, { token }))
  const posted = await call(
    pennon,
    'POST',
    FRONTEND,
    { context: { ...context, ...(Object.keys(properties).length > 0 ? { properties } : {}) } },
    { token },
  )
  assert.deepEqual(togglesOf(posted), got, `GET and POST agree for ${JSON.stringify({ context, properties })}`)
  return got
}

const namesFor = async (pennon: TestApp, token: string, context: Record<string, string>, properties: Record<string, string> = {}) =>
  (await evaluate(pennon, token, context, properties)).map((toggle: { name: string }) => toggle.name)

/** The variant of an enabled flag without variants. */
const NO_VARIANT = { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }
const variant = (name: string, payload?: { type: string; value: string }) => ({
  name,
  enabled: true,
  ...(payload ? { payload } : {}),
  feature_enabled: true,
  featureEnabled: true,
})
const enabled = (name: string, fields: { variant?: unknown; impressionData?: boolean } = {}) => ({
  name,
  enabled: true,
  variant: fields.variant ?? NO_VARIANT,
  impressionData: fields.impressionData ?? false,
})

/** The first of `candidates` whose rollout bucket in `groupId` is (or is not) within `percent`. */
function idWhere(groupId: string, percent: number, inside: boolean, prefix = 'user'): string {
  for (let i = 0; i < 1000; i++) {
    const id = `${prefix}-${i}`
    if (normalizedStrategyValue(id, groupId) <= percent === inside) return id
  }
  throw new Error('no such id')
}

onEachDatabase('frontend API', (database) => {
  test("GET and POST: the enabled flags of the token's environment and projects, by name, each with its variant and impressionData", async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    await createFlag(pennon, 'zed')
    await createFlag(pennon, 'banner', 'default', { impressionData: true })
    await createFlag(pennon, 'off')
    await createFlag(pennon, 'production-only')
    await createFlag(pennon, 'basket', 'shop')
    for (const name of ['zed', 'banner']) assert.equal((await toggle(pennon, name, 'development', 'on')).status, 200)
    await addStrategy(pennon, 'off', 'development', { name: 'default' })
    assert.equal((await toggle(pennon, 'production-only', 'production', 'on')).status, 200)
    assert.equal((await toggle(pennon, 'basket', 'development', 'on', 'shop')).status, 200)

    const token = await frontendToken(pennon, 'development', ['default'])
    for (const response of [
      await call(pennon, 'GET', FRONTEND, undefined, { token }),
      await call(pennon, 'GET', `${FRONTEND}/`, undefined, { token }),
      await call(pennon, 'GET', `${FRONTEND}?userId=u`, undefined, { token }),
      await call(pennon, 'GET', `${FRONTEND}/?userId=u`, undefined, { token }),
      await call(pennon, 'POST', FRONTEND, {}, { token }),
      await call(pennon, 'POST', `${FRONTEND}/`, { context: {} }, { token }),
      await call(pennon, 'POST', FRONTEND, { context: {} }, { token }),
      await call(
        pennon,
        'POST',
        FRONTEND,
        { context: { userId: 'u', sessionId: 's', appName: 'web', environment: 'production', properties: {} } },
        { token },
      ),
    ]) {
      assert.deepEqual(togglesOf(response), [enabled('banner', { impressionData: true }), enabled('zed')])
      assert.deepEqual(Object.keys(response.body.toggles[0]), ['name', 'enabled', 'variant', 'impressionData'])
      assert.deepEqual(Object.keys(response.body.toggles[0].variant), ['name', 'enabled', 'feature_enabled', 'featureEnabled'])
    }
    // Each token its own scope.
    assert.deepEqual(await namesFor(pennon, await frontendToken(pennon, 'development', ['shop']), {}), ['basket'])
    assert.deepEqual(await namesFor(pennon, await frontendToken(pennon, 'development', ['*']), {}), ['banner', 'basket', 'zed'])
    assert.deepEqual(await namesFor(pennon, await frontendToken(pennon, 'production'), {}), ['production-only'])
    // An admin token: every project, in development.
    assert.deepEqual(await namesFor(pennon, pennon.adminToken, {}), ['banner', 'basket', 'zed'])
    assert.deepEqual(await namesFor(pennon, await apiToken(pennon, 'admin'), { environment: 'production' }), ['banner', 'basket', 'zed'])
  })

  test('strategies for the context: userWithId, flexibleRollout with its stickiness, constraints on standard and custom fields', async (t) => {
    const pennon = await useTestApp(t, database)
    const on = async (name: string, strategy: Record<string, unknown>) => {
      await createFlag(pennon, name)
      await addStrategy(pennon, name, 'development', strategy)
      assert.equal((await toggle(pennon, name, 'development', 'on')).status, 200)
    }
    await on('users', { name: 'userWithId', parameters: { userIds: 'ann, bob' } })
    await on('by-user', { name: 'flexibleRollout', parameters: { rollout: 50, stickiness: 'userId', groupId: 'g' } })
    await on('by-session', { name: 'flexibleRollout', parameters: { rollout: 50, stickiness: 'sessionId', groupId: 'g' } })
    await on('by-tenant', { name: 'flexibleRollout', parameters: { rollout: 50, stickiness: 'tenant', groupId: 'g' } })
    await on('nobody', { name: 'flexibleRollout', parameters: { rollout: 0, stickiness: 'default' } })
    await on('nordic-pro', {
      name: 'default',
      constraints: [
        { contextName: 'country', operator: 'IN', values: ['NO', 'SE'] },
        { contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['pro'], caseInsensitive: true },
        { contextName: 'age', operator: 'NUM_GTE', value: '18' },
      ],
    })
    await on('web-app', {
      name: 'default',
      constraints: [
        { contextName: 'appName', operator: 'IN', values: ['web'] },
        { contextName: 'userId', operator: 'NOT_IN', values: ['bob'] },
      ],
    })
    const token = await frontendToken(pennon)

    const [inside, outside] = [idWhere('g', 50, true), idWhere('g', 50, false)]
    // Without a sessionId, each request gets a random one (as the reference), which decides `by-session` by chance: these send one outside it.
    const names = (context: Record<string, string>, properties?: Record<string, string>) =>
      namesFor(pennon, token, { sessionId: outside, ...context }, properties)
    assert.deepEqual(await names({}), [])
    assert.deepEqual(await names({ userId: 'ann' }), normalizedStrategyValue('ann', 'g') <= 50 ? ['by-user', 'users'] : ['users'])
    assert.deepEqual(await names({ userId: inside }), ['by-user'])
    assert.deepEqual(await names({ userId: outside }), [])
    assert.deepEqual(await names({ sessionId: inside }), ['by-session'])
    assert.deepEqual(await names({ sessionId: outside, userId: inside }), ['by-user'])
    const bySession = new Set<boolean>()
    for (let i = 0; i < 40; i++)
      bySession.add(togglesOf(await call(pennon, 'GET', FRONTEND, undefined, { token })).some((toggle) => toggle.name === 'by-session'))
    assert.deepEqual([...bySession].sort(), [false, true], 'a random sessionId per request: on for some, off for others')
    // A custom stickiness field: a custom property, sent as properties[tenant] or (GET) as a plain parameter, or (POST) at the top of the context.
    assert.deepEqual(await names({}, { tenant: inside }), ['by-tenant'])
    assert.deepEqual(await names({}, { tenant: outside }), [])
    assert.deepEqual(
      togglesOf(await call(pennon, 'GET', `${FRONTEND}?tenant=${inside}&sessionId=${outside}`, undefined, { token })).map(
        (toggle) => toggle.name,
      ),
      ['by-tenant'],
    )
    assert.deepEqual(
      togglesOf(await call(pennon, 'POST', FRONTEND, { context: { tenant: inside, sessionId: outside } }, { token })).map(
        (toggle) => toggle.name,
      ),
      ['by-tenant'],
    )

    // Every constraint must hold; custom fields are properties, however sent.
    assert.deepEqual(await names({}, { country: 'NO', plan: 'PROfessional', age: '18' }), ['nordic-pro'])
    assert.deepEqual(await names({}, { country: 'NO', plan: 'PROfessional', age: '17' }), [])
    assert.deepEqual(await names({}, { country: 'DK', plan: 'pro', age: '40' }), [])
    assert.deepEqual(await names({}, { country: 'SE', plan: 'basic', age: '40' }), [])
    assert.deepEqual(
      togglesOf(await call(pennon, 'GET', `${FRONTEND}?country=SE&plan=pro&age=30&sessionId=${outside}`, undefined, { token })).map(
        (toggle) => toggle.name,
      ),
      ['nordic-pro'],
    )
    assert.deepEqual(
      togglesOf(
        await call(
          pennon,
          'POST',
          FRONTEND,
          { context: { country: 'SE', sessionId: outside, properties: { plan: 'pro', age: '30' } } },
          { token },
        ),
      ).map((toggle) => toggle.name),
      ['nordic-pro'],
    )
    assert.deepEqual(await names({ appName: 'web', userId: 'carl' }), ['web-app'])
    assert.deepEqual(await names({ appName: 'web', userId: 'bob' }), ['users'])
    assert.deepEqual(await names({ appName: 'ios' }), [])
    // A repeated query parameter counts once: its first value.
    assert.deepEqual(
      togglesOf(await call(pennon, 'GET', `${FRONTEND}?userId=ann&userId=zoe&sessionId=${outside}`, undefined, { token }))
        .map((toggle) => toggle.name)
        .includes('users'),
      true,
    )
    assert.deepEqual(
      togglesOf(await call(pennon, 'GET', `${FRONTEND}?userId=zoe&userId=ann&sessionId=${outside}`, undefined, { token }))
        .map((toggle) => toggle.name)
        .includes('users'),
      false,
    )
  })

  test('segments and dependencies: a segment adds its constraints; a child follows its parent (on, off, or one of its variants)', async (t) => {
    const pennon = await useTestApp(t, database)
    const segment = await call(pennon, 'POST', '/api/admin/segments', {
      name: 'beta testers',
      constraints: [{ contextName: 'beta', operator: 'IN', values: ['yes'] }],
    })
    assert.equal(segment.status, 201)
    const on = async (name: string, strategy: Record<string, unknown>) => {
      await createFlag(pennon, name)
      await addStrategy(pennon, name, 'development', strategy)
      assert.equal((await toggle(pennon, name, 'development', 'on')).status, 200)
    }
    await on('beta', {
      name: 'default',
      segments: [segment.body.id],
      constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }],
    })
    await on('parent', { name: 'userWithId', parameters: { userIds: 'ann,bob' }, variants: [{ name: 'blue' }] })
    await on('child', { name: 'default' })
    await on('when-parent-off', { name: 'default' })
    await on('when-parent-blue', { name: 'default' })
    await on('when-parent-red', { name: 'default' })
    assert.equal((await addDependency(pennon, 'child', { feature: 'parent' })).status, 200)
    await on('parent-2', { name: 'userWithId', parameters: { userIds: 'ann' } })
    assert.equal((await addDependency(pennon, 'when-parent-off', { feature: 'parent-2', enabled: false })).status, 200)
    await on('parent-3', { name: 'userWithId', parameters: { userIds: 'ann,bob' }, variants: [{ name: 'blue' }] })
    assert.equal((await addDependency(pennon, 'when-parent-blue', { feature: 'parent-3', variants: ['blue'] })).status, 200)
    assert.equal((await addDependency(pennon, 'when-parent-red', { feature: 'parent-3', variants: ['red'] })).status, 200)
    const token = await frontendToken(pennon)

    // Segment: its constraints and the strategy's own.
    assert.ok((await namesFor(pennon, token, {}, { beta: 'yes', country: 'NO' })).includes('beta'))
    assert.ok(!(await namesFor(pennon, token, {}, { beta: 'no', country: 'NO' })).includes('beta'))
    assert.ok(!(await namesFor(pennon, token, {}, { beta: 'yes', country: 'SE' })).includes('beta'))

    const blue = variant('blue')
    assert.deepEqual(await evaluate(pennon, token, { userId: 'ann' }), [
      enabled('child'),
      enabled('parent', { variant: blue }),
      enabled('parent-2'),
      enabled('parent-3', { variant: blue }),
      enabled('when-parent-blue'),
    ])
    assert.deepEqual(await evaluate(pennon, token, { userId: 'bob' }), [
      enabled('child'),
      enabled('parent', { variant: blue }),
      enabled('parent-3', { variant: blue }),
      enabled('when-parent-blue'),
      enabled('when-parent-off'),
    ])
    assert.deepEqual(await evaluate(pennon, token, { userId: 'carl' }), [enabled('when-parent-off')])
  })

  test("variants: the enabling strategy's variants, else the environment's (overrides first), with payloads, sticky per id", async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'strategy-variants')
    await addStrategy(pennon, 'strategy-variants', 'development', {
      name: 'userWithId',
      parameters: { userIds: 'ann' },
      variants: [
        { name: 'json', weightType: 'fix', weight: 1000, payload: { type: 'json', value: '{"size":2}' } },
        { name: 'never', weightType: 'fix', weight: 0 },
      ],
    })
    await addStrategy(pennon, 'strategy-variants', 'development', { name: 'userWithId', parameters: { userIds: 'bob' } })
    assert.equal((await toggle(pennon, 'strategy-variants', 'development', 'on')).status, 200)
    const environmentVariants = [
      {
        name: 'red',
        stickiness: 'userId',
        payload: { type: 'string', value: 'R' },
        overrides: [{ contextName: 'userId', values: ['carl'] }],
      },
      { name: 'green', stickiness: 'userId', payload: { type: 'number', value: '7' } },
    ]
    for (const name of ['strategy-variants', 'environment-variants']) {
      if (name === 'environment-variants') {
        await createFlag(pennon, name)
        assert.equal((await toggle(pennon, name, 'development', 'on')).status, 200)
      }
      const put = await call(pennon, 'PUT', `${placePath(name, 'development')}/variants`, environmentVariants)
      assert.equal(put.status, 200, put.text)
    }
    const token = await frontendToken(pennon)
    const json = variant('json', { type: 'json', value: '{"size":2}' })
    const red = variant('red', { type: 'string', value: 'R' })
    const green = variant('green', { type: 'number', value: '7' })
    /** The environment variant a user gets by weight: green then red (stored sorted by name), 500 each, by userId bucket in the flag's name. */
    const byWeight = (userId: string, flagName: string) => (normalizedVariantValue(userId, flagName, 1000) <= 500 ? green : red)

    // ann: the first strategy enabled her, with its variant; bob: the second, without: the environment's.
    assert.deepEqual(await evaluate(pennon, token, { userId: 'ann' }), [
      enabled('environment-variants', { variant: byWeight('ann', 'environment-variants') }),
      enabled('strategy-variants', { variant: json }),
    ])
    assert.deepEqual(
      (await evaluate(pennon, token, { userId: 'bob' }))[1],
      enabled('strategy-variants', { variant: byWeight('bob', 'strategy-variants') }),
    )
    // carl: the override.
    assert.deepEqual(await evaluate(pennon, token, { userId: 'carl' }), [enabled('environment-variants', { variant: red })])
    // Both variants are reached, each user always the same one.
    const seen = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const userId = `user-${i}`
      const first = (await evaluate(pennon, token, { userId }))[0]
      seen.add(first.variant.name)
      assert.deepEqual(first, enabled('environment-variants', { variant: byWeight(userId, 'environment-variants') }))
      assert.deepEqual((await evaluate(pennon, token, { userId, sessionId: 'other' }))[0], first)
    }
    assert.deepEqual([...seen].sort(), ['green', 'red'])
  })

  test("remoteAddress: the caller's address unless the context gives one", async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'office')
    await addStrategy(pennon, 'office', 'development', { name: 'remoteAddress', parameters: { IPs: '10.1.2.3, 192.168.0.0/16' } })
    assert.equal((await toggle(pennon, 'office', 'development', 'on')).status, 200)
    const token = await frontendToken(pennon)
    const from = async (remoteAddress: string, method: 'GET' | 'POST', context?: Record<string, string>) => {
      const response = await pennon.app.inject({
        method,
        url: method === 'GET' ? `${FRONTEND}${queryOf(context ?? {})}` : FRONTEND,
        remoteAddress,
        headers: { authorization: token, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { payload: JSON.stringify({ context: context ?? {} }) } : {}),
      })
      return togglesOf({ status: response.statusCode, headers: response.headers, body: response.json(), text: response.body }).map(
        (toggle) => toggle.name,
      )
    }
    for (const method of ['GET', 'POST'] as const) {
      assert.deepEqual(await from('10.1.2.3', method), ['office'], method)
      assert.deepEqual(await from('192.168.7.7', method), ['office'], method)
      assert.deepEqual(await from('10.1.2.4', method), [], method)
      assert.deepEqual(await from('10.1.2.4', method, { remoteAddress: '10.1.2.3' }), ['office'], method)
      assert.deepEqual(await from('10.1.2.3', method, { remoteAddress: '172.16.0.1' }), [], method)
    }
  })

  test('ETag: the same answer, the same ETag; If-None-Match with it → 304 with no body; a change → a new answer at once', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'users')
    await addStrategy(pennon, 'users', 'development', { name: 'userWithId', parameters: { userIds: 'ann' } })
    assert.equal((await toggle(pennon, 'users', 'development', 'on')).status, 200)
    const token = await frontendToken(pennon)
    const ann = await call(pennon, 'GET', `${FRONTEND}?userId=ann`, undefined, { token })
    const etag = ann.headers.etag as string
    assert.match(etag, ETAG)
    // The ETag is the answer's: POST for the same context, or another context with the same answer, gives it too.
    assert.equal((await call(pennon, 'POST', FRONTEND, { context: { userId: 'ann', sessionId: 'x' } }, { token })).headers.etag, etag)
    const nobody = await call(pennon, 'GET', `${FRONTEND}?userId=bob`, undefined, { token })
    assert.notEqual(nobody.headers.etag, etag)
    assert.equal((await call(pennon, 'GET', FRONTEND, undefined, { token })).headers.etag, nobody.headers.etag)

    for (const ifNoneMatch of [etag, `W/${etag}`, `"x", ${etag}`, '*']) {
      for (const method of ['GET', 'POST'] as const) {
        const cached = await call(
          pennon,
          method,
          method === 'GET' ? `${FRONTEND}?userId=ann` : FRONTEND,
          method === 'GET' ? undefined : { context: { userId: 'ann' } },
          { token, headers: { 'if-none-match': ifNoneMatch } },
        )
        assert.equal(cached.status, 304, `${method} ${ifNoneMatch}`)
        assert.equal(cached.text, '')
        assert.equal(cached.headers.etag, etag)
        assert.equal(cached.headers['access-control-allow-origin'], '*')
      }
    }
    const otherAnswer = await call(pennon, 'GET', `${FRONTEND}?userId=bob`, undefined, { token, headers: { 'if-none-match': etag } })
    assert.deepEqual(togglesOf(otherAnswer), [])

    // A change shows at once, with a new ETag.
    await addStrategy(pennon, 'users', 'development', { name: 'userWithId', parameters: { userIds: 'bob' } })
    const changed = await call(pennon, 'GET', `${FRONTEND}?userId=bob`, undefined, {
      token,
      headers: { 'if-none-match': nobody.headers.etag as string },
    })
    assert.deepEqual(togglesOf(changed), [enabled('users')])
    assert.equal(changed.headers.etag, etag)
    assert.equal((await toggle(pennon, 'users', 'development', 'off')).status, 200)
    assert.deepEqual(
      togglesOf(await call(pennon, 'GET', `${FRONTEND}?userId=bob`, undefined, { token, headers: { 'if-none-match': etag } })),
      [],
    )
    await pennon.database.db.updateTable('features').set({ impression_data: true }).where('name', '=', 'users').execute()
    assert.equal((await toggle(pennon, 'users', 'development', 'on')).status, 200)
    assert.deepEqual(togglesOf(await call(pennon, 'GET', `${FRONTEND}?userId=ann`, undefined, { token })), [
      enabled('users', { impressionData: true }),
    ])
  })

  test('tokens: none or unknown → 401; a client token, or any service account → 403 NoAccessError ["FRONTEND"]', async (t) => {
    const pennon = await useTestApp(t, database)
    const tokens = [
      await apiToken(pennon, 'client'),
      await apiToken(pennon, 'backend'),
      await serviceAccountToken(pennon, 1),
      await serviceAccountToken(pennon, 2),
      await serviceAccountToken(pennon, 3),
    ]
    const forbidden = errorOf('NoAccessError', 'This endpoint needs a frontend or admin API token.', { permissions: ['FRONTEND'] })
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', { context: {} }],
    ] as const) {
      const anonymous = await call(pennon, method, FRONTEND, body, { token: null })
      assert.equal(anonymous.status, 401)
      assert.deepEqual(
        withoutId(anonymous.body),
        errorOf('AuthenticationRequired', 'Authentication required: send an API token in the Authorization header.'),
      )
      const unknown = await call(pennon, method, FRONTEND, body, { token: '*:development.unknown' })
      assert.equal(unknown.status, 401)
      assert.deepEqual(
        withoutId(unknown.body),
        errorOf('AuthenticationRequired', 'Authentication failed: the token in the Authorization header is unknown, deleted or expired.'),
      )
      for (const token of tokens) {
        const refused = await call(pennon, method, FRONTEND, body, { token })
        assert.equal(refused.status, 403, method)
        assert.deepEqual(withoutId(refused.body), forbidden)
        assert.equal(refused.headers.etag, undefined)
      }
    }
    // Authentication comes before the body: a bad body without a token is a 401.
    assert.equal((await call(pennon, 'POST', FRONTEND, { context: 'x' }, { token: null })).status, 401)
  })

  test('CORS: any origin may call; a preflight is answered 204 before authentication, echoing the asked headers when well-formed', async (t) => {
    const pennon = await useTestApp(t, database)
    const token = await frontendToken(pennon)
    const client = await apiToken(pennon, 'client')
    for (const origin of ['https://shop.example', 'http://localhost:3000', 'null']) {
      for (const [method, options] of [
        ['GET', { token }],
        ['POST', { token }],
        ['GET', { token: null }],
        ['GET', { token: client }],
      ] as const) {
        const response = await call(pennon, method, FRONTEND, method === 'POST' ? { context: {} } : undefined, {
          ...options,
          headers: { origin },
        })
        assert.equal(response.headers['access-control-allow-origin'], '*', `${method} ${response.status}`)
        assert.equal(response.headers['access-control-expose-headers'], 'ETag')
        assert.equal(response.headers['access-control-allow-credentials'], undefined)
      }
    }
    const preflight = (headers: Record<string, string>, url = FRONTEND) =>
      pennon.app.inject({ method: 'OPTIONS', url, headers: { origin: 'https://shop.example', ...headers } })
    const asked = 'authorization, content-type, unleash-appname, unleash-sdk, unleash-connection-id, if-none-match'
    for (const url of [FRONTEND, `${FRONTEND}/`, `${FRONTEND}?userId=x`]) {
      const answered = await preflight({ 'access-control-request-method': 'POST', 'access-control-request-headers': asked }, url)
      assert.equal(answered.statusCode, 204, url)
      assert.equal(answered.body, '')
      assert.equal(answered.headers['access-control-allow-origin'], '*')
      assert.equal(answered.headers['access-control-allow-methods'], 'GET, POST')
      assert.equal(answered.headers['access-control-allow-headers'], asked)
      assert.equal(answered.headers['access-control-max-age'], '86400')
    }
    // No headers asked, or ill-formed ones: the two the API needs.
    const illFormed: Record<string, string>[] = [
      {},
      { 'access-control-request-headers': 'authorization\r\nx: y' },
      { 'access-control-request-headers': 'bad header!' },
      { 'access-control-request-headers': `a,${'b'.repeat(1000)}` },
    ]
    for (const headers of illFormed) {
      const answered = await preflight({ 'access-control-request-method': 'GET', ...headers })
      assert.equal(answered.statusCode, 204)
      assert.equal(answered.headers['access-control-allow-headers'], 'Authorization, Content-Type')
    }
    // The client API is not for browsers: no CORS there.
    const clientPreflight = await preflight({ 'access-control-request-method': 'GET' }, '/api/client/features')
    assert.equal(clientPreflight.statusCode, 401)
    assert.equal(clientPreflight.headers['access-control-allow-origin'], undefined)
    const clientAnswer = await call(pennon, 'GET', '/api/client/features', undefined, {
      token: client,
      headers: { origin: 'https://shop.example' },
    })
    assert.equal(clientAnswer.status, 200)
    assert.equal(clientAnswer.headers['access-control-allow-origin'], undefined)
  })

  test('CORS with CORS_ORIGINS set: the frontend API still answers its own preflight for a listed origin', async (t) => {
    const pennon = await useTestApp(t, database, { env: { CORS_ORIGINS: 'https://admin.example' } })
    const answered = await pennon.app.inject({
      method: 'OPTIONS',
      url: FRONTEND,
      headers: {
        origin: 'https://admin.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, unleash-sdk',
      },
    })
    assert.equal(answered.statusCode, 204)
    assert.equal(answered.headers['access-control-allow-headers'], 'authorization, content-type, unleash-sdk')
    assert.equal(answered.headers['access-control-allow-methods'], 'GET, POST')
  })

  test('bad requests: a context that is not an object, a field that is not a string → 400 in the one error shape', async (t) => {
    const pennon = await useTestApp(t, database)
    const token = await frontendToken(pennon)
    const refused = (path: string, sent: string, type: string) => {
      const message = `The \`${path}\` property must be ${type}. You sent ${sent}.`
      return { name: 'ValidationError', message, details: [{ path, message }] }
    }
    for (const [body, expected] of [
      [{ context: 'userId=ann' }, refused('/body/context', '"userId=ann"', 'object')],
      [{ context: null }, refused('/body/context', 'null', 'object')],
      [{ context: ['ann'] }, refused('/body/context', '["ann"]', 'object')],
      [[], refused('/body', '[]', 'object')],
      [{ context: { userId: 5 } }, refused('/body/context/userId', '5', 'string')],
      [{ context: { sessionId: null } }, refused('/body/context/sessionId', 'null', 'string')],
      [{ context: { tenant: true } }, refused('/body/context/tenant', 'true', 'string')],
      [{ context: { properties: 'x' } }, refused('/body/context/properties', '"x"', 'object')],
      [{ context: { properties: { plan: 1 } } }, refused('/body/context/properties/plan', '1', 'string')],
    ] as const) {
      const response = await call(pennon, 'POST', FRONTEND, body, { token })
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.deepEqual(withoutId(response.body), expected, JSON.stringify(body))
    }
    const notJson = await call(pennon, 'POST', FRONTEND, undefined, {
      token,
      raw: '{"context":',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(notJson.status, 400)
    assert.equal(notJson.body.name, 'ValidationError')
    const text = await call(pennon, 'POST', FRONTEND, undefined, { token, raw: 'userId=ann', headers: { 'content-type': 'text/plain' } })
    assert.equal(text.status, 415)
    assert.deepEqual(
      withoutId(text.body),
      errorOf('ContentTypeerror', 'The content type "text/plain" is not accepted. Accepted content types: application/json.'),
    )
    // A field too long for a context.
    const long = await call(pennon, 'GET', `${FRONTEND}?userId=${'x'.repeat(10_001)}`, undefined, { token })
    assert.equal(long.status, 400)
    assert.equal(long.body.details[0].path, '/query/userId')
  })
})

onEachDatabase('the frontend API in the OpenAPI document', (database) => {
  test('it is /api/frontend, as the reference (with a slash it answers the same, undocumented)', async (t) => {
    const pennon = await useTestApp(t, database)
    const paths = Object.keys((await call(pennon, 'GET', '/docs/openapi.json', undefined, { token: null })).body.paths)
    assert.deepEqual(
      paths.filter((path) => path === '/api/frontend' || path === '/api/frontend/'),
      ['/api/frontend'],
    )
    const document = (await call(pennon, 'GET', '/docs/openapi.json', undefined, { token: null })).body
    assert.deepEqual(Object.keys(document.paths['/api/frontend']).sort(), ['get', 'post'])
  })
})
