/** Hostile clients: failed-authentication throttling, client addresses behind proxies, slow clients, security headers. */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyRequest } from 'fastify'
import { ConfigError, loadConfig } from '../src/config.ts'
import { createAuthThrottle } from '../src/http/auth-throttle.ts'
import { createAuthenticator } from '../src/features/api-tokens/authenticator.ts'
import { createTokenStore } from '../src/features/api-tokens/token-store.ts'
import { consoleAssets } from '../src/features/console/console-assets.ts'
import {
  apiToken,
  call,
  DATABASES,
  errorOf,
  eventually,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type TestApp,
} from './test-app.ts'

const UNKNOWN = 'Authentication failed: the token in the Authorization header is unknown, deleted or expired.'

/** A request from `address` (optionally through a proxy that says it forwards `forwardedFor`). */
const from = (pennon: TestApp, address: string, token: string | null, forwardedFor?: string) =>
  pennon.app.inject({
    method: 'GET',
    url: '/api/admin/projects',
    remoteAddress: address,
    headers: {
      ...(token === null ? {} : { authorization: token }),
      ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
    },
  })

test('the throttle counts failures per address in one-minute windows', () => {
  const throttle = createAuthThrottle(3)
  for (let i = 0; i < 3; i++) throttle.recordFailure('a', 1_000)
  assert.equal(throttle.retryAfter('a', 1_000), 60)
  assert.equal(throttle.retryAfter('a', 30_500), 31)
  assert.equal(throttle.retryAfter('b', 1_000), 0)
  assert.equal(throttle.retryAfter('a', 61_000), 0, 'a new window starts after a minute')
  const off = createAuthThrottle(0)
  for (let i = 0; i < 100; i++) off.recordFailure('a')
  assert.equal(off.retryAfter('a'), 0)
})

test('the throttle reserves failures before credentials are tried, and forgives those that worked', () => {
  const throttle = createAuthThrottle(3)
  assert.equal(throttle.reserve('a', 2, 1_000), 2)
  // Another request under way at once gets what is left, not a whole allowance.
  assert.equal(throttle.reserve('a', 5, 1_000), 1)
  assert.equal(throttle.retryAfter('a', 1_000), 60)
  assert.equal(throttle.reserve('a', 1, 1_000), 0)
  throttle.forgive('a', 2, 2_000)
  assert.equal(throttle.retryAfter('a', 2_000), 0)
  assert.equal(throttle.reserve('a', 10, 2_000), 2)
  throttle.forgive('a', 10, 2_000)
  assert.equal(throttle.reserve('a', 10, 2_000), 3, 'never below none')
  // A window that ended took its count with it: forgiving into the next changes nothing.
  throttle.forgive('a', 3, 61_000)
  assert.equal(throttle.reserve('a', 10, 61_000), 3)
  assert.equal(createAuthThrottle(0).reserve('a', 1000), 1000)
})

test('TRUST_PROXY: off by default; true, a hop count, or proxy addresses and CIDR ranges; anything else stops the start', () => {
  assert.equal(loadConfig({}).trustProxy, false)
  for (const [value, expected] of [
    ['', false],
    ['false', false],
    ['0', false],
    ['true', true],
    ['2', 2],
  ] as const) {
    assert.equal(loadConfig({ TRUST_PROXY: value }).trustProxy, expected, value)
  }
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.0.0.0/8,fd00::/8, ::1' }).trustProxy, [
    '10.0.0.1',
    '10.0.0.0/8',
    'fd00::/8',
    '::1',
  ])
  for (const value of [
    'yes',
    '10.0.0.0/33',
    'fd00::/129',
    '10.0.0.1/',
    '10.0.0.0/8/8',
    'proxy.example.com',
    '10.0.0.1,',
    '101',
    '-1',
    '1.5',
  ]) {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: value }),
      (error: Error) => error instanceof ConfigError && /^TRUST_PROXY /.test(error.message),
      value,
    )
  }
})

onEachDatabase('limits', (database) => {
  test('429 with Retry-After after too many failed authentications from one address, for failures only', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '3' } })
    for (let i = 0; i < 3; i++) assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: 'wrong' })).status, 401)
    const throttled = await call(pennon, 'GET', '/api/admin/projects', undefined, { token: 'wrong' })
    assert.equal(throttled.status, 429)
    const seconds = Number(throttled.headers['retry-after'])
    assert.ok(seconds >= 1 && seconds <= 60)
    assert.equal(throttled.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(
      withoutId(throttled.body),
      errorOf('TooManyRequestsError', `Too many failed authentications from this address: try again in ${seconds} seconds.`),
    )
    // No credential, and a wrong one on a path the router refuses, wait too.
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: null })).status, 429)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/projects/%zz', undefined, { token: 'wrong' })).status, 429)
    // A valid token from the same address is answered as usual.
    assert.equal((await call(pennon, 'GET', '/api/admin/projects')).status, 200)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/projects/%zz')).status, 400)
    // Another address is not affected.
    assert.equal((await from(pennon, '10.9.9.9', 'wrong')).statusCode, 401)
  })

  test('a valid credential is never refused: 200 failures, then the right tokens answer while wrong ones get 429', async (t) => {
    // The default limit (60 a minute), as deployed.
    const pennon = await useTestApp(t, database)
    const editor = await serviceAccountToken(pennon, 2)
    const client = await apiToken(pennon, 'client')
    const gone = await apiToken(pennon, 'admin', 'gone')
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: gone })).status, 200)
    const statuses: number[] = []
    for (let i = 0; i < 200; i++)
      statuses.push((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: i % 10 === 0 ? null : `*:*.guess-${i}` })).status)
    assert.deepEqual(statuses, [...Array(60).fill(401), ...Array(140).fill(429)])

    for (const token of [pennon.adminToken, `Bearer ${pennon.adminToken}`, editor]) {
      assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token })).status, 200, token)
    }
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'written', name: 'Written' }, { token: editor })).status, 201)
    const forbidden = await call(pennon, 'GET', '/api/admin/projects', undefined, { token: client })
    assert.equal(forbidden.status, 403, 'a client token is valid: refused for its permissions, not throttled')
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: 'wrong' })).status, 429)

    // Tokens created, deleted and expiring while the address is throttled count at once.
    const created = await apiToken(pennon, 'admin', 'created')
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: created })).status, 200)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/gone')).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: gone })).status, 429)
    const expiresAt = new Date(Date.now() + 1_000).toISOString()
    const brief = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'brief', type: 'admin', expiresAt })
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: brief.body.secret })).status, 200)
    await sleep(Date.parse(expiresAt) - Date.now() + 20)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: brief.body.secret })).status, 429)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects')).status, 200)
  })

  test('past the limit, wrong credentials cost no token query; one read of all tokens serves them', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '5' } })
    const store = createTokenStore(pennon.database.db)
    const queries = { lookups: 0, reads: 0 }
    const counted = {
      ...store,
      findPrincipal: (...args: Parameters<typeof store.findPrincipal>) => (queries.lookups++, store.findPrincipal(...args)),
      allPrincipals: (...args: Parameters<typeof store.allPrincipals>) => (queries.reads++, store.allPrincipals(...args)),
    }
    const changes = pennon.database.watchChanges()
    // Until the change watch listens (on PostgreSQL, a session of its own: slower on a busy machine), nothing read may be remembered.
    await eventually(() => changes.version() !== undefined, 'the change watch listens')
    const authenticate = createAuthenticator({ db: pennon.database.db, config: pennon.config, changes, tokens: counted })
    const request = (authorization: string | undefined, ip = '192.0.2.1') =>
      authenticate({ ip, headers: authorization === undefined ? {} : { authorization } } as FastifyRequest).then(
        (principal) => principal.name,
        (error: { status: number }) => error.status,
      )

    for (let i = 0; i < 5; i++) assert.equal(await request(`wrong-${i}`), 401)
    assert.deepEqual(queries, { lookups: 5, reads: 0 })
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => request(i % 2 ? `wrong-${i}` : undefined)))
    assert.deepEqual(answers, Array(100).fill(429))
    assert.equal(queries.lookups, 5, 'no lookup for a throttled address')
    // On PostgreSQL a notification of the setup's writes may still arrive: a second read at most.
    assert.ok(queries.reads >= 1 && queries.reads <= 2, `reads: ${queries.reads}`)
    const reads = queries.reads
    for (let i = 0; i < 100; i++) assert.equal(await request(`more-${i}`), 429)
    assert.ok(queries.reads <= reads + 1, `reads: ${queries.reads}`)

    assert.equal(await request(pennon.adminToken), 'admin', 'the valid token, from the same snapshot')
    assert.equal(queries.lookups, 5)
    assert.equal(await request(pennon.adminToken, '192.0.2.2'), 'admin', 'another address looks up as ever')
    assert.equal(queries.lookups, 6)
  })

  test('TRUST_PROXY: clients behind a proxy are throttled apart; without it, X-Forwarded-For is ignored', async (t) => {
    const proxied = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: '1' } })
    for (let i = 0; i < 3; i++) assert.equal((await from(proxied, '10.0.0.2', 'wrong', '203.0.113.1')).statusCode, 401)
    assert.equal((await from(proxied, '10.0.0.2', 'wrong', '203.0.113.1')).statusCode, 429)
    const other = await from(proxied, '10.0.0.2', 'wrong', '203.0.113.2')
    assert.equal(other.statusCode, 401)
    assert.deepEqual(withoutId(other.json()), errorOf('AuthenticationRequired', UNKNOWN))
    // One hop: the address the proxy appended counts, not what the client wrote before it.
    assert.equal((await from(proxied, '10.0.0.2', 'wrong', '198.51.100.7, 203.0.113.1')).statusCode, 429)

    const direct = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '3' } })
    for (let i = 0; i < 3; i++) assert.equal((await from(direct, '10.0.0.2', 'wrong', '203.0.113.1')).statusCode, 401)
    assert.equal((await from(direct, '10.0.0.2', 'wrong', '203.0.113.2')).statusCode, 429)
    assert.equal((await from(direct, '10.0.0.2', direct.adminToken, '203.0.113.2')).statusCode, 200)

    // By address: only the named proxies are believed.
    const listed = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: '10.0.0.0/8, 192.0.2.10' } })
    for (let i = 0; i < 3; i++) assert.equal((await from(listed, '10.1.2.3', 'wrong', '203.0.113.1')).statusCode, 401)
    assert.equal((await from(listed, '192.0.2.10', 'wrong', '203.0.113.1')).statusCode, 429)
    assert.equal((await from(listed, '10.1.2.3', 'wrong', '203.0.113.2')).statusCode, 401)
    for (let i = 0; i < 3; i++) assert.equal((await from(listed, '198.51.100.1', 'wrong', `203.0.113.${10 + i}`)).statusCode, 401)
    assert.equal((await from(listed, '198.51.100.1', 'wrong', '203.0.113.99')).statusCode, 429, 'an untrusted peer is its own address')
  })

  test('security headers on every response, errors included; no X-Powered-By', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const response of [
      await call(pennon, 'GET', '/api/admin/projects'),
      await call(pennon, 'GET', '/api/admin/projects', undefined, { token: null }),
      await call(pennon, 'GET', '/api/admin/nope'),
    ]) {
      assert.equal(response.headers['x-content-type-options'], 'nosniff')
      assert.equal(response.headers['cache-control'], 'no-store')
      assert.equal(response.headers['x-powered-by'], undefined)
      assert.equal(response.headers['access-control-allow-origin'], undefined, 'CORS is off')
    }
    const health = await call(pennon, 'GET', '/health', undefined, { token: null })
    assert.equal(health.headers['x-content-type-options'], 'nosniff')
  })
})

onEachDatabase('CORS', (database) => {
  test('off by default; with CORS_ORIGINS, preflights are answered and listed origins allowed', async (t) => {
    const pennon = await useTestApp(t, database, { env: { CORS_ORIGINS: 'https://admin.example.com' } })
    const preflight = await pennon.app.inject({
      method: 'OPTIONS',
      url: '/api/admin/segments',
      headers: { origin: 'https://admin.example.com', 'access-control-request-method': 'POST' },
    })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://admin.example.com')
    assert.equal(preflight.headers['access-control-allow-headers'], 'Authorization, Content-Type')
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET, POST, PUT, PATCH, DELETE')
    const allowed = await call(pennon, 'GET', '/api/admin/projects', undefined, { headers: { origin: 'https://admin.example.com' } })
    assert.equal(allowed.status, 200)
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://admin.example.com')
    const other = await call(pennon, 'GET', '/api/admin/projects', undefined, { headers: { origin: 'https://evil.example.com' } })
    assert.equal(other.headers['access-control-allow-origin'], undefined)
    const otherPreflight = await pennon.app.inject({
      method: 'OPTIONS',
      url: '/api/admin/segments',
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
    })
    assert.equal(otherPreflight.statusCode, 401, 'no preflight answer for an origin not listed')
  })

  test("with CORS_ORIGINS, every answer but the SDK APIs' varies on Origin, so a shared cache keeps one per origin", async (t) => {
    const pennon = await useTestApp(t, database, { env: { CORS_ORIGINS: 'https://admin.example.com' } })
    const asset = `/console/${consoleAssets().version}/js/main.js`
    const urls = [
      '/',
      asset,
      '/docs/openapi/',
      '/docs/openapi/static/swagger-ui.css',
      '/docs/openapi.json',
      '/health',
      '/api/admin/projects',
      '/api/admin/nope',
      '/nope',
    ]
    for (const origin of ['https://admin.example.com', 'https://evil.example.com', undefined]) {
      for (const url of urls) {
        const response = await call(pennon, 'GET', url, undefined, {
          headers: { 'accept-encoding': 'gzip', ...(origin === undefined ? {} : { origin }) },
        })
        const what = `${url} from ${origin}`
        // The console's files are gzipped when asked, so they vary on that too.
        assert.equal(response.headers.vary, url === '/' || url === asset ? 'Origin, Accept-Encoding' : 'Origin', what)
        assert.equal(response.headers['access-control-allow-origin'], origin === 'https://admin.example.com' ? origin : undefined, what)
      }
    }
    // The console's immutable files: the answer a cache may keep for a year names the Origin it was for.
    const immutable = await call(pennon, 'GET', asset, undefined, { token: null, headers: { origin: 'https://admin.example.com' } })
    assert.equal(immutable.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.equal(immutable.headers.vary, 'Origin, Accept-Encoding')
    const { etag } = (await call(pennon, 'GET', '/', undefined, { token: null })).headers
    const revalidated = await call(pennon, 'GET', '/', undefined, { token: null, headers: { 'if-none-match': String(etag) } })
    assert.equal(revalidated.status, 304)
    assert.equal(revalidated.headers.vary, 'Origin, Accept-Encoding')
    const preflight = await pennon.app.inject({
      method: 'OPTIONS',
      url: '/api/admin/segments',
      headers: { origin: 'https://admin.example.com', 'access-control-request-method': 'POST' },
    })
    assert.equal(preflight.headers.vary, 'Origin')
    // The frontend API answers `*` to every origin: its answers do not depend on the Origin.
    const frontend = await call(pennon, 'GET', '/api/frontend', undefined, { headers: { origin: 'https://admin.example.com' } })
    assert.equal(frontend.status, 200)
    assert.equal(frontend.headers['access-control-allow-origin'], '*')
    assert.equal(frontend.headers.vary, undefined)
  })

  test('without CORS_ORIGINS nothing depends on the Origin: no CORS headers, no Vary on it', async (t) => {
    const pennon = await useTestApp(t, database)
    const asset = `/console/${consoleAssets().version}/js/main.js`
    for (const url of ['/', asset, '/docs/openapi/', '/health', '/api/admin/projects']) {
      const response = await call(pennon, 'GET', url, undefined, { headers: { origin: 'https://admin.example.com' } })
      assert.equal(response.headers.vary, url === '/' || url === asset ? 'Accept-Encoding' : undefined, url)
      assert.equal(response.headers['access-control-allow-origin'], undefined, url)
    }
  })
})

test('a client that sends its headers too slowly is cut off', async (t) => {
  const pennon = await useTestApp(t, DATABASES[0]!, { env: { HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600' } })
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = pennon.app.server.address() as { port: number }
  const started = Date.now()
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n'))
    let received = ''
    socket.on('data', (chunk) => (received += chunk))
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
    setTimeout(() => reject(new Error('not cut off')), 5_000).unref()
  })
  assert.ok(Date.now() - started < 4_000)
  assert.match(answer, /^HTTP\/1\.1 408 /)
  assert.match(answer, /"name":"RequestTimeoutError","message":"The request took too long to arrive\."/)
})
