/** Hostile clients: failed-authentication throttling, slow clients, security headers. */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import { createAuthThrottle } from '../src/http/auth-throttle.ts'
import { call, DATABASES, errorOf, onEachDatabase, useTestApp, withoutId } from './test-app.ts'

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

onEachDatabase('limits', (database) => {
  test('429 with Retry-After after too many failed authentications from one address', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '3' } })
    for (let i = 0; i < 3; i++) assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: 'wrong' })).status, 401)
    const throttled = await call(pennon, 'GET', '/api/admin/projects', undefined, { token: 'wrong' })
    assert.equal(throttled.status, 429)
    const seconds = Number(throttled.headers['retry-after'])
    assert.ok(seconds >= 1 && seconds <= 60)
    assert.deepEqual(
      withoutId(throttled.body),
      errorOf('TooManyRequestsError', `Too many failed authentications from this address: try again in ${seconds} seconds.`),
    )
    // The whole address waits, valid token or not.
    assert.equal((await call(pennon, 'GET', '/api/admin/projects')).status, 429)
    // Another address is not affected.
    const other = await pennon.app.inject({ method: 'GET', url: '/api/admin/projects', remoteAddress: '10.9.9.9', headers: { authorization: pennon.adminToken } })
    assert.equal(other.statusCode, 200)
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
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET, POST, PUT, DELETE')
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
