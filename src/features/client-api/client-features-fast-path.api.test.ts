/**
 * The 304 of GET /api/client/features given before Fastify (client-features-fast-path.ts),
 * over a listening server on each database: taken only when everything is current (Fastify's
 * hooks, counted here, do not run), header for header the route's own 304, and every
 * other case — another ETag, changed flags, a deleted token, a frontend token, a query, HEAD —
 * goes the whole way and gets the route's answer.
 */
import assert from 'node:assert/strict'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { call, eventually, onEachDatabase, useTestApp, type TestApp, type TestAppOptions } from '../../../test/test-app.ts'
import { createFlag } from '../../../test/helpers/flags.ts'
import { toggle } from '../../../test/helpers/strategies.ts'

const FEATURES = '/api/client/features'
const APART = { 'unleash-client-spec': '5.2.0' }

interface Raw {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One request over the socket, as an SDK sends it. */
function get(base: string, path: string, headers: Record<string, string>, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(`${base}${path}`, { method, headers }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }))
    })
    sent.on('error', reject)
    sent.end()
  })
}

/** Headers to compare: every one but the date. */
const comparable = ({ date, ...headers }: IncomingHttpHeaders) => headers

/** A listening app whose answers through Fastify are counted; a flag, a client and a frontend token. */
async function listening(t: Parameters<typeof useTestApp>[0], database: Parameters<typeof useTestApp>[1], env: TestAppOptions['env'] = {}) {
  const seen = { requests: 0 }
  const pennon = await useTestApp(t, database, {
    env,
    beforeReady: (app) =>
      // onSend: every answer Fastify gives, errors of the hooks included, before it is sent.
      app.addHook('onSend', async () => {
        seen.requests++
      }),
  })
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const address = pennon.app.server.address()
  assert.ok(address !== null && typeof address === 'object')
  await createFlag(pennon, 'polled')
  const client = await token(pennon, 'client-sdk', 'client')
  const frontend = await token(pennon, 'browser-sdk', 'frontend')
  return { pennon, base: `http://127.0.0.1:${address.port}`, seen, client, frontend }
}

/**
 * Waits until a poll with `etag` is answered before Fastify. On PostgreSQL an instance hears its
 * own writes once more, a moment after them (LISTEN/NOTIFY), and what it remembered ends once
 * more then: one more request goes the whole way. The counts below start after that.
 */
async function settled(base: string, headers: Record<string, string>, etag: string, seen: { requests: number }): Promise<void> {
  await sleep(100)
  await eventually(
    async () => {
      const before = seen.requests
      const response = await get(base, FEATURES, { ...headers, 'if-none-match': etag })
      return response.status === 304 && seen.requests === before
    },
    'a current poll answered before Fastify',
    3_000,
  )
}

async function token(pennon: TestApp, tokenName: string, type: 'client' | 'frontend'): Promise<string> {
  const response = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName, type, environment: 'development', projects: ['*'] })
  assert.equal(response.status, 201, response.text)
  return response.body.secret
}

onEachDatabase('client features 304 before Fastify', (database) => {
  test('a current If-None-Match is answered without Fastify, with exactly the headers and empty body of the route', async (t) => {
    const { base, seen, client } = await listening(t, database)
    const full = await get(base, FEATURES, { authorization: client, ...APART })
    assert.equal(full.status, 200, full.body)
    const etag = full.headers.etag as string
    assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/)
    await settled(base, { authorization: client, ...APART }, etag, seen)

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const before = seen.requests
      const fast = await get(base, FEATURES, { authorization: client, ...APART, 'if-none-match': ifNoneMatch })
      assert.equal(seen.requests, before, `Fastify saw the request with If-None-Match ${ifNoneMatch}`)
      assert.equal(fast.status, 304)
      assert.equal(fast.body, '')
      // The same question through Fastify: a query it ignores for a client token.
      const routed = await get(base, `${FEATURES}?environment=development`, {
        authorization: client,
        ...APART,
        'if-none-match': ifNoneMatch,
      })
      assert.equal(seen.requests, before + 1)
      assert.equal(routed.status, 304)
      assert.equal(routed.body, '')
      assert.deepEqual(comparable(fast.headers), comparable(routed.headers))
      assert.deepEqual(comparable(fast.headers), {
        'x-content-type-options': 'nosniff',
        etag,
        connection: 'keep-alive',
        'keep-alive': 'timeout=72',
      })
    }
    // `Bearer <token>` is the same token.
    const before = seen.requests
    assert.equal((await get(base, FEATURES, { authorization: `Bearer ${client}`, ...APART, 'if-none-match': etag })).status, 304)
    assert.equal(seen.requests, before)
  })

  test('anything not current goes the whole way and gets the route answer', async (t) => {
    const { pennon, base, seen, client, frontend } = await listening(t, database)
    const full = await get(base, FEATURES, { authorization: client, ...APART })
    const etag = full.headers.etag as string
    const through = async (path: string, headers: Record<string, string>, method = 'GET') => {
      const before = seen.requests
      const response = await get(base, path, headers, method)
      assert.equal(
        seen.requests,
        before + 1,
        `${method} ${path} ${JSON.stringify(headers)} skipped Fastify: ${response.status} ${response.body}`,
      )
      return response
    }

    // Another ETag, no If-None-Match, the other segment form: the whole answer.
    const other = await through(FEATURES, { authorization: client, ...APART, 'if-none-match': '"not-it"' })
    assert.equal(other.status, 200)
    assert.equal(other.body, full.body)
    assert.equal((await through(FEATURES, { authorization: client, ...APART })).body, full.body)
    const inlined = await through(FEATURES, { authorization: client, 'if-none-match': etag })
    assert.equal(inlined.status, 200)
    assert.notEqual(inlined.headers.etag, etag)
    // HEAD is Fastify's.
    assert.equal((await through(FEATURES, { authorization: client, ...APART, 'if-none-match': etag }, 'HEAD')).status, 304)

    // A frontend token may not read the client API; no token, or an unknown one, is refused.
    const refused = await through(FEATURES, { authorization: frontend, ...APART, 'if-none-match': etag })
    assert.equal(refused.status, 403)
    assert.equal(JSON.parse(refused.body).name, 'NoAccessError')
    assert.equal((await through(FEATURES, { ...APART, 'if-none-match': etag })).status, 401)
    assert.equal((await through(FEATURES, { authorization: `${client}x`, ...APART, 'if-none-match': etag })).status, 401)

    // The flags changed: the old ETag gets the new answer, whose ETag is then answered early again.
    assert.equal((await toggle(pennon, 'polled', 'development', 'on')).status, 200)
    const changed = await through(FEATURES, { authorization: client, ...APART, 'if-none-match': etag })
    assert.equal(changed.status, 200)
    assert.equal(JSON.parse(changed.body).features[0].enabled, true)
    await settled(base, { authorization: client, ...APART }, changed.headers.etag as string, seen)
    const before = seen.requests
    assert.equal(
      (await get(base, FEATURES, { authorization: client, ...APART, 'if-none-match': changed.headers.etag as string })).status,
      304,
    )
    assert.equal(seen.requests, before)

    // The token deleted: no longer remembered, so refused by the whole way.
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/client-sdk')).status, 200)
    const deleted = await through(FEATURES, { authorization: client, ...APART, 'if-none-match': changed.headers.etag as string })
    assert.equal(deleted.status, 401)
    assert.equal(JSON.parse(deleted.body).name, 'AuthenticationRequired')
  })

  test('a client token that expires while polling is refused from that moment, early answers included', async (t) => {
    const { pennon, base, seen } = await listening(t, database)
    const expiresAt = new Date(Date.now() + 1_500).toISOString()
    const created = await call(pennon, 'POST', '/api/admin/api-tokens', {
      tokenName: 'brief-sdk',
      type: 'client',
      environment: 'development',
      projects: ['*'],
      expiresAt,
    })
    assert.equal(created.status, 201, created.text)
    const headers = { authorization: created.body.secret as string, ...APART }
    const etag = (await get(base, FEATURES, headers)).headers.etag as string
    await settled(base, headers, etag, seen)
    const before = seen.requests
    assert.equal((await get(base, FEATURES, { ...headers, 'if-none-match': etag })).status, 304)
    // Another segment form in between: each answer is the one its header asks for.
    assert.equal((await get(base, FEATURES, { authorization: headers.authorization, 'if-none-match': etag })).status, 200)
    assert.equal((await get(base, FEATURES, { ...headers, 'if-none-match': etag })).status, 304)
    assert.equal(seen.requests, before + 1, 'only the inlined answer, not built before, went through Fastify')
    await sleep(Date.parse(expiresAt) - Date.now() + 20)
    const refused = await get(base, FEATURES, { ...headers, 'if-none-match': etag })
    assert.equal(refused.status, 401)
    assert.equal(seen.requests, before + 2)
    const { name, message } = JSON.parse(refused.body)
    assert.deepEqual(
      { name, message },
      {
        name: 'AuthenticationRequired',
        message: 'Authentication failed: the token in the Authorization header is unknown, deleted or expired.',
      },
    )
  })

  test('while requests are logged (LOG_LEVEL=debug) every request goes through Fastify and is logged', async (t) => {
    const { pennon, base, seen, client } = await listening(t, database, { LOG_LEVEL: 'debug' })
    const etag = (await get(base, FEATURES, { authorization: client, ...APART })).headers.etag as string
    const before = seen.requests
    const logged = pennon.logs.filter((line) => line.includes('incoming request')).length
    for (let i = 0; i < 3; i++)
      assert.equal((await get(base, FEATURES, { authorization: client, ...APART, 'if-none-match': etag })).status, 304)
    assert.equal(seen.requests, before + 3)
    assert.equal(pennon.logs.filter((line) => line.includes('incoming request')).length, logged + 3)
  })
})
