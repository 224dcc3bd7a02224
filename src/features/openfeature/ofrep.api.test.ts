/**
 * OFREP (POST /ofrep/v1/evaluate/flags[/:key]) through the real app on each database: values,
 * variants and reasons for each kind of decision, the tokens and the three ways to send them,
 * the protocol's error bodies (none on 401, 403, 429), the bounds of what a caller may send.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, onEachDatabase, serviceAccountToken, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { addDependency, createFlag, createProject } from '../../../test/helpers/flags.ts'
import { frontendToken } from '../../../test/helpers/frontend.ts'
import { addStrategy, placePath, toggle } from '../../../test/helpers/strategies.ts'
import { normalizedStrategyValue } from '../evaluation/murmurhash.ts'

const FLAGS = '/ofrep/v1/evaluate/flags'
const JSON_TYPE = 'application/json; charset=utf-8'

const one = (pennon: TestApp, key: string, context: Record<string, unknown>, token: string | null, headers?: Record<string, string>) =>
  call(pennon, 'POST', `${FLAGS}/${key}`, { context }, { token, ...(headers ? { headers } : {}) })

function answer(response: { status: number; headers: Record<string, unknown>; body: any; text: string }) {
  assert.equal(response.status, 200, response.text)
  assert.equal(response.headers['content-type'], JSON_TYPE)
  return response.body
}

const meta = (fields: Record<string, unknown> = {}) => ({
  project: 'default',
  type: 'release',
  stale: false,
  variantEnabled: false,
  ...fields,
})

function idWhere(groupId: string, percent: number, inside: boolean): string {
  for (let i = 0; i < 1000; i++) {
    const id = `user-${i}`
    if (normalizedStrategyValue(id, groupId) <= percent === inside) return id
  }
  throw new Error('no such id')
}

async function on(pennon: TestApp, name: string, strategy?: Record<string, unknown>, project = 'default') {
  await createFlag(pennon, name, project)
  if (strategy) await addStrategy(pennon, name, 'development', strategy, project)
  assert.equal((await toggle(pennon, name, 'development', 'on', project)).status, 200)
}

onEachDatabase('OFREP', (database) => {
  test('one flag: the value, variant and reason of each kind of decision, with primitive metadata', async (t) => {
    const pennon = await useTestApp(t, database)
    await on(pennon, 'everyone', { name: 'default' })
    await on(pennon, 'all-of-them', { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'a' } })
    await on(pennon, 'half', { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId', groupId: 'g' } })
    await on(pennon, 'nordic', { name: 'default', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }] })
    await on(pennon, 'ann-only', { name: 'userWithId', parameters: { userIds: 'ann' } })
    await createFlag(pennon, 'switched-off')
    await on(pennon, 'child', { name: 'default' })
    const dependency = await addDependency(pennon, 'child', { feature: 'switched-off' })
    assert.equal(dependency.status, 200, dependency.text)
    const token = await frontendToken(pennon, 'development')
    const [inside, outside] = [idWhere('g', 50, true), idWhere('g', 50, false)]

    const expect = async (key: string, context: Record<string, unknown>, value: unknown, reason: string, variant = 'disabled') =>
      assert.deepEqual(answer(await one(pennon, key, context, token)), { key, value, reason, variant, metadata: meta() }, key)
    await expect('everyone', {}, true, 'STATIC')
    await expect('all-of-them', { targetingKey: 'x' }, true, 'STATIC')
    await expect('half', { targetingKey: inside }, true, 'SPLIT')
    await expect('half', { targetingKey: outside }, false, 'DEFAULT')
    await expect('nordic', { country: 'NO' }, true, 'TARGETING_MATCH')
    await expect('nordic', { country: 'DK' }, false, 'DEFAULT')
    await expect('ann-only', { targetingKey: 'ann' }, true, 'TARGETING_MATCH')
    await expect('switched-off', {}, false, 'DISABLED')
    await expect('child', {}, false, 'DISABLED')
    // Key order as the protocol lists them.
    assert.deepEqual(Object.keys(answer(await one(pennon, 'everyone', {}, token))), ['key', 'value', 'reason', 'variant', 'metadata'])
  })

  test("one flag: an enabled flag's variant with a payload answers the payload, typed, with reason SPLIT", async (t) => {
    const pennon = await useTestApp(t, database)
    const variants = {
      json: { type: 'json', value: '{"size":2,"tags":["a"]}' },
      number: { type: 'number', value: '7.5' },
      string: { type: 'string', value: 'R' },
      csv: { type: 'csv', value: 'a,b' },
    }
    for (const [name, payload] of Object.entries(variants)) {
      await on(pennon, name)
      const put = await call(pennon, 'PUT', `${placePath(name, 'development')}/variants`, [
        { name: `${name}-variant`, stickiness: 'default', payload },
      ])
      assert.equal(put.status, 200, put.text)
    }
    await createFlag(pennon, 'off-with-payload')
    const put = await call(pennon, 'PUT', `${placePath('off-with-payload', 'development')}/variants`, [
      { name: 'v', stickiness: 'default', payload: { type: 'string', value: 'never' } },
    ])
    assert.equal(put.status, 200, put.text)
    const token = await apiToken(pennon, 'client')
    const typed = { json: { size: 2, tags: ['a'] }, number: 7.5, string: 'R', csv: 'a,b' }
    for (const [name, value] of Object.entries(typed)) {
      assert.deepEqual(answer(await one(pennon, name, { targetingKey: 'u' }, token)), {
        key: name,
        value,
        reason: 'SPLIT',
        variant: `${name}-variant`,
        metadata: meta({ variantEnabled: true, payloadType: name }),
      })
    }
    // Off: the boolean, whatever its variants.
    assert.deepEqual(answer(await one(pennon, 'off-with-payload', {}, token)), {
      key: 'off-with-payload',
      value: false,
      reason: 'DISABLED',
      variant: 'disabled',
      metadata: meta(),
    })
  })

  test('the context: targetingKey is the userId, standard fields stay, the rest are properties (numbers and booleans as text)', async (t) => {
    const pennon = await useTestApp(t, database)
    await on(pennon, 'match', {
      name: 'default',
      constraints: [
        { contextName: 'userId', operator: 'IN', values: ['ann'] },
        { contextName: 'appName', operator: 'IN', values: ['shop'] },
        { contextName: 'sessionId', operator: 'IN', values: ['s1'] },
        { contextName: 'age', operator: 'NUM_GTE', value: '18' },
        { contextName: 'beta', operator: 'IN', values: ['true'] },
        { contextName: 'plan', operator: 'IN', values: ['pro'] },
      ],
    })
    const token = await frontendToken(pennon, 'development')
    const context = {
      targetingKey: 'ann',
      appName: 'shop',
      sessionId: 's1',
      age: 30,
      beta: true,
      properties: { plan: 'pro' },
      nested: { a: 1 },
    }
    assert.equal(answer(await one(pennon, 'match', context, token)).value, true)
    for (const change of [{ targetingKey: 'bob' }, { age: 17 }, { beta: false }, { properties: { plan: 'free' } }, { appName: 'other' }])
      assert.equal(answer(await one(pennon, 'match', { ...context, ...change }, token)).value, false, JSON.stringify(change))
    // An absent context is an empty one.
    const absent = await call(pennon, 'POST', `${FLAGS}/match`, {}, { token })
    assert.equal(answer(absent).reason, 'DEFAULT')
  })

  test("tokens: client, frontend and admin tokens, as Authorization, Bearer or X-API-Key; the token's scope decides", async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    await on(pennon, 'basket', { name: 'default' }, 'shop')
    await on(pennon, 'home', { name: 'default' })
    const frontend = await frontendToken(pennon, 'development', ['default'])
    const client = await apiToken(pennon, 'client')
    for (const token of [frontend, client, pennon.adminToken]) {
      assert.equal(answer(await one(pennon, 'home', {}, token)).value, true)
      assert.equal(answer(await one(pennon, 'home', {}, null, { authorization: `Bearer ${token}` })).value, true)
      assert.equal(answer(await one(pennon, 'home', {}, null, { 'x-api-key': token })).value, true)
    }
    // Outside the token's projects: not found, as a flag that does not exist.
    for (const key of ['basket', 'nothing']) {
      const response = await one(pennon, key, {}, frontend)
      assert.equal(response.status, 404)
      assert.equal(response.headers['content-type'], JSON_TYPE)
      assert.deepEqual(response.body, {
        key,
        errorCode: 'FLAG_NOT_FOUND',
        errorDetails: `No flag named "${key}" is readable with this token (its environment and projects).`,
      })
    }
    assert.equal(answer(await one(pennon, 'basket', {}, client)).value, true)
    // 401 without a token or with a wrong one, 403 for a token of another kind: no body.
    for (const [token, status] of [
      [null, 401],
      ['*:development.nope', 401],
      [await serviceAccountToken(pennon, 3), 403],
    ] as const) {
      for (const url of [`${FLAGS}/home`, FLAGS]) {
        const response = await call(pennon, 'POST', url, { context: {} }, { token })
        assert.equal(response.status, status, response.text)
        assert.equal(response.text, '')
      }
    }
  })

  test('429 with Retry-After and no body once an address has failed too often', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '2' } })
    await on(pennon, 'home', { name: 'default' })
    for (let i = 0; i < 2; i++) assert.equal((await one(pennon, 'home', {}, 'wrong')).status, 401)
    const refused = await one(pennon, 'home', {}, 'wrong')
    assert.equal(refused.status, 429)
    assert.equal(refused.text, '')
    assert.match(refused.headers['retry-after'] as string, /^[1-9][0-9]?$/)
    // A working token is still answered.
    assert.equal(answer(await one(pennon, 'home', {}, await apiToken(pennon, 'client'))).value, true)
  })

  test("errors in the protocol's shapes: PARSE_ERROR, INVALID_CONTEXT, TARGETING_KEY_MISSING, GENERAL; bounded input", async (t) => {
    const pennon = await useTestApp(t, database)
    await on(pennon, 'home', { name: 'default' })
    const token = await frontendToken(pennon, 'development')
    const failure = async (response: { status: number; body: any; headers: Record<string, unknown>; text: string }, code: string) => {
      assert.equal(response.status, 400, response.text)
      assert.equal(response.headers['content-type'], JSON_TYPE)
      assert.equal(response.body.errorCode, code, response.text)
      assert.equal(typeof response.body.errorDetails, 'string')
      return response.body
    }
    const raw = (url: string, text: string, type = 'application/json') =>
      call(pennon, 'POST', url, undefined, { token, raw: text, headers: { 'content-type': type } })
    const single = await failure(await raw(`${FLAGS}/home`, '{"context":'), 'PARSE_ERROR')
    assert.deepEqual(Object.keys(single), ['key', 'errorCode', 'errorDetails'])
    assert.equal(single.key, 'home')
    const bulk = await failure(await raw(FLAGS, '{"context":'), 'PARSE_ERROR')
    assert.deepEqual(Object.keys(bulk), ['errorCode', 'errorDetails'])
    await failure(await raw(FLAGS, ''), 'PARSE_ERROR')
    await failure(await raw(FLAGS, '{"context":{}}', 'text/plain'), 'GENERAL')
    await failure(await one(pennon, 'home', { targetingKey: 7 }, token), 'INVALID_CONTEXT')
    await failure(await call(pennon, 'POST', FLAGS, { context: 'me' }, { token }), 'INVALID_CONTEXT')
    await failure(await call(pennon, 'POST', FLAGS, [], { token }), 'INVALID_CONTEXT')
    assert.equal((await failure(await one(pennon, 'home', { targetingKey: '' }, token), 'TARGETING_KEY_MISSING')).key, 'home')
    // Bounds: fields, value length, body size.
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, 'x']))
    await failure(await one(pennon, 'home', many, token), 'INVALID_CONTEXT')
    const properties = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`p${i}`, 'x']))
    await failure(await one(pennon, 'home', { properties }, token), 'INVALID_CONTEXT')
    await failure(await one(pennon, 'home', { plan: 'x'.repeat(10_001) }, token), 'INVALID_CONTEXT')
    await failure(await one(pennon, 'home', { ['n'.repeat(256)]: 'x' }, token), 'INVALID_CONTEXT')
    const large = await one(pennon, 'home', { plan: 'x'.repeat(70_000) }, token)
    assert.deepEqual(large.body, {
      key: 'home',
      errorCode: 'GENERAL',
      errorDetails: 'The request body is larger than this server accepts.',
    })
    // An address under /ofrep that names no route (a key the router will not take): the protocol's
    // shapes too, after the same authentication.
    for (const url of [`${FLAGS}/..`, `${FLAGS}/%2e%2e`, '/ofrep/v2/evaluate/flags']) {
      const unknown = await call(pennon, 'POST', url, { context: {} }, { token })
      assert.equal(unknown.status, 404, url)
      assert.equal(unknown.headers['content-type'], JSON_TYPE)
      assert.equal(unknown.body.errorCode, 'FLAG_NOT_FOUND', url)
      assert.match(unknown.body.errorDetails, /^Nothing is served at \/ofrep\//)
      const unauthenticated = await call(pennon, 'POST', url, { context: {} }, { token: null })
      assert.deepEqual([unauthenticated.status, unauthenticated.text], [401, ''], url)
    }
    // A malformed %-escape in the key: refused before routing, in the protocol's shape.
    const malformed = await call(pennon, 'POST', `${FLAGS}/%`, { context: {} }, { token })
    assert.equal(malformed.status, 400)
    assert.equal(malformed.headers['content-type'], JSON_TYPE)
    assert.deepEqual(malformed.body, {
      errorCode: 'PARSE_ERROR',
      errorDetails: 'The request path contains a malformed percent-encoded sequence.',
    })
    // Within the bounds: answered.
    assert.equal(
      answer(await one(pennon, 'home', Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`f${i}`, 'x'])), token)).value,
      true,
    )
  })

  test('bulk: every flag of the scope, disabled ones included, in the answers of the single-flag route', async (t) => {
    const pennon = await useTestApp(t, database)
    await on(pennon, 'b-on', { name: 'default' })
    await createFlag(pennon, 'a-off')
    await on(pennon, 'c-nordic', { name: 'default', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }] })
    const token = await frontendToken(pennon, 'development')
    for (const context of [{}, { country: 'NO' }]) {
      const body = answer(await call(pennon, 'POST', FLAGS, { context }, { token }))
      assert.deepEqual(
        body.flags.map((flag: { key: string }) => flag.key),
        ['a-off', 'b-on', 'c-nordic'],
      )
      for (const flag of body.flags) assert.deepEqual(flag, answer(await one(pennon, flag.key, context, token)))
    }
    const off = answer(await call(pennon, 'POST', FLAGS, { context: {} }, { token })).flags[0]
    assert.deepEqual(off, { key: 'a-off', value: false, reason: 'DISABLED', variant: 'disabled', metadata: meta() })
  })
})
