/**
 * AUTH_TYPE=none on a laptop (docs/security.md, "AUTH_TYPE=none"): another site's page may not
 * change anything (the cross-site check sessions have), and a page on a rebound name gets nothing
 * (the Host allow-list), on every path, the answers given before Fastify included.
 */
import assert from 'node:assert/strict'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { test } from 'node:test'
import { allEvents, apiToken, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from './test-app.ts'

const CROSS_SITE = errorOf(
  'NoAccessError',
  "Cross-site request refused: with AUTH_TYPE=none, a request without an API token that changes something must come from Pennon's own pages.",
)
const refusedHost = (host: string) =>
  errorOf(
    'MisdirectedRequestError',
    `This server does not answer to the host ${JSON.stringify(host)}. If you reach Pennon by this name, add it to ALLOWED_HOSTS.`,
  )
const JSON_TYPE = 'application/json; charset=utf-8'

// What an auto-submitting HTML form on another site sends (Chromium's headers, test/open-access.browser.test.ts).
const FORM_POST = {
  origin: 'http://evil.example',
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'navigate',
  'content-type': 'application/x-www-form-urlencoded',
}

const flagPath = (name: string) => `/api/admin/projects/default/features/${name}`

async function enabledIn(pennon: TestApp, flag: string, environment = 'development'): Promise<boolean> {
  const read = await call(pennon, 'GET', `${flagPath(flag)}/environments/${environment}`, undefined, { token: null })
  assert.equal(read.status, 200, read.text)
  return read.body.enabled
}

const switchedOn = async (pennon: TestApp) =>
  (await allEvents(pennon)).filter((event) => event.type === 'feature-environment-enabled').length

/** Sends one request to a listening app over a socket, so the answers given before Fastify are asked too (inject skips them). */
function overHttp(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path, headers }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }))
    })
    sent.on('error', reject)
    sent.end()
  })
}

onEachDatabase('AUTH_TYPE=none: cross-site changes', (database) => {
  test("another site's form cannot switch a flag on; same-origin pages, curl and tokens can", async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'checkout' }, { token: null })).status, 201)
    const on = `${flagPath('checkout')}/environments/development/on`

    // A form posts without a body schema's JSON: the route that takes no body is the one it can reach.
    for (const headers of [
      FORM_POST,
      { ...FORM_POST, 'content-type': 'text/plain' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
      { origin: 'http://localhost:3000' },
    ] as Record<string, string>[]) {
      const refused = await call(pennon, 'POST', on, undefined, { token: null, headers, raw: 'x=1' })
      assert.equal(refused.status, 403, JSON.stringify(headers))
      assert.equal(refused.headers['content-type'], JSON_TYPE)
      assert.equal(refused.headers['x-content-type-options'], 'nosniff')
      assert.deepEqual(withoutId(refused.body), CROSS_SITE)
    }
    // A text/plain body holding JSON reaches no route that takes JSON; it is refused the same way.
    const project = await call(pennon, 'POST', '/api/admin/projects', undefined, {
      token: null,
      headers: { ...FORM_POST, 'content-type': 'text/plain' },
      raw: '{"id":"planted","name":"Planted"}',
    })
    assert.equal(project.status, 403)
    assert.deepEqual(withoutId(project.body), CROSS_SITE)
    assert.equal(await enabledIn(pennon, 'checkout'), false)
    assert.equal(await switchedOn(pennon), 0)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/planted', undefined, { token: null })).status, 404)

    // Reads from anywhere are answered (a page of another origin cannot read them: no CORS).
    assert.equal(
      (
        await call(pennon, 'GET', flagPath('checkout'), undefined, {
          token: null,
          headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
        })
      ).status,
      200,
    )
    // Pennon's own pages, curl (neither header) and a real token from anywhere change things.
    const off = `${flagPath('checkout')}/environments/development/off`
    const admin = await apiToken(pennon, 'admin', 'laptop-admin')
    for (const [path, token, headers] of [
      [on, null, { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' }],
      [off, null, { 'sec-fetch-site': 'same-origin' }],
      [on, null, {}],
      [off, null, { 'sec-fetch-site': 'none' }],
      [on, admin, FORM_POST],
    ] as const) {
      const accepted = await call(pennon, 'POST', path, undefined, { token, headers })
      assert.equal(accepted.status, 200, `${path} ${JSON.stringify(headers)}: ${accepted.text}`)
      assert.equal(accepted.text, '')
    }
    assert.equal(await enabledIn(pennon, 'checkout'), true)
    assert.equal(await switchedOn(pennon), 3)
  })

  test('PUBLIC_URL is an own origin; the frontend API stays open to every origin', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none', PUBLIC_URL: 'https://flags.example.com' } })
    const created = await call(
      pennon,
      'POST',
      '/api/admin/projects',
      { id: 'own', name: 'Own' },
      { token: null, headers: { origin: 'https://flags.example.com', host: 'flags.example.com' } },
    )
    assert.equal(created.status, 201, created.text)
    const elsewhere = await call(
      pennon,
      'POST',
      '/api/admin/projects',
      { id: 'other', name: 'Other' },
      { token: null, headers: { origin: 'https://other.example.com' } },
    )
    assert.equal(elsewhere.status, 403)
    assert.deepEqual(withoutId(elsewhere.body), CROSS_SITE)
    // A browser SDK on any site calls it with a key that is no token here; evaluating changes nothing.
    const evaluated = await call(
      pennon,
      'POST',
      '/api/frontend',
      { context: { userId: '7' } },
      { token: 'any-key', headers: { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' } },
    )
    assert.equal(evaluated.status, 200, evaluated.text)
    assert.deepEqual(evaluated.body, { toggles: [] })
  })
})

onEachDatabase('the Host allow-list', (database) => {
  const REFUSED = [
    'evil.example',
    'evil.example:4242',
    'EVIL.example.',
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    '2130706433',
    'localhost:4242:1',
    '[::1',
    'localhost:http',
  ]
  const PLACES: Array<['GET' | 'POST', string, unknown?]> = [
    ['GET', '/api/admin/projects'],
    ['POST', '/api/admin/projects', { id: 'rebound', name: 'Rebound' }],
    ['GET', '/'],
    ['POST', '/auth/simple/login', { username: 'someone', password: 'guess' }],
    ['GET', '/api/client/features'],
    ['GET', '/api/frontend'],
    ['GET', '/health'],
    ['GET', '/nowhere'],
  ]

  test('AUTH_TYPE=none: a rebound name is refused on every path; loopback names and IP addresses are answered', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    for (const host of REFUSED) {
      for (const [method, url, body] of PLACES) {
        const refused = await call(pennon, method, url, body, { token: null, headers: { host } })
        assert.equal(refused.status, 421, `${host} ${method} ${url}: ${refused.text}`)
        assert.equal(refused.headers['content-type'], JSON_TYPE)
        assert.equal(refused.headers['x-content-type-options'], 'nosniff')
        assert.equal(refused.headers['cache-control'], 'no-store')
        assert.deepEqual(withoutId(refused.body), refusedHost(host))
      }
    }
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/rebound', undefined, { token: null })).status, 404, 'nothing was created')
    for (const host of [
      'localhost',
      'localhost:4242',
      'LocalHost.',
      'console.localhost:4242',
      '127.0.0.1:4242',
      '127.1.2.3',
      '[::1]:4242',
      '192.168.1.20',
      '[fe80::1]:80',
      '10.0.0.7:4242',
    ]) {
      const read = await call(pennon, 'GET', '/api/admin/projects', undefined, { token: null, headers: { host } })
      assert.equal(read.status, 200, `${host}: ${read.text}`)
    }
  })

  test('PUBLIC_URL and ALLOWED_HOSTS name more; with tokens the list applies only when ALLOWED_HOSTS is set', async (t) => {
    const open = await useTestApp(t, database, {
      env: { AUTH_TYPE: 'none', PUBLIC_URL: 'https://flags.example.com/pennon', ALLOWED_HOSTS: 'pennon.internal, *.corp.example' },
    })
    for (const host of ['flags.example.com', 'flags.example.com:443', 'pennon.internal:4242', 'a.corp.example', 'a.b.corp.example:8080']) {
      assert.equal((await call(open, 'GET', '/api/admin/projects', undefined, { token: null, headers: { host } })).status, 200, host)
    }
    for (const host of ['corp.example', 'example.com', 'pennon.internal.evil.example', 'evilcorp.example']) {
      const refused = await call(open, 'GET', '/api/admin/projects', undefined, { token: null, headers: { host } })
      assert.equal(refused.status, 421, host)
      assert.deepEqual(withoutId(refused.body), refusedHost(host))
    }

    // A deployment reached by its own name without PUBLIC_URL keeps working…
    const tokens = await useTestApp(t, database)
    assert.equal((await call(tokens, 'GET', '/api/admin/projects', undefined, { headers: { host: 'flags.example.com' } })).status, 200)
    // …and one that sets ALLOWED_HOSTS is checked, whatever the token.
    const listed = await useTestApp(t, database, { env: { ALLOWED_HOSTS: 'flags.example.com' } })
    assert.equal((await call(listed, 'GET', '/api/admin/projects', undefined, { headers: { host: 'flags.example.com' } })).status, 200)
    assert.equal((await call(listed, 'GET', '/api/admin/projects', undefined, { headers: { host: 'localhost:4242' } })).status, 200)
    const refused = await call(listed, 'GET', '/api/admin/projects', undefined, { headers: { host: 'evil.example' } })
    assert.equal(refused.status, 421)
    assert.deepEqual(withoutId(refused.body), refusedHost('evil.example'))
  })

  test('X-Forwarded-Host is checked when a trusted proxy sent it, and Host as well', async (t) => {
    const behind = await useTestApp(t, database, { env: { AUTH_TYPE: 'none', TRUST_PROXY: 'true', ALLOWED_HOSTS: 'flags.example.com' } })
    const through = (host: string, forwarded: string) =>
      call(behind, 'GET', '/api/admin/projects', undefined, { token: null, headers: { host, 'x-forwarded-host': forwarded } })
    assert.equal((await through('127.0.0.1:4242', 'flags.example.com')).status, 200)
    const forwarded = await through('localhost', 'evil.example')
    assert.equal(forwarded.status, 421)
    assert.deepEqual(withoutId(forwarded.body), refusedHost('evil.example'))
    // A rebound page may write X-Forwarded-Host itself: its own Host still gives it away.
    const direct = await through('evil.example:4242', 'localhost')
    assert.equal(direct.status, 421)
    assert.deepEqual(withoutId(direct.body), refusedHost('evil.example:4242'))

    // Without TRUST_PROXY nobody's X-Forwarded-Host is believed, so it is not asked about.
    const alone = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    assert.equal(
      (
        await call(alone, 'GET', '/api/admin/projects', undefined, {
          token: null,
          headers: { host: 'localhost', 'x-forwarded-host': 'evil.example' },
        })
      ).status,
      200,
    )
  })

  test('the 304 answered before Fastify is refused to a rebound name too', async (t) => {
    for (const env of [{ AUTH_TYPE: 'none' }, { ALLOWED_HOSTS: 'flags.example.com' }] as Record<string, string>[]) {
      const pennon = await useTestApp(t, database, { env })
      await pennon.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = pennon.app.server.address() as { port: number }
      const client = await apiToken(pennon, 'client', `sdk-${env.AUTH_TYPE ?? 'tokens'}`)
      const features = (host: string, extra: Record<string, string> = {}) =>
        overHttp(port, '/api/client/features', { host, authorization: client, ...extra })
      const first = await features(`127.0.0.1:${port}`)
      assert.equal(first.status, 200, first.body)
      const etag = String(first.headers.etag)
      // The token is remembered now: this one is the fast path's.
      assert.equal((await features(`localhost:${port}`, { 'if-none-match': etag })).status, 304)
      for (const host of ['evil.example', `evil.example:${port}`]) {
        const refused = await features(host, { 'if-none-match': etag })
        assert.equal(refused.status, 421, `${JSON.stringify(env)} ${host}`)
        assert.equal(refused.headers['content-type'], JSON_TYPE)
        assert.deepEqual(withoutId(JSON.parse(refused.body)), refusedHost(host))
      }
      assert.equal(
        (await features(`127.0.0.1:${port}`, { 'if-none-match': etag, 'x-forwarded-host': 'evil.example' })).status,
        304,
        'no proxy is trusted: the header is not asked about',
      )
    }
  })
})
