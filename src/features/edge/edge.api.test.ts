/**
 * Unleash Edge's routes, on the wire Edge uses (its source: unleash-edge-http-client): token
 * validation at POST /edge/validate without credentials, and Edge's report of itself at
 * POST /api/client/metrics/edge with a client token.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, errorOf, onEachDatabase, useTestApp, withoutId } from '../../../test/test-app.ts'
import { MAX_TOKENS_PER_VALIDATION } from './edge-schemas.ts'

const validate = (pennon: Parameters<typeof call>[0], tokens: unknown, options: Parameters<typeof call>[4] = {}) =>
  call(pennon, 'POST', '/edge/validate', { tokens }, { token: null, ...options })

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
    const scoped = (await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'edge-scoped', type: 'backend', projects: ['default'], environment: 'production' })).body.secret
    const expired = await apiToken(pennon, 'client', 'edge-expired')
    await pennon.database.db.updateTable('api_tokens').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('token_name', '=', 'edge-expired').execute()
    const deleted = await apiToken(pennon, 'client', 'edge-deleted')
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/edge-deleted')).status, 200)

    const response = await validate(pennon, [frontend, 'default:development.not-a-token', client, scoped, expired, deleted, client, pennon.adminToken])
    assert.equal(response.status, 200, response.text)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(response.body, {
      tokens: [
        { token: frontend, type: 'frontend', projects: ['*'], environment: 'development' },
        { token: client, type: 'client', projects: ['*'], environment: 'development' },
        { token: scoped, type: 'backend', projects: ['default'], environment: 'production' },
        { token: pennon.adminToken, type: 'admin', projects: ['*'], environment: '*' },
      ],
    })
    assert.deepEqual((await validate(pennon, [])).body, { tokens: [] })
    // A credential sent along changes nothing: the answer is about the body's tokens.
    assert.deepEqual((await validate(pennon, [client], { token: frontend })).body, { tokens: [{ token: client, type: 'client', projects: ['*'], environment: 'development' }] })
  })

  test('POST /edge/validate: body rules, content type and size', async (t) => {
    const pennon = await useTestApp(t, database)
    const notAList = await validate(pennon, 'abc')
    assert.equal(notAList.status, 400)
    assert.deepEqual(withoutId(notAList.body).details, [{ path: '/body/tokens', message: 'The `/body/tokens` property must be array. You sent "abc".' }])
    const tooMany = await validate(pennon, Array.from({ length: MAX_TOKENS_PER_VALIDATION + 1 }, (_, i) => `t${i}`))
    assert.equal(tooMany.status, 400)
    assert.equal(withoutId(tooMany.body).name, 'ValidationError')
    assert.deepEqual(withoutId(tooMany.body).details, [{ path: '/body/tokens', message: `The \`/body/tokens\` property must NOT have more than ${MAX_TOKENS_PER_VALIDATION} items. You sent ["t0","t1","t2","t3","t4","t5","t6","t7","t8","t9","t10","t11","t12","t13","t14","t15","t16","t17","….` }])
    const missing = await call(pennon, 'POST', '/edge/validate', {}, { token: null })
    assert.equal(missing.status, 400)
    const required = 'The `/body/tokens` property is required. It was not present on the data you sent.'
    assert.deepEqual(withoutId(missing.body), { name: 'ValidationError', message: required, details: [{ message: required, path: '/body/tokens' }] })
    const text = await call(pennon, 'POST', '/edge/validate', undefined, { token: null, raw: '{"tokens":[]}', headers: { 'content-type': 'text/plain' } })
    assert.equal(text.status, 415)
    assert.deepEqual(withoutId(text.body), errorOf('ContentTypeerror', 'The content type "text/plain" is not accepted. Accepted content types: application/json.'))
    const large = await call(pennon, 'POST', '/edge/validate', undefined, { token: null, raw: JSON.stringify({ tokens: ['x'.repeat(300 * 1024)] }), headers: { 'content-type': 'application/json' } })
    assert.equal(large.status, 413)
  })

  test('POST /edge/validate: unknown tokens count as failed authentications of the address; past the limit 429', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '3' } })
    const client = await apiToken(pennon, 'client', 'edge-client')
    assert.deepEqual((await validate(pennon, [client, 'a', 'b'])).body, { tokens: [{ token: client, type: 'client', projects: ['*'], environment: 'development' }] })
    assert.deepEqual((await validate(pennon, ['c', 'c'])).body, { tokens: [] })
    const throttled = await validate(pennon, [client])
    assert.equal(throttled.status, 429)
    assert.match(throttled.headers['retry-after'] as string, /^([1-9]|[1-5][0-9]|60)$/)
    assert.deepEqual(withoutId(throttled.body), errorOf('TooManyRequestsError', `Too many failed authentications from this address: try again in ${throttled.headers['retry-after']} seconds.`))
    // Another address is not throttled.
    const elsewhere = await pennon.app.inject({ method: 'POST', url: '/edge/validate', remoteAddress: '10.1.2.3', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ tokens: [client] }) })
    assert.equal(elsewhere.statusCode, 200)
  })

  test('POST /api/client/metrics/edge: Edge\'s report of itself, with a client token: 202 and nothing kept', async (t) => {
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
    assert.deepEqual(withoutId(unnamed.body).details, [{ path: '/body/identifier', message: 'The `/body/identifier` property is required. It was not present on the data you sent.' }])
    const wrongDate = await call(pennon, 'POST', '/api/client/metrics/edge', { ...instanceData, started: 'yesterday' }, { token: client })
    assert.equal(wrongDate.status, 400)
    const dateMessage = 'The `/body/started` property must match format "date-time". You sent "yesterday".'
    assert.deepEqual(withoutId(wrongDate.body), { name: 'ValidationError', message: dateMessage, details: [{ message: dateMessage, path: '/body/started' }] })
    const large = await call(pennon, 'POST', '/api/client/metrics/edge', undefined, { token: client, raw: JSON.stringify({ ...instanceData, region: 'x'.repeat(300 * 1024) }), headers: { 'content-type': 'application/json' } })
    assert.equal(large.status, 413)
  })
})
