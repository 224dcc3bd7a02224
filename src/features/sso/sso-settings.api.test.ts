/**
 * Single sign-on's settings (the admin API, OIDC_* variables), who may sign in and with which root
 * role, and turning password sign-in off, against a real provider (test/oidc-issuer.ts).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createOidcBrowser } from '../../../test/oidc-browser.ts'
import { createUser, PASSWORD } from '../../../test/people.ts'
import { assertRefused, PENNON, pennonWith, SECRET, sessionCookieOf, ssoSettings, useIssuers } from '../../../test/single-sign-on.ts'
import { allEvents, call, errorOf, onEachDatabase, useTestApp, withoutId } from '../../../test/test-app.ts'
import { ConfigError, loadConfig } from '../../config.ts'

const issuers = useIssuers()
const settingsOf = (extra: Record<string, unknown> = {}) => ssoSettings(issuers.issuer, extra)

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

onEachDatabase('single sign-on: settings and people', (database) => {
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
      setByEnvironment: false,
    })
    const shown = {
      enabled: true,
      discoverUrl: `${issuers.issuer.url}/.well-known/openid-configuration`,
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
    // GET adds where the settings come from; POST answers the settings alone.
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/auth/oidc/settings')).body, { ...shown, setByEnvironment: false })
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
    const pennon = await pennonWith(t, database, settingsOf())
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
    const pennon = await pennonWith(t, database, settingsOf())
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
    const stats = (await call(pennon, 'GET', '/api/admin/instance-admin/statistics')).body
    assert.deepEqual([stats.OIDCenabled, stats.passwordAuthEnabled], [true, false])

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
        OIDC_DISCOVER_URL: issuers.issuer.url,
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
      discoverUrl: issuers.issuer.url,
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
      setByEnvironment: true,
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
