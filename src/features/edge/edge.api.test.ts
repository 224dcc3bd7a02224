/**
 * Unleash Edge's routes, on the wire Edge uses (its source: unleash-edge-http-client): token
 * validation at POST /edge/validate without credentials (client and frontend tokens only, every
 * token that does not work a failed authentication of the address), and Edge's report of itself
 * at POST /api/client/metrics/edge with a client token.
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
import { asBrowser, createUser, signIn } from '../../../test/people.ts'
import { MAX_TOKENS_PER_VALIDATION } from './edge-schemas.ts'

const validate = (pennon: Parameters<typeof call>[0], tokens: unknown, options: Parameters<typeof call>[4] = {}) =>
  call(pennon, 'POST', '/edge/validate', { tokens }, { token: null, ...options })

/** A validation from another address than the other requests' (each address is throttled on its own). */
async function validateFrom(pennon: TestApp, address: string, tokens: unknown) {
  const response = await pennon.app.inject({
    method: 'POST',
    url: '/edge/validate',
    remoteAddress: address,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ tokens }),
  })
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) }
}

const guesses = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `default:development.guess-${from + i}`)
const throttledBody = (retryAfter: unknown) =>
  errorOf('TooManyRequestsError', `Too many failed authentications from this address: try again in ${retryAfter} seconds.`)

/** What Edge 20 posts every minute (EdgeInstanceData, serialized by serde in camelCase). */
const instanceData = {
  identifier: '01JQ4Y5M6Z8B2W3V0X1T9R7S6P',
  appName: 'unleash-edge',
  region: null,
  edgeVersion: '20.1.4',
  processMetrics: null,
  started: '2026-01-02T03:04:05.678Z',
  traffic: { get: {}, post: {}, accessDenied: {}, cachedResponses: {} },
  latencyUpstream: { features: [], metrics: [], edge: [] },
  requestsSinceLastReport: { '/api/client/features': { requests200: 12, requests304: 40 } },
  connectedStreamingClients: 0,
  connectedEdges: [],
  connectionConsumptionSinceLastReport: { features: [], metrics: [] },
  requestConsumptionSinceLastReport: { meteredGroups: { default: 52 } },
  edgeApiKeyRevisionIds: [],
}

onEachDatabase('Unleash Edge routes', (database) => {
  test('POST /edge/validate: the tokens that work, once each, in the order sent, without credentials', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client', 'edge-client')
    const frontend = await apiToken(pennon, 'frontend', 'edge-frontend')
    const scoped = (
      await call(pennon, 'POST', '/api/admin/api-tokens', {
        tokenName: 'edge-scoped',
        type: 'backend',
        projects: ['default'],
        environment: 'production',
      })
    ).body.secret
    const expired = await apiToken(pennon, 'client', 'edge-expired')
    await pennon.database.db
      .updateTable('api_tokens')
      .set({ expires_at: '2020-01-01T00:00:00.000Z' })
      .where('token_name', '=', 'edge-expired')
      .execute()
    const deleted = await apiToken(pennon, 'client', 'edge-deleted')
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/edge-deleted')).status, 200)

    const response = await validate(pennon, [frontend, 'default:development.not-a-token', client, scoped, expired, deleted, client])
    assert.equal(response.status, 200, response.text)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(response.body, {
      tokens: [
        { token: frontend, type: 'frontend', projects: ['*'], environment: 'development' },
        { token: client, type: 'client', projects: ['*'], environment: 'development' },
        { token: scoped, type: 'backend', projects: ['default'], environment: 'production' },
      ],
    })
    assert.deepEqual((await validate(pennon, [])).body, { tokens: [] })
    // A credential sent along changes nothing: the answer is about the body's tokens.
    assert.deepEqual((await validate(pennon, [client], { token: frontend })).body, {
      tokens: [{ token: client, type: 'client', projects: ['*'], environment: 'development' }],
    })
  })

  test('POST /edge/validate: body rules, content type and size', async (t) => {
    const pennon = await useTestApp(t, database)
    const notAList = await validate(pennon, 'abc')
    assert.equal(notAList.status, 400)
    assert.deepEqual(withoutId(notAList.body).details, [
      { path: '/body/tokens', message: 'The `/body/tokens` property must be array. You sent "abc".' },
    ])
    const tooMany = await validate(
      pennon,
      Array.from({ length: MAX_TOKENS_PER_VALIDATION + 1 }, (_, i) => `t${i}`),
    )
    assert.equal(tooMany.status, 400)
    assert.equal(withoutId(tooMany.body).name, 'ValidationError')
    assert.deepEqual(withoutId(tooMany.body).details, [
      {
        path: '/body/tokens',
        message: `The \`/body/tokens\` property must NOT have more than ${MAX_TOKENS_PER_VALIDATION} items. You sent ["t0","t1","t2","t3","t4","t5","t6","t7","t8","t9","t10","t11","t12","t13","t14","t15","t16","t17","….`,
      },
    ])
    const missing = await call(pennon, 'POST', '/edge/validate', {}, { token: null })
    assert.equal(missing.status, 400)
    const required = 'The `/body/tokens` property is required. It was not present on the data you sent.'
    assert.deepEqual(withoutId(missing.body), {
      name: 'ValidationError',
      message: required,
      details: [{ message: required, path: '/body/tokens' }],
    })
    const text = await call(pennon, 'POST', '/edge/validate', undefined, {
      token: null,
      raw: '{"tokens":[]}',
      headers: { 'content-type': 'text/plain' },
    })
    assert.equal(text.status, 415)
    assert.deepEqual(
      withoutId(text.body),
      errorOf('ContentTypeerror', 'The content type "text/plain" is not accepted. Accepted content types: application/json.'),
    )
    const large = await call(pennon, 'POST', '/edge/validate', undefined, {
      token: null,
      raw: JSON.stringify({ tokens: ['x'.repeat(300 * 1024)] }),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(large.status, 413)
  })

  test('POST /edge/validate: unknown tokens count as failed authentications of the address; past the limit 429', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '3' } })
    const client = await apiToken(pennon, 'client', 'edge-client')
    assert.deepEqual((await validate(pennon, [client, 'a', 'b'])).body, {
      tokens: [{ token: client, type: 'client', projects: ['*'], environment: 'development' }],
    })
    assert.deepEqual((await validate(pennon, ['c', 'c'])).body, { tokens: [] })
    const throttled = await validate(pennon, [client])
    assert.equal(throttled.status, 429)
    assert.match(throttled.headers['retry-after'] as string, /^([1-9]|[1-5][0-9]|60)$/)
    assert.deepEqual(
      withoutId(throttled.body),
      errorOf(
        'TooManyRequestsError',
        `Too many failed authentications from this address: try again in ${throttled.headers['retry-after']} seconds.`,
      ),
    )
    // Another address is not throttled.
    const elsewhere = await pennon.app.inject({
      method: 'POST',
      url: '/edge/validate',
      remoteAddress: '10.1.2.3',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ tokens: [client] }),
    })
    assert.equal(elsewhere.statusCode, 200)
  })

  test('POST /edge/validate: one request tests no more unknown tokens than the address may fail (AUTH_FAILURES_PER_MINUTE): 429, and it stays throttled', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client', 'edge-client')
    // 60 guesses use the address's minute; the valid token after them (the 61st token) is not looked up.
    const sweep = await validateFrom(pennon, '10.9.0.1', [...guesses(60), client, ...guesses(939, 60)])
    assert.equal(sweep.status, 429)
    assert.equal(sweep.headers['retry-after'], '60')
    assert.equal(sweep.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(withoutId(sweep.body), throttledBody(60))
    const next = await validateFrom(pennon, '10.9.0.1', [client])
    assert.equal(next.status, 429)
    assert.deepEqual(withoutId(next.body), throttledBody(next.headers['retry-after']))
    // One count with the other routes': a wrong token there is throttled too; a valid one still works.
    const adminApi = (token: string) =>
      pennon.app.inject({ method: 'GET', url: '/api/admin/projects', remoteAddress: '10.9.0.1', headers: { authorization: token } })
    assert.equal((await adminApi('wrong')).statusCode, 429)
    assert.equal((await adminApi(pennon.adminToken)).statusCode, 200)

    // Tokens that work do not count: from a fresh address, 59 guesses beside them leave it one failure.
    const frontend = await apiToken(pennon, 'frontend', 'edge-frontend')
    const expected = {
      tokens: [
        { token: client, type: 'client', projects: ['*'], environment: 'development' },
        { token: frontend, type: 'frontend', projects: ['*'], environment: 'development' },
      ],
    }
    const mixed = await validateFrom(pennon, '10.9.0.2', [client, ...guesses(59), frontend])
    assert.equal(mixed.status, 200)
    assert.deepEqual(mixed.body, expected)
    assert.deepEqual((await validateFrom(pennon, '10.9.0.2', [client, frontend])).body, expected)
    // Its 60th failure is the last token: answered; after it, nothing is looked up.
    const last = await validateFrom(pennon, '10.9.0.2', [client, frontend, 'default:development.one-more'])
    assert.equal(last.status, 200)
    assert.deepEqual(last.body, expected)
    assert.equal((await validateFrom(pennon, '10.9.0.2', [client])).status, 429)
  })

  test("POST /edge/validate: requests under way at once share the address's allowance", async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '10' } })
    const client = await apiToken(pennon, 'client', 'edge-client')
    // 12 guesses in all against an allowance of 10: whichever request comes second runs out.
    const answers = await Promise.all([
      validateFrom(pennon, '10.9.0.3', [...guesses(6), client]),
      validateFrom(pennon, '10.9.0.3', [...guesses(6, 6), client]),
    ])
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 429])
    assert.deepEqual(answers.find((answer) => answer.status === 200)!.body, {
      tokens: [{ token: client, type: 'client', projects: ['*'], environment: 'development' }],
    })
    const refused = answers.find((answer) => answer.status === 429)!
    assert.deepEqual(withoutId(refused.body), throttledBody(refused.headers['retry-after']))
  })

  test('POST /edge/validate: admin, service-account and personal tokens are not confirmed, and count as unknown ones', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '4' } })
    const client = await apiToken(pennon, 'client', 'edge-client')
    const admin = await apiToken(pennon, 'admin', 'edge-admin')
    const account = await serviceAccountToken(pennon, 1)
    await createUser(pennon, 'edge-person@example.com', 1)
    const personal = (
      await call(
        pennon,
        'POST',
        '/api/admin/user/tokens',
        { description: 'edge', expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString() },
        asBrowser(await signIn(pennon, 'edge-person@example.com')),
      )
    ).body.secret
    // Each works on the admin API.
    for (const token of [pennon.adminToken, admin, account, personal])
      assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token })).status, 200)

    const answer = await validateFrom(pennon, '10.9.0.4', [pennon.adminToken, client, admin, account, personal])
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.body, { tokens: [{ token: client, type: 'client', projects: ['*'], environment: 'development' }] })
    // Four failures: the address is throttled.
    const after = await validateFrom(pennon, '10.9.0.4', [client])
    assert.equal(after.status, 429)
    assert.deepEqual(withoutId(after.body), throttledBody(after.headers['retry-after']))
  })

  test("POST /api/client/metrics/edge: Edge's report of itself, with a client token: 202 and nothing kept", async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    const accepted = await call(pennon, 'POST', '/api/client/metrics/edge', instanceData, { token: client })
    assert.equal(accepted.status, 202, accepted.text)
    assert.equal(accepted.text, '')
    assert.equal((await call(pennon, 'POST', '/api/client/metrics/edge', instanceData)).status, 202)
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/metrics/applications')).body, { total: 0, applications: [] })

    const frontend = await call(pennon, 'POST', '/api/client/metrics/edge', instanceData, { token: await apiToken(pennon, 'frontend') })
    assert.equal(frontend.status, 403)
    assert.equal((await call(pennon, 'POST', '/api/client/metrics/edge', instanceData, { token: null })).status, 401)
    const { identifier: _identifier, ...anonymous } = instanceData
    const unnamed = await call(pennon, 'POST', '/api/client/metrics/edge', anonymous, { token: client })
    assert.equal(unnamed.status, 400)
    assert.deepEqual(withoutId(unnamed.body).details, [
      { path: '/body/identifier', message: 'The `/body/identifier` property is required. It was not present on the data you sent.' },
    ])
    const wrongDate = await call(pennon, 'POST', '/api/client/metrics/edge', { ...instanceData, started: 'yesterday' }, { token: client })
    assert.equal(wrongDate.status, 400)
    const dateMessage = 'The `/body/started` property must match format "date-time". You sent "yesterday".'
    assert.deepEqual(withoutId(wrongDate.body), {
      name: 'ValidationError',
      message: dateMessage,
      details: [{ message: dateMessage, path: '/body/started' }],
    })
    const large = await call(pennon, 'POST', '/api/client/metrics/edge', undefined, {
      token: client,
      raw: JSON.stringify({ ...instanceData, region: 'x'.repeat(300 * 1024) }),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(large.status, 413)
  })
})
