/** docs/contract.md §0: the check order, every error status through a real route, one error shape. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DOCS_CSP } from '../src/http/docs-ui.ts'
import { apiToken, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from './test-app.ts'

const MISSING = 'Authentication required: send an API token in the Authorization header.'
const UNKNOWN = 'Authentication failed: the token in the Authorization header is unknown, deleted or expired.'
const NO_TYPE = 'No content type was sent. Accepted content types: application/json.'

onEachDatabase('request pipeline', (database) => {
  test('401: missing, empty and unknown tokens, whatever the body or path', async (t) => {
    const pennon = await useTestApp(t, database)
    const cases: Array<[string | null, string]> = [
      [null, MISSING],
      ['', MISSING],
      ['Bearer ', MISSING],
      ['*:*.nope', UNKNOWN],
    ]
    for (const [token, message] of cases) {
      for (const [method, url, raw] of [
        ['POST', '/api/admin/projects', '{not json'],
        ['GET', '/api/admin/no-such-path', undefined],
        ['PATCH', '/api/admin/projects', undefined],
      ] as const) {
        const response = await call(pennon, method, url, undefined, {
          token,
          ...(raw ? { raw, headers: { 'content-type': 'application/json' } } : {}),
        })
        assert.equal(response.status, 401, `${method} ${url} with ${token}`)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
        assert.deepEqual(withoutId(response.body), errorOf('AuthenticationRequired', message))
      }
    }
  })

  test('the token is accepted raw or after "Bearer " in any case', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const token of [
      pennon.adminToken,
      `Bearer ${pennon.adminToken}`,
      `bearer   ${pennon.adminToken}`,
      `BEARER ${pennon.adminToken}`,
    ]) {
      assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token })).status, 200, token)
    }
  })

  test('404 for unknown paths and wrong methods, after authentication', async (t) => {
    const pennon = await useTestApp(t, database)
    const unknown = await call(pennon, 'GET', '/api/admin/nothing-here?x=1')
    assert.equal(unknown.status, 404)
    assert.deepEqual(
      withoutId(unknown.body),
      errorOf('NotFoundError', 'The path you were looking for (GET /api/admin/nothing-here) is not available.'),
    )
    const wrongMethod = await call(pennon, 'PATCH', '/api/admin/projects', { id: 'x' })
    assert.equal(wrongMethod.status, 404)
    assert.deepEqual(
      withoutId(wrongMethod.body),
      errorOf('NotFoundError', 'The path you were looking for (PATCH /api/admin/projects) is not available.'),
    )
    // A viewer gets the 404 too: route match comes before permission.
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/nothing-here', undefined, { token: viewer })).status, 404)
  })

  test('403 before 415: a viewer with no content type learns nothing else', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    const response = await call(pennon, 'POST', '/api/admin/projects', undefined, { token: viewer, raw: 'garbage' })
    assert.equal(response.status, 403)
    assert.deepEqual(
      withoutId(response.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "CREATE_PROJECT".', { permissions: ['CREATE_PROJECT'] }),
    )
  })

  test('client and frontend tokens get 403 on every admin route, NONE routes included', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const type of ['client', 'backend', 'frontend'] as const) {
      const token = await apiToken(pennon, type, `${type}-x`)
      const list = await call(pennon, 'GET', '/api/admin/projects', undefined, { token })
      assert.equal(list.status, 403)
      const message =
        'This endpoint needs an admin API token or a service-account token: client and frontend tokens cannot use the admin API.'
      assert.deepEqual(withoutId(list.body), errorOf('NoAccessError', message, { permissions: [] }))
      const create = await call(pennon, 'POST', '/api/admin/projects', { id: 'x', name: 'x' }, { token })
      assert.equal(create.status, 403)
      assert.deepEqual(create.body.permissions, ['CREATE_PROJECT'])
    }
  })

  test('415: missing or wrong content type; JSON with parameters is accepted', async (t) => {
    const pennon = await useTestApp(t, database)
    const none = await call(pennon, 'POST', '/api/admin/projects', undefined, { raw: '{"id":"a","name":"a"}' })
    assert.equal(none.status, 415)
    assert.deepEqual(withoutId(none.body), errorOf('ContentTypeerror', NO_TYPE))
    const text = await call(pennon, 'POST', '/api/admin/projects', undefined, {
      raw: '{"id":"a","name":"a"}',
      headers: { 'content-type': 'text/plain' },
    })
    assert.equal(text.status, 415)
    assert.deepEqual(
      withoutId(text.body),
      errorOf('ContentTypeerror', 'The content type "text/plain" is not accepted. Accepted content types: application/json.'),
    )
    const withCharset = await call(pennon, 'POST', '/api/admin/projects', undefined, {
      raw: '{"id":"a","name":"a"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    })
    assert.equal(withCharset.status, 201)
  })

  test('400: invalid JSON says where it broke; schema errors list every violation', async (t) => {
    const pennon = await useTestApp(t, database)
    const broken = await call(pennon, 'POST', '/api/admin/projects', undefined, {
      raw: '{bad json',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(broken.status, 400)
    const brokenMessage = `The request body is not valid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2).`
    assert.deepEqual(withoutId(broken.body), {
      name: 'ValidationError',
      message: brokenMessage,
      details: [{ path: '/body', message: brokenMessage }],
    })

    const empty = await call(pennon, 'POST', '/api/admin/projects', undefined, { raw: '', headers: { 'content-type': 'application/json' } })
    assert.equal(empty.status, 400)
    assert.equal(empty.body.message, 'The request body is empty: send a JSON document.')

    const wrong = await call(pennon, 'POST', '/api/admin/projects', { id: 7, name: ['x'] })
    assert.equal(wrong.status, 400)
    assert.deepEqual(withoutId(wrong.body), {
      name: 'ValidationError',
      message: 'The `/body/id` property must be string. You sent 7. (1 more problem listed in details)',
      details: [
        { path: '/body/id', message: 'The `/body/id` property must be string. You sent 7.' },
        { path: '/body/name', message: 'The `/body/name` property must be string. You sent ["x"].' },
      ],
    })

    const array = await call(pennon, 'POST', '/api/admin/projects', [])
    assert.equal(array.status, 400)
    assert.deepEqual(array.body.details, [{ path: '/body', message: 'The `/body` property must be object. You sent [].' }])

    const union = await call(pennon, 'POST', '/api/admin/projects', { id: 'u', name: 'u', description: 5 })
    assert.deepEqual(union.body.details, [
      { path: '/body/description', message: 'The `/body/description` property must be string or null. You sent 5.' },
    ])
    const literal = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 't', type: 'root' })
    assert.deepEqual(literal.body.details, [
      {
        path: '/body/type',
        message: 'The `/body/type` property must be one of "admin", "client", "backend", "frontend". You sent "root".',
      },
    ])
    // A body full of wrong values gets a bounded list of details.
    const many = await call(pennon, 'POST', '/api/admin/projects/default/archive/validate', {
      features: Array.from({ length: 500 }, (_, i) => i),
    })
    assert.equal(many.status, 400)
    assert.equal(many.body.details.length, 51)
    assert.deepEqual(many.body.details[50], { message: '450 more problems not listed.' })

    const long = 'x'.repeat(300)
    const quoted = await call(pennon, 'POST', '/api/admin/projects', { id: 'ok', name: 5, description: long })
    assert.equal(quoted.status, 400)
    const tooLong = await call(pennon, 'POST', '/api/admin/projects', { id: 'ok', name: long })
    assert.equal(
      tooLong.body.message,
      `The \`/body/name\` property must NOT have more than 255 characters. You sent ${JSON.stringify(long).slice(0, 100)}….`,
    )
  })

  test('400: NUL characters, unpaired surrogates, __proto__ keys and malformed %-escapes', async (t) => {
    const pennon = await useTestApp(t, database)
    const json = { 'content-type': 'application/json' }
    const nul = await call(pennon, 'POST', '/api/admin/projects', undefined, { raw: '{"id":"a\\u0000b","name":"n"}', headers: json })
    assert.equal(nul.status, 400)
    const nulMessage =
      'The `/body/id` property contains a NUL character or an unpaired surrogate, which cannot be stored. You sent "a\\u0000b".'
    assert.deepEqual(withoutId(nul.body), {
      name: 'ValidationError',
      message: nulMessage,
      details: [{ path: '/body/id', message: nulMessage }],
    })
    const surrogate = await call(pennon, 'POST', '/api/admin/projects', undefined, { raw: '{"id":"a","name":"\\ud800"}', headers: json })
    assert.equal(surrogate.status, 400)
    assert.equal(surrogate.body.details[0].path, '/body/name')
    const proto = await call(pennon, 'POST', '/api/admin/projects', undefined, {
      raw: '{"id":"a","name":"n","__proto__":{"x":1}}',
      headers: json,
    })
    assert.equal(proto.status, 400)
    assert.equal(proto.body.message, 'The `/body/__proto__` property is not allowed.')
    const badUrl = await call(pennon, 'DELETE', '/api/admin/projects/%zz')
    assert.equal(badUrl.status, 400)
    assert.deepEqual(withoutId(badUrl.body), {
      name: 'ValidationError',
      message: 'The request path contains a malformed percent-encoded sequence.',
      details: [{ path: '/params', message: 'The request path contains a malformed percent-encoded sequence.' }],
    })
    const badUrlNoAuth = await call(pennon, 'DELETE', '/api/admin/projects/%zz', undefined, { token: null })
    assert.equal(badUrlNoAuth.status, 401)
    const nulInPath = await call(pennon, 'DELETE', '/api/admin/projects/a%00b')
    assert.equal(nulInPath.status, 400)
    assert.equal(nulInPath.body.details[0].path, '/params/projectId')
  })

  test('413: a body over BODY_LIMIT, in the one error shape', async (t) => {
    const pennon = await useTestApp(t, database, { env: { BODY_LIMIT: '1000' } })
    const response = await call(pennon, 'POST', '/api/admin/projects', { id: 'a', name: 'x'.repeat(2000) })
    assert.equal(response.status, 413)
    assert.deepEqual(withoutId(response.body), errorOf('PayloadTooLargeError', 'The request body is larger than this server accepts.'))
  })

  test('500 hides internals and logs them under the error id', async (t) => {
    const pennon = await useTestApp(t, database)
    await pennon.database.close()
    const response = await call(pennon, 'GET', '/api/admin/projects')
    assert.equal(response.status, 500)
    const id = response.body.id
    assert.deepEqual(withoutId(response.body), errorOf('InternalError', `An unexpected error occurred. Error id: ${id}.`))
    const logged = pennon.logs.map((line) => JSON.parse(line)).find((line) => line.errorId === id)
    assert.ok(logged, 'the error is logged under its id')
    assert.equal(logged.level, 50)
    const health = await call(pennon, 'GET', '/health', undefined, { token: null })
    assert.equal(health.status, 500)
    // Readiness says "not ready" without an error body, as the reference.
    const ready = await call(pennon, 'GET', '/ready', undefined, { token: null })
    assert.equal(ready.status, 503)
    assert.equal(ready.text, '')
  })

  test('AUTH_TYPE=none: no token needed, acting as "unknown"; client tokens still refused', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    const created = await call(pennon, 'POST', '/api/admin/projects', { id: 'open', name: 'Open' }, { token: null })
    assert.equal(created.status, 201)
    const garbage = await call(pennon, 'GET', '/api/admin/projects', undefined, { token: 'garbage' })
    assert.equal(garbage.status, 200)
    const client = await apiToken(pennon, 'client')
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: client })).status, 403)
    const row = await pennon.database.db.selectFrom('events').select('json').where('type', '=', 'project-created').executeTakeFirstOrThrow()
    const event = JSON.parse(row.json)
    assert.deepEqual([event.createdBy, event.createdByUserId], ['unknown', -1])
  })

  test('health and the OpenAPI document need no token', async (t) => {
    const pennon = await useTestApp(t, database)
    const health = await call(pennon, 'GET', '/health', undefined, { token: null })
    assert.equal(health.status, 200)
    assert.deepEqual(health.body, { health: 'GOOD' })
    const ready = await call(pennon, 'GET', '/ready', undefined, { token: null })
    assert.equal(ready.status, 200)
    assert.deepEqual(ready.body, { health: 'GOOD' })
    const ui = await call(pennon, 'GET', '/docs/openapi/', undefined, { token: null })
    assert.equal(ui.status, 200)
    assert.match(String(ui.headers['content-type']), /text\/html/)
  })

  test('Swagger UI: a strict CSP, never framed, never sniffed, on the page and everything it loads', async (t) => {
    const pennon = await useTestApp(t, database)
    const expectedCsp =
      "default-src 'none'; script-src 'self'; style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; " +
      "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    assert.equal(DOCS_CSP, expectedCsp)
    for (const [url, type] of [
      ['/docs/openapi/', 'text/html; charset=utf-8'],
      ['/docs/openapi', 'text/html; charset=utf-8'],
      ['/docs/openapi/static/swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
      ['/docs/openapi/static/swagger-initializer.js', 'application/javascript; charset=utf-8'],
      ['/docs/openapi/static/swagger-ui.css', 'text/css; charset=utf-8'],
      ['/docs/openapi/json', 'application/json; charset=utf-8'],
    ]) {
      const response = await call(pennon, 'GET', url!, undefined, { token: null })
      assert.equal(response.status, 200, url)
      assert.equal(response.headers['content-type'], type, url)
      assert.equal(response.headers['content-security-policy'], expectedCsp, url)
      assert.equal(response.headers['x-frame-options'], 'DENY', url)
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url)
      assert.equal(response.headers['referrer-policy'], 'no-referrer', url)
    }
    // The page loads nothing inline and nothing from elsewhere.
    const page = await call(pennon, 'GET', '/docs/openapi/', undefined, { token: null })
    assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=|(src|href)="(https?:)?\/\//i)
  })
})
