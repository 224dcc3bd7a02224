import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { asBrowser, createUser, PASSWORD, signIn } from '../../../test/people.ts'

const PUBLIC_URL = 'https://flags.example.com'
const TOKENS = '/api/admin/invite-link/tokens'
const DAY = 86_400_000
const UNUSABLE = errorOf('ValidationError', 'This invite link is unknown, disabled or expired: ask an admin for a new one.')

const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString()

async function makeToken(pennon: TestApp, name = 'Team', expiresAt = inDays(7)) {
  const created = await call(pennon, 'POST', TOKENS, { name, expiresAt })
  assert.equal(created.status, 201, created.text)
  return created.body
}

const signUp = (pennon: TestApp, secret: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(pennon, 'POST', `/invite/${secret}/signup`, body, { token: null, headers })

onEachDatabase('invite links', (database) => {
  test('an admin makes a link; someone validates it, signs up as a Viewer and signs in; the link lists them', async (t) => {
    const pennon = await useTestApp(t, database, { env: { PUBLIC_URL } })
    const expiresAt = inDays(7)
    const created = await call(pennon, 'POST', TOKENS, { name: ' Newcomers ', expiresAt })
    assert.equal(created.status, 201, created.text)
    const { secret, createdAt } = created.body
    assert.match(secret, /^[0-9a-f]{32}$/)
    assert.equal(created.headers.location, `tokens/${secret}`)
    const token = {
      secret,
      url: `${PUBLIC_URL}/#/new-user?invite=${secret}`,
      name: 'Newcomers',
      enabled: true,
      expiresAt,
      createdAt,
      createdBy: 'admin',
      users: [],
      role: { id: 3, type: 'root', name: 'Viewer' },
    }
    assert.deepEqual(created.body, token)
    assert.deepEqual((await call(pennon, 'GET', TOKENS)).body, { tokens: [token] })
    assert.deepEqual((await call(pennon, 'GET', `${TOKENS}/${secret}`)).body, token)

    const valid = await call(pennon, 'GET', `/invite/${secret}/validate`, undefined, { token: null })
    assert.deepEqual([valid.status, valid.text], [200, ''])
    const signup = await signUp(pennon, secret, { email: 'New@Example.com', name: 'New Person', password: PASSWORD, username: 'newbie' })
    assert.equal(signup.status, 201, signup.text)
    assert.deepEqual(signup.body, {
      id: signup.body.id,
      name: 'New Person',
      username: 'newbie',
      email: 'new@example.com',
      rootRole: 3,
      loginAttempts: 0,
      seenAt: null,
      createdAt: signup.body.createdAt,
      accountType: 'User',
    })
    const cookie = await signIn(pennon, 'new@example.com')
    const me = await call(pennon, 'GET', '/api/admin/user', undefined, asBrowser(cookie))
    assert.equal(me.body.user?.id ?? me.body.id, signup.body.id)
    assert.equal(
      (await call(pennon, 'POST', '/api/admin/projects', { id: 'nope', name: 'Nope' }, asBrowser(cookie))).status,
      403,
      'a Viewer',
    )

    assert.deepEqual((await call(pennon, 'GET', `${TOKENS}/${secret}`)).body.users, [
      { id: signup.body.id, name: 'New Person', username: 'newbie' },
    ])
    // The same email again: taken (as the reference answers).
    const again = await signUp(pennon, secret, { email: 'new@example.com', name: 'Twice', password: PASSWORD })
    assert.equal(again.status, 400)
    assert.deepEqual(
      withoutId(again.body),
      errorOf('ValidationError', 'A user with email "new@example.com" already exists.', {
        details: [{ path: '/body/email', message: 'A user with email "new@example.com" already exists.' }],
      }),
    )
    // A deleted user leaves the list.
    assert.equal((await call(pennon, 'DELETE', `/api/admin/user-admin/${signup.body.id}`)).status, 200)
    assert.deepEqual((await call(pennon, 'GET', `${TOKENS}/${secret}`)).body.users, [])
  })

  test('disabled, expired and unknown links are refused alike; an expiry is at most a month away', async (t) => {
    const pennon = await useTestApp(t, database)
    const token = await makeToken(pennon, 'Far', inDays(365))
    const latest = new Date()
    latest.setUTCMonth(latest.getUTCMonth() + 1)
    assert.ok(Math.abs(Date.parse(token.expiresAt) - latest.getTime()) < 60_000, `capped to a month: ${token.expiresAt}`)
    assert.match(token.url, /^http:\/\/localhost(:80)?\/#\/new-user\?invite=[0-9a-f]{32}$/, 'the origin the request reached')

    const refused = async (secret: string) => {
      const validate = await call(pennon, 'GET', `/invite/${secret}/validate`, undefined, { token: null })
      assert.equal(validate.status, 400, secret)
      assert.deepEqual(withoutId(validate.body), UNUSABLE)
      const signup = await signUp(pennon, secret, { email: 'late@example.com', name: 'Late', password: PASSWORD })
      assert.equal(signup.status, 400)
      assert.deepEqual(withoutId(signup.body), UNUSABLE)
    }
    const disabled = await call(pennon, 'PUT', `${TOKENS}/${token.secret}`, { enabled: false })
    assert.equal(disabled.status, 200)
    assert.deepEqual(disabled.body, { ...token, enabled: false })
    await refused(token.secret)
    const back = await call(pennon, 'PUT', `${TOKENS}/${token.secret}`, { enabled: true, expiresAt: inDays(400) })
    assert.equal(back.body.enabled, true)
    assert.ok(Date.parse(back.body.expiresAt) <= Date.now() + 32 * DAY, 'capped on change too')
    const past = inDays(-1)
    const expired = await call(pennon, 'PUT', `${TOKENS}/${token.secret}`, { expiresAt: past })
    assert.deepEqual([expired.status, expired.body.enabled, expired.body.expiresAt], [200, false, past], 'enabled is false once expired')
    await refused(token.secret)
    await refused('0123456789abcdef0123456789abcdef')
    await refused('not-a-token')
    assert.equal((await call(pennon, 'GET', '/api/admin/user-admin')).body.users.length, 0, 'nobody signed up')

    const long = await call(pennon, 'GET', `/invite/${'a'.repeat(101)}/validate`, undefined, { token: null })
    assert.equal(long.status, 400)
    assert.equal((await call(pennon, 'PUT', `${TOKENS}/${token.secret}`, {})).status, 400, 'nothing to change')
    assert.equal((await call(pennon, 'PUT', `${TOKENS}/nope`, { enabled: true })).status, 404)
    assert.equal((await call(pennon, 'GET', `${TOKENS}/nope`)).status, 404)
    for (const body of [
      { name: 'x' },
      { name: '  ', expiresAt: inDays(1) },
      { name: 'x', expiresAt: 'tomorrow' },
      { name: 'x', expiresAt: inDays(1), role: 1 },
    ]) {
      assert.equal((await call(pennon, 'POST', TOKENS, body)).status, 400, JSON.stringify(body))
    }
  })

  test('admins only; the sign-up treats its input as hostile', async (t) => {
    const pennon = await useTestApp(t, database, { env: { TRUST_PROXY: 'true' } })
    const token = await makeToken(pennon)
    await createUser(pennon, 'editor@example.com', 2)
    const editor = asBrowser(await signIn(pennon, 'editor@example.com'))
    for (const [method, url, body] of [
      ['GET', TOKENS],
      ['POST', TOKENS, { name: 'x', expiresAt: inDays(1) }],
      ['GET', `${TOKENS}/${token.secret}`],
      ['PUT', `${TOKENS}/${token.secret}`, { enabled: false }],
    ] as const) {
      assert.equal((await call(pennon, method, url, body, editor)).status, 403, `${method} ${url}`)
      assert.equal((await call(pennon, method, url, body, { token: null })).status, 401, `${method} ${url}`)
    }

    const good = { email: 'ok@example.com', name: 'Ok', password: PASSWORD }
    const weak = await signUp(pennon, token.secret, { ...good, password: 'password' })
    assert.equal(weak.status, 400)
    assert.equal(weak.body.name, 'OwaspValidationError')
    for (const body of [
      { ...good, email: 'not an email' },
      { ...good, username: 'a@b' },
      { ...good, rootRole: 1 },
      { name: 'Ok', password: PASSWORD },
      { ...good, name: 'x'.repeat(256) },
    ]) {
      const response = await signUp(pennon, token.secret, body)
      assert.equal(response.status, 400, JSON.stringify(body))
    }
    const text = await call(pennon, 'POST', `/invite/${token.secret}/signup`, undefined, {
      token: null,
      raw: JSON.stringify(good),
      headers: { 'content-type': 'text/plain' },
    })
    assert.equal(text.status, 415)
    assert.equal((await call(pennon, 'GET', '/api/admin/user-admin')).body.users.length, 1, 'only the editor')

    // Unusable tokens from one client address: 20 per 15 minutes, then 429 there, even for a good one.
    for (let i = 0; i < 20; i++) {
      const guess = await call(pennon, 'GET', `/invite/guess${i}/validate`, undefined, {
        token: null,
        headers: { 'x-forwarded-for': '10.0.0.5' },
      })
      assert.equal(guess.status, 400)
    }
    const held = await signUp(pennon, token.secret, good, { 'x-forwarded-for': '10.0.0.5' })
    assert.equal(held.status, 429)
    assert.ok(Number(held.headers['retry-after']) > 0)
    assert.equal((await signUp(pennon, token.secret, good, { 'x-forwarded-for': '10.0.0.6' })).status, 201, 'another address signs up')
  })

  test("an invite link's secret never reaches a log line", async (t) => {
    const pennon = await useTestApp(t, database, { env: { LOG_LEVEL: 'debug' } })
    const token = await makeToken(pennon)
    assert.equal((await call(pennon, 'GET', `${TOKENS}/${token.secret}`)).status, 200)
    assert.equal((await call(pennon, 'GET', `/invite/${token.secret}/validate`, undefined, { token: null })).status, 200)
    const logs = pennon.logs.join('\n')
    assert.ok(logs.includes('/invite/[redacted]/validate'), 'the validation was logged')
    assert.ok(logs.includes('/api/admin/invite-link/tokens/[redacted]'), 'the read was logged')
    assert.ok(!logs.includes(token.secret), 'the secret leaked')
  })
})
