/**
 * Signing in with OpenID Connect against a real provider (test/oidc-issuer.ts), over HTTP with
 * cookies: the way in, the callback URL, every way it must fail (with the error page and a 400),
 * and signing out.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createOidcBrowser } from '../../../test/oidc-browser.ts'
import { startIssuer } from '../../../test/oidc-issuer.ts'
import { MAX_PENDING_SIGN_INS } from './oidc-sign-in.ts'
import { createUser, PASSWORD } from '../../../test/people.ts'
import { assertRefused, CLIENTS, PENNON, pennonWith, sessionCookieOf, ssoSettings, useIssuers } from '../../../test/single-sign-on.ts'
import { allEvents, call, onEachDatabase, useTestApp, useTwoInstances } from '../../../test/test-app.ts'

const issuers = useIssuers()
const settingsOf = (extra: Record<string, unknown> = {}) => ssoSettings(issuers.issuer, extra)

onEachDatabase('single sign-on: signing in with OpenID Connect', (database) => {
  test('a person with a user signs in at the provider and gets the session cookie of a password sign-in', async (t) => {
    const pennon = await pennonWith(t, database, settingsOf())
    const id = await createUser(pennon, 'ann@example.com', 2)
    const browser = createOidcBrowser(pennon, PENNON)

    const authorization = new URL(await browser.begin())
    assert.equal(authorization.origin, issuers.issuer.url)
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

  test('a sign-in begun on one instance finishes on another (the state is in the database), once', async (t) => {
    const { first, second } = await useTwoInstances(t, database, { PUBLIC_URL: PENNON })
    assert.equal((await call(first, 'POST', '/api/admin/auth/oidc/settings', settingsOf())).status, 200)
    await createUser(first, 'una@example.com', 3)
    const begun = createOidcBrowser(first, PENNON)
    const callbackUrl = await begun.atTheProvider(await begun.begin(), 'una@example.com')
    const cookie = `pennon-oidc-state=${begun.atPennon.cookies.get('pennon-oidc-state')}`
    const answer = await createOidcBrowser(second, PENNON).callback(callbackUrl, { cookie })
    assert.equal(answer.status, 302, answer.text)
    const session = sessionCookieOf(answer)
    assert.equal((await call(first, 'GET', '/api/admin/user', undefined, { token: null, headers: { cookie: session } })).status, 200)
    assertRefused(await begun.callback(callbackUrl, { cookie }), /This sign-in is over/)
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

  test('a replayed, forged or foreign state, a denied consent and a disabled sign-in end on the error page with 400', async (t) => {
    const pennon = await pennonWith(t, database, settingsOf())
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

    // Back after its 10 minutes (the row's end moved into the past): over, and taken all the same.
    const slow = createOidcBrowser(pennon, PENNON)
    const slowAnswer = await slow.atTheProvider(await slow.begin(), 'fay@example.com')
    const past = new Date(Date.now() - 1000).toISOString()
    await pennon.database.db.updateTable('oidc_logins').set({ expires_at: past }).execute()
    assertRefused(await slow.callback(slowAnswer), /This sign-in is over \(used already, or expired\)/)
    assert.deepEqual(await pennon.database.db.selectFrom('oidc_logins').select('state_hash').execute(), [])

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
    const pennon = await pennonWith(t, database, settingsOf())
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
    const atOther = new URL(`${issuers.other.url}${asked.pathname}${asked.search}`)
    const otherAnswer = await elsewhere.atTheProvider(atOther.href, 'gil@example.com')
    assert.equal(new URL(otherAnswer).searchParams.get('iss'), issuers.other.url)
    assertRefused(await elsewhere.callback(otherAnswer), /The sign-in provider&#39;s answer was refused: .*&quot;iss&quot;/)

    // A discovery document that names another issuer than the one asked for (localhost for 127.0.0.1).
    const unknown = await pennonWith(t, database, settingsOf({ discoverUrl: issuers.issuer.url.replace('127.0.0.1', 'localhost') }))
    assertRefused(
      await createOidcBrowser(unknown, PENNON).pennonGet('/auth/oidc/login'),
      /The sign-in provider could not be used: .*issuer/,
    )
  })

  test('sign-out ends the session at once; with single sign-out the browser goes to the provider next', async (t) => {
    const pennon = await pennonWith(t, database, settingsOf())
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
    assert.equal(`${endSession.origin}${endSession.pathname}`, `${issuers.issuer.url}/session/end`)
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
    const pennon = await pennonWith(t, database, settingsOf())
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

  test('an authorization code brought back after it expired is refused, and the sign-in is over', async (t) => {
    // A provider whose codes last 1 s (oidc-provider's ttl.AuthorizationCode).
    const quick = await startIssuer(CLIENTS, { authorizationCodeSeconds: 1 })
    t.after(() => quick.stop())
    const pennon = await pennonWith(t, database, ssoSettings(quick))
    await createUser(pennon, 'max@example.com', 3)
    const browser = createOidcBrowser(pennon, PENNON)
    const callbackUrl = await browser.atTheProvider(await browser.begin(), 'max@example.com')
    const stateCookie = `pennon-oidc-state=${browser.atPennon.cookies.get('pennon-oidc-state')}`
    // Past the code's second (the provider counts whole seconds).
    await sleep(2100)
    assertRefused(
      await browser.callback(callbackUrl),
      /The sign-in provider&#39;s answer was refused: invalid_grant \(grant request is invalid\)/,
    )
    // The state served: the same answer again is over, not tried at the provider a second time.
    assert.deepEqual(await pennon.database.db.selectFrom('oidc_logins').select('state_hash').execute(), [])
    assertRefused(await browser.callback(callbackUrl, { cookie: stateCookie }), /This sign-in is over \(used already, or expired\)/)
    // A fresh sign-in at the same provider, in time, works.
    assert.equal((await createOidcBrowser(pennon, PENNON).signIn('max@example.com')).status, 302)
  })

  test('an ID token already expired when it arrives is refused', async (t) => {
    // oidc-provider dates an ID token's exp from its own clock (iat + ttl.IdToken, a positive
    // number of seconds; a claim cannot override it). A provider whose clock is two hours behind
    // issues ID tokens that expired an hour ago (its default ttl.IdToken is one hour), far past
    // the 30 s of clock tolerance openid-client grants by default.
    const late = await startIssuer(CLIENTS, { clockBehindSeconds: 7200 })
    t.after(() => late.stop())
    const pennon = await pennonWith(t, database, ssoSettings(late))
    await createUser(pennon, 'ned@example.com', 3)
    assertRefused(
      await createOidcBrowser(pennon, PENNON).signIn('ned@example.com'),
      /The sign-in provider&#39;s answer was refused: JWT timestamp claim value failed validation \(unexpected JWT &quot;exp&quot; \(expiration time\) claim value, expiration is past current timestamp\)<\/p>/,
    )
    assert.deepEqual(await pennon.database.db.selectFrom('user_sessions').select('user_id').execute(), [])
  })

  test('sign-ins under way are bounded: past the limit, the way in is refused until some end', async (t) => {
    const pennon = await pennonWith(t, database, settingsOf())
    const later = new Date(Date.now() + 600_000).toISOString()
    const rows = Array.from({ length: MAX_PENDING_SIGN_INS - 1 }, (_, i) => ({
      state_hash: `pending-${i}`,
      nonce: 'n',
      code_verifier: 'v',
      redirect_uri: `${PENNON}/auth/oidc/callback`,
      expires_at: later,
    }))
    for (let start = 0; start < rows.length; start += 1000) {
      await pennon.database.db
        .insertInto('oidc_logins')
        .values(rows.slice(start, start + 1000))
        .execute()
    }
    // The last place is taken, then the way in is closed.
    await createOidcBrowser(pennon, PENNON).begin()
    assertRefused(
      await createOidcBrowser(pennon, PENNON).pennonGet('/auth/oidc/login'),
      /Too many sign-ins are under way: try again in a few minutes\./,
    )
    await pennon.database.db.deleteFrom('oidc_logins').where('state_hash', '=', 'pending-0').execute()
    await createOidcBrowser(pennon, PENNON).begin()
  })
})
