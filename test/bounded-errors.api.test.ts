/**
 * docs/contract.md §0: an error shows what was sent cut at 100 characters, and property paths (made of the
 * caller's keys) are cut too. Megabyte names, keys, values, path parameters, query strings and
 * header values, on every kind of route: every answer is a small error in the one shape.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError, cut } from '../src/http/errors.ts'
import { errorBody } from '../src/http/error-handler.ts'
import { call, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from './test-app.ts'

const MB = 1024 * 1024
const huge = 'x'.repeat(MB)
// The case: a long name whose last character is an unpaired surrogate.
const hugeKey = `${'é'.repeat(MB)}\ud800`
// As long as a path parameter may be (the router's limit), so that it reaches the route.
const longParam = 'y'.repeat(1000)
const BOUND = 2048

interface Case {
  what: string
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  url: string
  body?: unknown
  raw?: string
  headers?: Record<string, string>
}

const json = { 'content-type': 'application/json' }
const features = '/api/admin/projects/default/features'

const CASES: Case[] = [
  { what: 'a flag name', method: 'POST', url: features, body: { name: huge } },
  { what: 'a key ending in a lone surrogate', method: 'POST', url: features, body: { name: 'ok', [hugeKey]: 1 } },
  { what: 'a description with a NUL', method: 'POST', url: features, body: { name: 'ok', description: `${huge}\u0000` } },
  {
    what: 'a __proto__ key under a long key',
    method: 'POST',
    url: features,
    raw: `{"name":"ok","${huge}":{"__proto__":1}}`,
    headers: json,
  },
  { what: 'a flag type', method: 'POST', url: features, body: { name: 'ok', type: huge } },
  { what: 'a segment name', method: 'POST', url: '/api/admin/segments', body: { name: huge, constraints: [] } },
  {
    what: 'a constraint value',
    method: 'POST',
    url: '/api/admin/segments',
    body: { name: 's', constraints: [{ contextName: 'userId', operator: 'NUM_EQ', value: huge }] },
  },
  {
    what: 'a constraint key',
    method: 'POST',
    url: '/api/admin/segments',
    body: { name: 's', constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'], [huge]: 1 }] },
  },
  {
    what: 'a constraint operator, context and values',
    method: 'POST',
    url: '/api/admin/segments',
    body: { name: 's', constraints: [{ contextName: huge, operator: huge, values: [huge, hugeKey] }] },
  },
  { what: 'a segment project', method: 'POST', url: '/api/admin/segments', body: { name: 's', project: huge, constraints: [] } },
  { what: 'a parent flag', method: 'POST', url: `${features}/child/dependencies`, body: { feature: huge } },
  { what: 'archive names', method: 'POST', url: '/api/admin/projects/default/archive', body: { features: huge } },
  { what: 'revive names', method: 'POST', url: '/api/admin/projects/default/revive', body: { features: [huge, 1] } },
  {
    what: 'archive validation names',
    method: 'POST',
    url: '/api/admin/projects/default/archive/validate',
    body: { features: [huge, hugeKey] },
  },
  { what: 'a project id and name', method: 'POST', url: '/api/admin/projects', body: { id: huge, name: huge } },
  { what: 'a token name and type', method: 'POST', url: '/api/admin/api-tokens', body: { tokenName: huge, type: huge } },
  { what: 'a service account', method: 'POST', url: '/api/admin/service-account', body: { username: huge, name: huge, rootRole: huge } },
  {
    what: 'an expiry in the past, written long',
    method: 'POST',
    url: '/api/admin/api-tokens',
    body: { tokenName: 't', type: 'admin', expiresAt: `2001-01-01T00:00:00.${'0'.repeat(MB)}Z` },
  },
  { what: 'body JSON broken after a long string', method: 'POST', url: '/api/admin/projects', raw: `{"id":"${huge}`, headers: json },
  { what: 'body JSON broken by a long word', method: 'POST', url: '/api/admin/projects', raw: huge, headers: json },
  { what: 'a content type', method: 'POST', url: '/api/admin/projects', raw: '{}', headers: { 'content-type': huge } },
  {
    what: 'content type parameters',
    method: 'POST',
    url: '/api/admin/projects',
    raw: '{}',
    headers: { 'content-type': `application/json; ${huge}` },
  },
  { what: 'a path parameter past the router', method: 'GET', url: `${features}/${huge}` },
  { what: 'an unknown path', method: 'GET', url: `/api/admin/${huge}` },
  { what: 'a malformed %-escape in a long path', method: 'GET', url: `/api/admin/projects/%zz${huge}` },
  { what: 'a long project in the path', method: 'DELETE', url: `/api/admin/projects/${longParam}` },
  { what: 'a long flag in the path', method: 'GET', url: `${features}/${longParam}` },
  { what: 'a long token name in the path', method: 'DELETE', url: `/api/admin/api-tokens/${longParam}` },
  { what: 'a long segment id in the path', method: 'GET', url: `/api/admin/segments/${longParam}` },
  { what: 'a query value', method: 'GET', url: `/api/admin/events?project=${huge}` },
  { what: 'a query value with a NUL', method: 'GET', url: `/api/admin/events?project=${'é'.repeat(1000)}%00` },
  { what: 'a query key with a NUL', method: 'GET', url: `/api/admin/events?${huge}%00=1` },
  { what: 'a query value given twice', method: 'GET', url: `/api/admin/events?project=${huge}&project=${huge}` },
  { what: 'an authorization header', method: 'GET', url: '/api/admin/projects', headers: { authorization: huge } },
]

/** Every error: small, JSON, and exactly the one shape. */
function assertBoundedError(
  response: { statusCode: number; headers: Record<string, unknown>; body: string; rawPayload: Buffer },
  what: string,
): void {
  const where = `${what} → ${response.statusCode} ${response.body.slice(0, 300)}`
  assert.ok(response.statusCode >= 400 && response.statusCode < 500, where)
  assert.ok(response.rawPayload.length < BOUND, `${where}: ${response.rawPayload.length} bytes`)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', where)
  const body = JSON.parse(response.body)
  const keys = Object.keys(body).filter((key) => key !== 'permissions')
  assert.deepEqual(keys, ['id', 'name', 'message', 'details'], where)
  withoutId(body)
  assert.ok(typeof body.name === 'string' && typeof body.message === 'string', where)
  assert.ok(Array.isArray(body.details) && body.details.length > 0, where)
  for (const detail of body.details) {
    assert.ok(typeof detail.message === 'string', where)
    assert.ok(
      Object.keys(detail).every((key) => key === 'path' || key === 'message'),
      where,
    )
    if ('path' in detail) assert.equal(typeof detail.path, 'string', where)
  }
}

function send(pennon: TestApp, { method, url, body, raw, headers }: Case, token: string | null = pennon.adminToken) {
  const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body))
  return pennon.app.inject({
    method,
    url,
    headers: { ...(token === null ? {} : { authorization: token }), ...(body === undefined ? {} : json), ...headers },
    ...(payload === undefined ? {} : { payload }),
  })
}

test('the last guard: no message, detail or path leaves longer than its bound, whatever a future message echoes', () => {
  const body = errorBody(
    new AppError(404, 'NotFoundError', `Nothing is named ${huge}.`, {
      details: [{ path: `/body/${huge}`, message: huge }, { message: 'short' }],
    }),
  )
  assert.equal(body.message, `Nothing is named ${'x'.repeat(983)}…`)
  assert.deepEqual(body.details, [{ path: `/body/${'x'.repeat(94)}…`, message: `${'x'.repeat(1000)}…` }, { message: 'short' }])
  assert.equal(errorBody(new AppError(404, 'NotFoundError', huge)).details[0]!.message, `${'x'.repeat(1000)}…`)
  assert.equal(cut(`${'a'.repeat(99)}😀`), `${'a'.repeat(99)}…`, 'a pair is never split')
  assert.equal(cut('a'.repeat(100)), 'a'.repeat(100))
})

onEachDatabase('bounded errors', (database) => {
  test('megabytes sent anywhere: every error body stays under 2 KB, in the one shape', { timeout: 120_000 }, async (t) => {
    const pennon = await useTestApp(t, database, { env: { BODY_LIMIT: String(8 * MB), LOG_LEVEL: 'silent' } })
    await call(pennon, 'POST', features, { name: 'child' })
    const viewer = await serviceAccountToken(pennon, 3)
    for (const item of CASES) {
      assertBoundedError(await send(pennon, item), item.what)
      // The same with no token (401), and with a viewer's (403 where it needs a permission).
      assertBoundedError(await send(pennon, item, null), `${item.what}, no token`)
      assertBoundedError(await send(pennon, item, viewer), `${item.what}, a viewer`)
    }
    // Past the body limit the answer is a 413, no bigger.
    assertBoundedError(
      await send(pennon, { what: '', method: 'POST', url: '/api/admin/projects', body: { id: 'x'.repeat(9 * MB) } }),
      'over the body limit',
    )
  })

  test('the issue: a 1 MB key ending in an unpaired surrogate is named cut at 100 characters, with an ellipsis', async (t) => {
    const pennon = await useTestApp(t, database, { env: { BODY_LIMIT: String(8 * MB) } })
    const response = await call(pennon, 'POST', features, { name: 'ok', [hugeKey]: 1 })
    assert.equal(response.status, 400)
    const path = `/body/${'é'.repeat(94)}…`
    const message = `The \`${path}\` property contains a NUL character or an unpaired surrogate, which cannot be stored. You sent "${'é'.repeat(99)}….`
    assert.deepEqual(withoutId(response.body), { name: 'ValidationError', message, details: [{ path, message }] })

    // A pair is never split at the cut: a 😀 that would straddle it is left out whole.
    const emoji = await call(pennon, 'POST', features, { name: 'ok', [`${'a'.repeat(93)}😀${'a'.repeat(1000)}\u0000`]: 1 })
    assert.equal(emoji.body.details[0].path, `/body/${'a'.repeat(93)}…`)
    const pair = await call(pennon, 'POST', features, { name: 'ok', [`${'a'.repeat(92)}😀${'a'.repeat(1000)}\u0000`]: 1 })
    assert.equal(pair.body.details[0].path, `/body/${'a'.repeat(92)}😀…`)

    // An unknown property deep in a constraint: its path is cut the same way.
    const extra = await call(pennon, 'POST', '/api/admin/segments', {
      name: 's',
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'], [huge]: 1 }],
    })
    assert.equal(extra.status, 400)
    const extraPath = `/body/constraints/0/${'x'.repeat(80)}…`
    const extraMessage = `The \`/body/constraints/0\` object does not allow the property \`${extraPath}\`. Remove it.`
    assert.deepEqual(withoutId(extra.body), {
      name: 'ValidationError',
      message: extraMessage,
      details: [{ path: extraPath, message: extraMessage }],
    })

    // A content type is quoted like a value.
    const type = await call(pennon, 'POST', '/api/admin/projects', undefined, { raw: '{}', headers: { 'content-type': huge } })
    assert.equal(type.status, 415)
    assert.equal(type.body.message, `The content type "${'x'.repeat(99)}… is not accepted. Accepted content types: application/json.`)

    // A name the service quotes from the path.
    const token = await call(pennon, 'DELETE', `/api/admin/api-tokens/${longParam}`)
    assert.equal(token.status, 404)
    assert.equal(token.body.message, `No API token is named "${'y'.repeat(99)}….`)
  })
})
