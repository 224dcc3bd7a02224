import assert from 'node:assert/strict'
import { after, before, test, type TestContext } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp, type TestDatabase } from '../../../test/test-app.ts'
import { createOidcBrowser } from '../../../test/oidc-browser.ts'
import { ConfigError, loadConfig } from '../../config.ts'
import { startIssuer, type Issuer, type IssuerClient } from '../../../test/oidc-issuer.ts'
import { createUser, PASSWORD } from '../../../test/people.ts'

const PENNON = 'http://pennon.test'
const SECRET = 'a client secret of forty characters, or so'
const clients: IssuerClient[] = [
  {
    client_id: 'pennon',
    client_secret: SECRET,
    redirect_uris: [`${PENNON}/auth/oidc/callback`, 'http://localhost/auth/oidc/callback'],
    post_logout_redirect_uris: [`${PENNON}/`],
  },
  // Another application at the same provider: its codes and tokens are not for Pennon.
  { client_id: 'other-app', client_secret: 'the other secret', redirect_uris: [`${PENNON}/auth/oidc/callback`] },
]

let issuer: Issuer
let otherIssuer: Issuer
before(async () => {
  ;[issuer, otherIssuer] = await Promise.all([startIssuer(clients), startIssuer(clients)])
})
after(async () => {
  await Promise.all([issuer.stop(), otherIssuer.stop()])
})

const settingsOf = (extra: Record<string, unknown> = {}) => ({
  enabled: true,
  discoverUrl: `${issuer.url}/.well-known/openid-configuration`,
  clientId: 'pennon',
  secret: SECRET,
  ...extra,
})

/** Pennon at PUBLIC_URL http://pennon.test, with OpenID Connect set to `settings`. */
async function pennonWith(t: TestContext, database: TestDatabase, settings: Record<string, unknown> = settingsOf()): Promise<TestApp> {
  const pennon = await useTestApp(t, database, { env: { PUBLIC_URL: PENNON } })
  const stored = await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settings)
  assert.equal(stored.status, 200, stored.text)
  return pennon
}

/** The session cookie a successful callback set. */
function sessionCookieOf(response: { headers: Record<string, unknown> }): string {
  const line = [response.headers['set-cookie']]
    .flat()
    .map(String)
    .find((cookie) => cookie.startsWith('pennon-session='))
  assert.ok(line, 'a session cookie')
  assert.match(line, /^pennon-session=[0-9a-f]{64}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/)
  return line.split(';')[0]!
}

/** A failed sign-in: the error page, a 400, and no session. */
function assertRefused(response: { status: number; headers: Record<string, unknown>; text: string }, message: RegExp): void {
  assert.equal(response.status, 400, response.text)
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
  assert.match(response.text, /<h1>Sign-in failed<\/h1>/)
  assert.match(response.text, message)
  assert.ok(![response.headers['set-cookie']].flat().some((cookie) => String(cookie).startsWith('pennon-session=')), 'no session')
}

test('OIDC_*: read when OIDC_DISCOVER_URL is set; bad values stop the start', () => {
  assert.equal(loadConfig({}).oidc, undefined)
  const env = { OIDC_DISCOVER_URL: 'https://login.example.com', OIDC_CLIENT_ID: 'pennon', OIDC_SECRET: 's' }
  assert.deepEqual(loadConfig(env).oidc, {
    enabled: true,
    discoverUrl: 'https://login.example.com',
    clientId: 'pennon',
    secret: 's',
    autoCreate: false,
    defaultRootRole: 'Viewer',
    emailDomains: '',
    enableSingleSignOut: false,
    acrValues: '',
    idTokenSigningAlgorithm: 'RS256',
    addGroupsScope: false,
    groupJsonPath: '',
    rootRoleGroups: { Admin: [], Editor: [], Viewer: [] },
  })
  // Plain http only on a loopback address.
  assert.equal(loadConfig({ ...env, OIDC_DISCOVER_URL: 'http://[::1]:8080' }).oidc?.discoverUrl, 'http://[::1]:8080')
  assert.equal(loadConfig({ ...env, OIDC_DISCOVER_URL: 'http://localhost:8080' }).oidc?.discoverUrl, 'http://localhost:8080')
  assert.throws(() => loadConfig({ ...env, OIDC_DISCOVER_URL: 'http://login.example.com' }), /OIDC_DISCOVER_URL must be an https:\/\/ URL/)
  assert.throws(() => loadConfig({ ...env, OIDC_DISCOVER_URL: 'not a url' }), ConfigError)
  assert.throws(() => loadConfig({ ...env, OIDC_SECRET: '' }), /OIDC_DISCOVER_URL needs OIDC_CLIENT_ID and OIDC_SECRET/)
  assert.throws(() => loadConfig({ ...env, OIDC_DEFAULT_ROOT_ROLE: 'Owner' }), /OIDC_DEFAULT_ROOT_ROLE must be Admin, Editor or Viewer/)
  assert.throws(() => loadConfig({ ...env, OIDC_ID_TOKEN_SIGNING_ALGORITHM: 'HS256' }), /OIDC_ID_TOKEN_SIGNING_ALGORITHM/)
  assert.throws(() => loadConfig({ ...env, OIDC_AUTO_CREATE: 'yes' }), /OIDC_AUTO_CREATE must be "true" or "false"/)
})

onEachDatabase('single sign-on with OpenID Connect', (database) => {
  test('a person with a user signs in at the provider and gets the session cookie of a password sign-in', async (t) => {
    const pennon = await pennonWith(t, database)
    const id = await createUser(pennon, 'ann@example.com', 2)
    const browser = createOidcBrowser(pennon, PENNON)

    const authorization = new URL(await browser.begin())
    assert.equal(authorization.origin, issuer.url)
    assert.equal(authorization.pathname, '/auth')
    const params = Object.fromEntries(authorization.searchParams)
    assert.deepEqual(Object.keys(params).sort(), [
      'client_id',
      'code_challenge',
      'code_challenge_method',
      'nonce',
      'redirect_uri',
      'response_type',
      'scope',
      'state',
    ])
    assert.deepEqual(
      [params.client_id, params.redirect_uri, params.response_type, params.scope, params.code_challenge_method],
      ['pennon', `${PENNON}/auth/oidc/callback`, 'code', 'openid email profile', 'S256'],
    )
    assert.equal(browser.atPennon.cookies.get('pennon-oidc-state'), params.state)

    const answer = await browser.callback(await browser.atTheProvider(authorization.href, 'Ann@Example.com'))
    assert.equal(answer.status, 302, answer.text)
    assert.equal(answer.headers.location, `${PENNON}/`)
    const cookie = sessionCookieOf(answer)
    assert.equal(browser.atPennon.cookies.has('pennon-oidc-state'), false)

    const me = await call(pennon, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie } })
    assert.equal(me.status, 200, me.text)
    assert.deepEqual([me.body.user.id, me.body.user.email, me.body.user.rootRole], [id, 'ann@example.com', 2])
    // Events of the session name the person, as after a password sign-in.
    const flag = await call(
      pennon,
      'POST',
      '/api/admin/projects/default/features',
      { name: 'by-sso' },
      {
        token: null,
        headers: { cookie, origin: PENNON },
      },
    )
    assert.equal(flag.status, 201, flag.text)
    const created = (await allEvents(pennon)).find((event) => event.type === 'feature-created')
    assert.deepEqual([created.createdBy, created.createdByUserId], ['ann@example.com', id])
  })

  test('without PUBLIC_URL the callback URL is the origin the request reached', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settingsOf())).status, 200)
    await createUser(pennon, 'bo@example.com', 3)
    const browser = createOidcBrowser(pennon, 'http://localhost:80')
    const authorization = new URL(await browser.begin())
    // As a URL is written: the default port left out.
    assert.equal(authorization.searchParams.get('redirect_uri'), 'http://localhost/auth/oidc/callback')
    const answer = await browser.callback(await browser.atTheProvider(authorization.href, 'bo@example.com'))
    assert.equal(answer.status, 302, answer.text)
    assert.equal(answer.headers.location, 'http://localhost:80/')
    sessionCookieOf(answer)
  })

  test('settings: Admin only, the secret never shown nor written to events, kept when not sent', async (t) => {
    const pennon = await useTestApp(t, database)
    const defaults = await call(pennon, 'GET', '/api/admin/auth/oidc/settings')
    assert.equal(defaults.status, 200)
    assert.deepEqual(defaults.body, {
      enabled: false,
      discoverUrl: '',
      clientId: '',
      autoCreate: false,
      defaultRootRole: 'Viewer',
      defaultRootRoleId: 3,
      emailDomains: '',
      enableSingleSignOut: false,
      acrValues: '',
      idTokenSigningAlgorithm: 'RS256',
      addGroupsScope: false,
      groupJsonPath: '',
      rootRoleGroups: { Admin: [], Editor: [], Viewer: [] },
    })
    const shown = {
      enabled: true,
      discoverUrl: `${issuer.url}/.well-known/openid-configuration`,
      clientId: 'pennon',
      autoCreate: true,
      defaultRootRole: 'Editor',
      defaultRootRoleId: 2,
      emailDomains: 'example.com',
      enableSingleSignOut: false,
      acrValues: '',
      idTokenSigningAlgorithm: 'RS256',
      addGroupsScope: false,
      groupJsonPath: '',
      rootRoleGroups: { Admin: [], Editor: [], Viewer: [] },
    }
    const stored = await call(
      pennon,
      'POST',
      '/api/admin/auth/oidc/settings',
      settingsOf({ autoCreate: true, defaultRootRole: 'Editor', emailDomains: 'example.com' }),
    )
    assert.equal(stored.status, 200, stored.text)
    assert.deepEqual(stored.body, shown)
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/auth/oidc/settings')).body, shown)
    // Stored again without the secret: it is kept (sign-in still works), and the change is an event.
    // (enablePkce, which the reference's tools send, is accepted: PKCE is always on.)
    const again = await call(pennon, 'POST', '/api/admin/auth/oidc/settings', { ...shown, acrValues: 'silver', enablePkce: false })
    assert.equal(again.status, 200, again.text)
    assert.equal(again.body.acrValues, 'silver')
    const events = (await allEvents(pennon)).filter((event) => event.type.startsWith('setting-'))
    assert.deepEqual(
      events.map((event) => [event.type, event.data, event.preData ?? null]),
      [
        ['setting-created', { id: 'unleash.enterprise.auth.oidc', ...shown }, null],
        ['setting-updated', { id: 'unleash.enterprise.auth.oidc', ...shown, acrValues: 'silver' }, shown],
      ],
    )
    assert.ok(!JSON.stringify(events).includes(SECRET), 'no secret in events')
    await createUser(pennon, 'cy@example.com', 3)
    const browser = createOidcBrowser(pennon, 'http://localhost:80')
    const answer = await browser.callback(await browser.atTheProvider(await browser.begin(), 'cy@example.com'))
    assert.equal(answer.status, 302, answer.text)

    // Enabled without what it needs, or with a provider over plain http elsewhere than this machine: 400.
    const noSecret = await useTestApp(t, database)
    const missing = await call(noSecret, 'POST', '/api/admin/auth/oidc/settings', { ...settingsOf(), secret: undefined })
    assert.equal(missing.status, 400)
    assert.deepEqual(missing.body.message, 'OpenID Connect cannot be enabled without `secret`.')
    const plain = await call(noSecret, 'POST', '/api/admin/auth/oidc/settings', settingsOf({ discoverUrl: 'http://login.example.com' }))
    assert.equal(plain.status, 400)
    assert.match(plain.body.message, /^The `discoverUrl` property must be an https:\/\/ URL \(http:\/\/ only on a loopback address/)

    // Another root role than Admin: 403, for reading too.
    await createUser(pennon, 'ed@example.com', 2)
    const editor = await call(pennon, 'POST', '/auth/simple/login', { username: 'ed@example.com', password: PASSWORD }, { token: null })
    const cookie = String(editor.headers['set-cookie']).split(';')[0]!
    for (const method of ['GET', 'POST'] as const) {
      const refused = await call(pennon, method, '/api/admin/auth/oidc/settings', method === 'POST' ? settingsOf() : undefined, {
        token: null,
        headers: { cookie, origin: PENNON },
      })
      assert.equal(refused.status, 403, refused.text)
    }
  })

  test('a person without a user is refused unless autoCreate makes one, with the default root role, for the domains set', async (t) => {
    const pennon = await pennonWith(t, database)
    assertRefused(await createOidcBrowser(pennon, PENNON).signIn('new@example.com'), /No user of Pennon has the email new@example\.com/)
    assert.equal(
      (await call(pennon, 'GET', '/api/admin/user-admin')).body.users.some((u: { email: string }) => u.email === 'new@example.com'),
      false,
    )

    assert.equal(
      (
        await call(
          pennon,
          'POST',
          '/api/admin/auth/oidc/settings',
          settingsOf({ autoCreate: true, defaultRootRole: 'Editor', emailDomains: 'example.com, @corp.test' }),
        )
      ).status,
      200,
    )
    assertRefused(
      await createOidcBrowser(pennon, PENNON).signIn('eve@elsewhere.test'),
      /only for the email domains example\.com, @corp\.test; eve@elsewhere\.test is not one of them/,
    )
    // An email the provider does not vouch for is never matched nor used.
    assertRefused(await createOidcBrowser(pennon, PENNON).signIn('unverified@example.com'), /a verified email is needed/)

    const answer = await createOidcBrowser(pennon, PENNON).signIn('dee+team@corp.test')
    assert.equal(answer.status, 302, answer.text)
    const me = await call(pennon, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie: sessionCookieOf(answer) } })
    assert.deepEqual([me.body.user.email, me.body.user.name, me.body.user.rootRole], ['dee+team@corp.test', 'dee', 2])
    const made = (await allEvents(pennon)).find((event) => event.type === 'user-created')
    assert.deepEqual([made.createdBy, made.data.email, made.data.rootRole], ['system', 'dee+team@corp.test', 2])
    // The second time, the same user.
    const again = await createOidcBrowser(pennon, PENNON).signIn('dee+team@corp.test')
    assert.equal(again.status, 302)
    assert.equal((await allEvents(pennon)).filter((event) => event.type === 'user-created').length, 1)
  })

  test('a user deleted in Pennon cannot sign in by single sign-on, not even with autoCreate, and their session is over', async (t) => {
    const pennon = await pennonWith(t, database)
    const id = await createUser(pennon, 'gone@example.com', 3)
    const cookie = sessionCookieOf(await createOidcBrowser(pennon, PENNON).signIn('gone@example.com'))
    assert.equal((await call(pennon, 'DELETE', `/api/admin/user-admin/${id}`)).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie } })).status, 401)
    assertRefused(await createOidcBrowser(pennon, PENNON).signIn('gone@example.com'), /No user of Pennon has the email gone@example\.com/)
    // autoCreate does not bring a removed person back; an admin adding them again does.
    assert.equal((await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settingsOf({ autoCreate: true }))).status, 200)
    assertRefused(
      await createOidcBrowser(pennon, PENNON).signIn('Gone@example.com'),
      /The user of gone@example\.com was removed from Pennon: ask an admin to add you again\./,
    )
    assert.equal((await createOidcBrowser(pennon, PENNON).signIn('other@example.com')).status, 302, 'others are made')
    await createUser(pennon, 'gone@example.com', 3)
    assert.equal((await createOidcBrowser(pennon, PENNON).signIn('gone@example.com')).status, 302)
  })

  test('a replayed, forged or foreign state, a denied consent and a disabled sign-in end on the error page with 400', async (t) => {
    const pennon = await pennonWith(t, database)
    await createUser(pennon, 'fay@example.com', 3)
    const browser = createOidcBrowser(pennon, PENNON)
    const callbackUrl = await browser.atTheProvider(await browser.begin(), 'fay@example.com')
    const stateCookie = `pennon-oidc-state=${new URL(callbackUrl).searchParams.get('state')}`
    assert.equal((await browser.callback(callbackUrl)).status, 302)
    // Replayed, with the state's cookie as it was: the state served already.
    assertRefused(await browser.callback(callbackUrl, { cookie: stateCookie }), /This sign-in is over \(used already, or expired\)/)

    // Forged: a state Pennon never sent (with a cookie to match).
    const forged = new URL(callbackUrl)
    forged.searchParams.set('state', 'made-up-state')
    assertRefused(await browser.callback(forged.href, { cookie: 'pennon-oidc-state=made-up-state' }), /This sign-in is over/)

    // Begun in another browser (an attacker's sign-in finished in the victim's): the cookie does not match.
    const attacker = createOidcBrowser(pennon, PENNON)
    const planted = await attacker.atTheProvider(await attacker.begin(), 'fay@example.com')
    const victim = createOidcBrowser(pennon, PENNON)
    assertRefused(await victim.callback(planted), /This sign-in was not begun in this browser/)

    // Consent denied at the provider.
    const refusing = createOidcBrowser(pennon, PENNON)
    const denied = await refusing.atTheProvider(await refusing.begin(), 'fay@example.com', 'refuse')
    assert.equal(new URL(denied).searchParams.get('error'), 'access_denied')
    assertRefused(
      await refusing.callback(denied),
      /The sign-in provider refused the sign-in: access_denied \(End-User aborted interaction\)\./,
    )

    // Sign-in turned off: the way in is closed, and so is a sign-in begun before.
    const late = createOidcBrowser(pennon, PENNON)
    const begun = await late.atTheProvider(await late.begin(), 'fay@example.com')
    assert.equal((await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settingsOf({ enabled: false }))).status, 200)
    assertRefused(await late.pennonGet('/auth/oidc/login'), /Single sign-on \(OpenID Connect\) is not enabled on this Pennon\./)
    assertRefused(await late.callback(begun), /Single sign-on \(OpenID Connect\) is not enabled/)
  })

  test("another application's code, another issuer's answer or an unknown issuer is refused", async (t) => {
    const pennon = await pennonWith(t, database)
    await createUser(pennon, 'gil@example.com', 3)

    // The other application's sign-in, brought to Pennon's callback with a state Pennon began: the code is not Pennon's.
    const browser = createOidcBrowser(pennon, PENNON)
    const ours = new URL(await browser.begin())
    const theirs = new URL(ours)
    theirs.searchParams.set('client_id', 'other-app')
    const foreign = new URL(await browser.atTheProvider(theirs.href, 'gil@example.com'))
    assertRefused(
      await browser.callback(foreign.href),
      /The sign-in provider&#39;s answer was refused: invalid_grant \(grant request is invalid\)/,
    )

    // The same request at another provider: its answer names another issuer.
    const elsewhere = createOidcBrowser(pennon, PENNON)
    const asked = new URL(await elsewhere.begin())
    const atOther = new URL(`${otherIssuer.url}${asked.pathname}${asked.search}`)
    const otherAnswer = await elsewhere.atTheProvider(atOther.href, 'gil@example.com')
    assert.equal(new URL(otherAnswer).searchParams.get('iss'), otherIssuer.url)
    assertRefused(await elsewhere.callback(otherAnswer), /The sign-in provider&#39;s answer was refused: .*&quot;iss&quot;/)

    // A discovery document that names another issuer than the one asked for (localhost for 127.0.0.1).
    const unknown = await pennonWith(t, database, settingsOf({ discoverUrl: issuer.url.replace('127.0.0.1', 'localhost') }))
    assertRefused(
      await createOidcBrowser(unknown, PENNON).pennonGet('/auth/oidc/login'),
      /The sign-in provider could not be used: .*issuer/,
    )
  })

  test('password sign-in can be turned off only while single sign-on is on; API tokens work all the same', async (t) => {
    const pennon = await useTestApp(t, database, { env: { PUBLIC_URL: PENNON } })
    await createUser(pennon, 'hal@example.com', 1)
    const off = await call(pennon, 'POST', '/api/admin/auth/simple/settings', { disabled: true })
    assert.equal(off.status, 409)
    assert.deepEqual(
      withoutId(off.body),
      errorOf(
        'InvalidOperationError',
        'Password sign-in can only be turned off while OpenID Connect sign-in is enabled: enable it (and try it) first.',
      ),
    )
    assert.equal((await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settingsOf())).status, 200)
    const turnedOff = await call(pennon, 'POST', '/api/admin/auth/simple/settings', { disabled: true })
    assert.deepEqual([turnedOff.status, turnedOff.body], [200, { disabled: true }])
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/auth/simple/settings')).body, { disabled: true })
    assert.deepEqual((await call(pennon, 'GET', '/auth/options', undefined, { token: null })).body, {
      password: false,
      options: [{ type: 'oidc', message: 'Sign in with OpenID Connect', path: '/auth/oidc/login' }],
    })
    assert.equal((await call(pennon, 'GET', '/api/admin/ui-config')).body.disablePasswordAuth, true)

    const password = await call(pennon, 'POST', '/auth/simple/login', { username: 'hal@example.com', password: PASSWORD }, { token: null })
    assert.deepEqual(
      [password.status, withoutId(password.body)],
      [403, errorOf('NoAccessError', 'Password sign-in is turned off on this Pennon: sign in with single sign-on.')],
    )
    assert.equal(password.headers['set-cookie'], undefined)
    // Single sign-on works, and so does the admin token.
    assert.equal((await createOidcBrowser(pennon, PENNON).signIn('hal@example.com')).status, 302)
    assert.equal((await call(pennon, 'GET', '/api/admin/user-admin')).status, 200)

    // Single sign-on turned off: passwords are back, whatever the setting says.
    assert.equal((await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settingsOf({ enabled: false }))).status, 200)
    const back = await call(pennon, 'POST', '/auth/simple/login', { username: 'hal@example.com', password: PASSWORD }, { token: null })
    assert.equal(back.status, 200, back.text)
    assert.deepEqual((await call(pennon, 'GET', '/auth/options', undefined, { token: null })).body, { password: true, options: [] })
    const events = (await allEvents(pennon)).filter((event) => event.data?.id === 'unleash.auth.simple')
    assert.deepEqual(
      events.map((event) => [event.type, event.data]),
      [['setting-created', { id: 'unleash.auth.simple', disabled: true }]],
    )
  })

  test('sign-out ends the session at once; with single sign-out the browser goes to the provider next', async (t) => {
    const pennon = await pennonWith(t, database)
    await createUser(pennon, 'ivy@example.com', 3)
    const plain = sessionCookieOf(await createOidcBrowser(pennon, PENNON).signIn('ivy@example.com'))
    const out = await call(pennon, 'POST', '/logout', undefined, { token: null, headers: { cookie: plain, origin: PENNON } })
    assert.deepEqual([out.status, out.text], [200, ''])
    assert.equal((await call(pennon, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie: plain } })).status, 401)

    assert.equal((await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settingsOf({ enableSingleSignOut: true }))).status, 200)
    const browser = createOidcBrowser(pennon, PENNON)
    const cookie = sessionCookieOf(await browser.signIn('ivy@example.com'))
    const signedOut = await call(pennon, 'POST', '/logout', undefined, { token: null, headers: { cookie, origin: PENNON } })
    assert.equal(signedOut.status, 200, signedOut.text)
    const endSession = new URL(signedOut.body.redirectUrl)
    assert.equal(`${endSession.origin}${endSession.pathname}`, `${issuer.url}/session/end`)
    assert.equal(endSession.searchParams.get('post_logout_redirect_uri'), `${PENNON}/`)
    assert.equal(endSession.searchParams.get('client_id'), 'pennon')
    assert.match(endSession.searchParams.get('id_token_hint') ?? '', /^[\w-]+\.[\w-]+\.[\w-]+$/)
    assert.equal((await call(pennon, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie } })).status, 401)
    // The provider knows the hint, and asks the person to confirm signing out of it.
    const page = await browser.provider(endSession.href)
    assert.equal(page.status, 200)
    assert.match(await page.text(), /logout/i)
    // A password session has nothing to end at the provider.
    await createUser(pennon, 'jo@example.com', 3)
    const login = await call(pennon, 'POST', '/auth/simple/login', { username: 'jo@example.com', password: PASSWORD }, { token: null })
    const byPassword = String(login.headers['set-cookie']).split(';')[0]!
    const passwordOut = await call(pennon, 'POST', '/logout', undefined, { token: null, headers: { cookie: byPassword, origin: PENNON } })
    assert.deepEqual([passwordOut.status, passwordOut.text], [200, ''])
  })

  test('an ID token with another nonce, or signed with another algorithm than the one set, is refused', async (t) => {
    const pennon = await pennonWith(t, database)
    await createUser(pennon, 'lou@example.com', 3)
    // The nonce changed on its way to the provider: the ID token carries another than Pennon keeps.
    const browser = createOidcBrowser(pennon, PENNON)
    const asked = new URL(await browser.begin())
    asked.searchParams.set('nonce', 'another-nonce')
    assertRefused(await browser.callback(await browser.atTheProvider(asked.href, 'lou@example.com')), /answer was refused: .*nonce/)

    // The provider signs with RS256; Pennon told to expect RS512 takes none of its ID tokens.
    assert.equal(
      (await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settingsOf({ idTokenSigningAlgorithm: 'RS512' }))).status,
      200,
    )
    assertRefused(await createOidcBrowser(pennon, PENNON).signIn('lou@example.com'), /answer was refused: .*&quot;alg&quot;/)
  })

  test("the provider's groups give root roles, when mapped: at every sign-in, and to users autoCreate makes", async (t) => {
    const groups = { addGroupsScope: true, groupJsonPath: 'groups', rootRoleGroups: { Admin: ['admins'], Editor: ['editors', 'writers'] } }
    const pennon = await pennonWith(t, database, settingsOf({ ...groups, autoCreate: true }))
    const id = await createUser(pennon, 'max+admins@example.com', 3)
    const asked = new URL(await createOidcBrowser(pennon, PENNON).begin())
    assert.equal(asked.searchParams.get('scope'), 'openid email profile groups')
    const admin = await createOidcBrowser(pennon, PENNON).signIn('max+admins@example.com')
    assert.equal(admin.status, 302, admin.text)
    const me = await call(pennon, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie: sessionCookieOf(admin) } })
    assert.deepEqual([me.body.user.id, me.body.user.rootRole], [id, 1])
    const updated = (await allEvents(pennon)).find((event) => event.type === 'user-updated')
    assert.deepEqual([updated.createdBy, updated.preData.rootRole, updated.data.rootRole], ['system', 3, 1])
    // Made by autoCreate: the role of their groups rather than the default (Viewer).
    const made = await createOidcBrowser(pennon, PENNON).signIn('nia+writers@example.com')
    const nia = await call(pennon, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie: sessionCookieOf(made) } })
    assert.equal(nia.body.user.rootRole, 2)
    // In no mapped group: the role stays as it is.
    await createUser(pennon, 'oz+others@example.com', 2)
    const other = await createOidcBrowser(pennon, PENNON).signIn('oz+others@example.com')
    const oz = await call(pennon, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie: sessionCookieOf(other) } })
    assert.equal(oz.body.user.rootRole, 2)
  })

  test('set by the environment: the admin API shows the settings and refuses to change them', async (t) => {
    const pennon = await useTestApp(t, database, {
      env: {
        PUBLIC_URL: PENNON,
        OIDC_DISCOVER_URL: issuer.url,
        OIDC_CLIENT_ID: 'pennon',
        OIDC_SECRET: SECRET,
        OIDC_AUTO_CREATE: 'true',
        OIDC_DEFAULT_ROOT_ROLE: 'Editor',
        OIDC_ADMIN_GROUPS: 'admins, owners',
      },
    })
    const shown = await call(pennon, 'GET', '/api/admin/auth/oidc/settings')
    assert.deepEqual(shown.body, {
      enabled: true,
      discoverUrl: issuer.url,
      clientId: 'pennon',
      autoCreate: true,
      defaultRootRole: 'Editor',
      defaultRootRoleId: 2,
      emailDomains: '',
      enableSingleSignOut: false,
      acrValues: '',
      idTokenSigningAlgorithm: 'RS256',
      addGroupsScope: false,
      groupJsonPath: '',
      rootRoleGroups: { Admin: ['admins', 'owners'], Editor: [], Viewer: [] },
    })
    const refused = await call(pennon, 'POST', '/api/admin/auth/oidc/settings', settingsOf())
    assert.deepEqual(
      [refused.status, withoutId(refused.body)],
      [
        409,
        errorOf('InvalidOperationError', 'OpenID Connect is set by the environment (OIDC_DISCOVER_URL and the rest): change it there.'),
      ],
    )
    const made = await createOidcBrowser(pennon, PENNON).signIn('pat@example.com')
    assert.equal(made.status, 302, made.text)
  })
})
