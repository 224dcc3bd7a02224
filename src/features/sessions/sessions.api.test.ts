import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import {
  allEvents,
  call,
  errorOf,
  eventually,
  onEachDatabase,
  sql,
  useTestApp,
  useTwoInstances,
  withoutId,
  type TestApp,
  type TestDatabase,
} from '../../../test/test-app.ts'
import { asBrowser, createUser, PASSWORD, signIn } from '../../../test/people.ts'
import { EDITOR_PERMISSIONS } from '../../http/permissions.ts'
import { CHANGE_POLL_MS } from '../../db/pg-change-watch.ts'

const CROSS_SITE = errorOf(
  'NoAccessError',
  "Cross-site request refused: a request signed in with a session cookie that changes something must come from Pennon's own pages.",
)
const NO_CREDENTIAL = errorOf('AuthenticationRequired', 'Authentication required: send an API token in the Authorization header.')

onEachDatabase('sessions', (database) => {
  test('signing in sets an HttpOnly SameSite=Lax cookie; the session acts as the user, and its events name them', async (t) => {
    const pennon = await useTestApp(t, database)
    const id = await createUser(pennon, 'Editor@Example.com', 2, { username: 'ed' })
    const login = await call(pennon, 'POST', '/auth/simple/login', { username: 'EDITOR@example.COM', password: PASSWORD }, { token: null })
    assert.equal(login.status, 200)
    assert.equal(login.body.email, 'editor@example.com')
    assert.equal(typeof login.body.seenAt, 'string')
    assert.match(String(login.headers['set-cookie']), /^pennon-session=[0-9a-f]{64}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/)
    // By username too; over HTTPS (as a trusted proxy says) the cookie is Secure.
    const secure = await useTestApp(t, database, { env: { TRUST_PROXY: 'true' } })
    await createUser(secure, 'x@example.com', 3, { username: 'x' })
    const overHttps = await call(
      secure,
      'POST',
      '/auth/simple/login',
      { username: 'x', password: PASSWORD },
      { token: null, headers: { 'x-forwarded-proto': 'https' } },
    )
    assert.match(String(overHttps.headers['set-cookie']), /; Secure; SameSite=Lax$/)

    const cookie = String(login.headers['set-cookie']).split(';')[0]!
    const me = await call(pennon, 'GET', '/api/admin/me', undefined, { token: null, headers: { cookie } })
    assert.equal(me.status, 200)
    assert.deepEqual(
      { ...me.body, permissions: [...me.body.permissions].sort() },
      { kind: 'user', name: 'editor@example.com', id, session: true, rootRole: 'Editor', permissions: [...EDITOR_PERMISSIONS].sort() },
    )
    const flag = await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'by-a-person' }, asBrowser(cookie))
    assert.equal(flag.status, 201)
    const created = (await allEvents(pennon)).find((event) => event.type === 'feature-created')
    assert.deepEqual([created.createdBy, created.createdByUserId], ['editor@example.com', id])
  })

  test('a state-changing request with the cookie from another site is refused; reads and same-origin writes are not', async (t) => {
    const pennon = await useTestApp(t, database)
    await createUser(pennon, 'ed@example.com', 2)
    const cookie = await signIn(pennon, 'ed@example.com')
    for (const headers of [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ] as Record<string, string>[]) {
      const refused = await call(
        pennon,
        'POST',
        '/api/admin/projects/default/features',
        { name: 'forged' },
        { token: null, headers: { cookie, ...headers } },
      )
      assert.equal(refused.status, 403, JSON.stringify(headers))
      assert.deepEqual(withoutId(refused.body), CROSS_SITE)
    }
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/default/features/forged', undefined, asBrowser(cookie))).status, 404)
    assert.equal(
      (await call(pennon, 'GET', '/api/admin/projects', undefined, { token: null, headers: { cookie, origin: 'http://evil.example' } }))
        .status,
      200,
      'a read is no harm',
    )
    for (const headers of [{ origin: 'http://localhost' }, { 'sec-fetch-site': 'same-origin' }, {}] as Record<string, string>[]) {
      const name = `ok-${Object.keys(headers).length}-${Object.values(headers).join('').length}`
      assert.equal(
        (await call(pennon, 'POST', '/api/admin/projects/default/features', { name }, { token: null, headers: { cookie, ...headers } }))
          .status,
        201,
        JSON.stringify(headers),
      )
    }
    // Signing in from another site's page (login CSRF) is refused too.
    const forgedLogin = await call(
      pennon,
      'POST',
      '/auth/simple/login',
      { username: 'ed@example.com', password: PASSWORD },
      { token: null, headers: { origin: 'http://evil.example' } },
    )
    assert.equal(forgedLogin.status, 403)
    assert.equal(forgedLogin.headers['set-cookie'], undefined)
  })

  test('signing out ends the session; a role change, a new password or a deletion ends every session of the user', async (t) => {
    const pennon = await useTestApp(t, database)
    const id = await createUser(pennon, 'ed@example.com', 2)
    const first = await signIn(pennon, 'ed@example.com')
    const second = await signIn(pennon, 'ed@example.com')
    const out = await call(pennon, 'POST', '/logout', undefined, asBrowser(first))
    assert.equal(out.status, 200)
    assert.equal(out.headers['set-cookie'], 'pennon-session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax')
    const gone = await call(pennon, 'GET', '/api/admin/me', undefined, { token: null, headers: { cookie: first } })
    assert.equal(gone.status, 401)
    assert.deepEqual(withoutId(gone.body), NO_CREDENTIAL)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(second))).status, 200)

    assert.equal((await call(pennon, 'PUT', `/api/admin/user-admin/${id}`, { rootRole: 3 })).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(second))).status, 401, 'a new role: sign in again')
    const third = await signIn(pennon, 'ed@example.com')
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(third))).body.rootRole, 'Viewer')

    // Changing one's own password needs the old one, and keeps only the session it was made in.
    const other = await signIn(pennon, 'ed@example.com')
    const noOld = await call(
      pennon,
      'POST',
      '/api/admin/user/change-password',
      { password: 'New-Passw0rd-2026', confirmPassword: 'New-Passw0rd-2026' },
      asBrowser(third),
    )
    assert.equal(noOld.status, 400)
    const wrongOld = await call(
      pennon,
      'POST',
      '/api/admin/user/change-password',
      { password: 'New-Passw0rd-2026', oldPassword: 'Wrong-Passw0rd-1' },
      asBrowser(third),
    )
    assert.equal(wrongOld.status, 401)
    assert.deepEqual(withoutId(wrongOld.body), errorOf('PasswordMismatch', 'Wrong password, try again.'))
    assert.equal(
      (
        await call(
          pennon,
          'POST',
          '/api/admin/user/change-password',
          { password: 'New-Passw0rd-2026', confirmPassword: 'New-Passw0rd-2026', oldPassword: PASSWORD },
          asBrowser(third),
        )
      ).status,
      200,
    )
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(third))).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(other))).status, 401)
    assert.equal(
      (await call(pennon, 'POST', '/auth/simple/login', { username: 'ed@example.com', password: PASSWORD }, { token: null })).status,
      401,
    )
    await signIn(pennon, 'ed@example.com', 'New-Passw0rd-2026')

    assert.equal((await call(pennon, 'DELETE', `/api/admin/user-admin/${id}`)).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(third))).status, 401)
  })

  for (const told of [true, false])
    test(
      told
        ? 'a session remembered by another instance ends there too: sign-out, role change, new password, deletion, and by hand'
        : 'a session ended by an instance that dies after each commit, before telling the others, ends on them within a poll',
      async (t) => {
        await sessionsEndOnAnotherInstance(t, database, told)
      },
    )

  test('sessions end after SESSION_IDLE_MINUTES without a request, and SESSION_MAX_AGE_HOURS after sign-in', async (t) => {
    const pennon = await useTestApp(t, database, { env: { SESSION_IDLE_MINUTES: '30', SESSION_MAX_AGE_HOURS: '2' } })
    await createUser(pennon, 'ed@example.com', 2)
    const idle = await signIn(pennon, 'ed@example.com')
    const old = await signIn(pennon, 'ed@example.com')
    const { db } = pennon.database
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()
    const [idleRow, oldRow] = await db
      .selectFrom('user_sessions')
      .select(['secret_hash', 'expires_at'])
      .orderBy('created_at')
      .orderBy('secret_hash')
      .execute()
    assert.ok(idleRow && oldRow)
    // 29 minutes idle: still on (and the request moves the clock); 31: over.
    await sql`update user_sessions set seen_at = ${ago(29)}`.execute(db)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(idle))).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(old))).status, 200)
    await sql`update user_sessions set seen_at = ${ago(31)}`.execute(db)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(idle))).status, 401)
    // Active, but past its absolute end.
    await sql`update user_sessions set seen_at = ${ago(0)}, expires_at = ${ago(1)}`.execute(db)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(old))).status, 401)
  })

  test('failed sign-ins slow down the address that failed, not the real user elsewhere; a wrong name looks like a wrong password', async (t) => {
    const pennon = await useTestApp(t, database, { env: { TRUST_PROXY: 'true', LOGIN_FAILURES_PER_ACCOUNT: '3' } })
    const id = await createUser(pennon, 'ed@example.com', 2)
    const from = (address: string) => ({ token: null, headers: { 'x-forwarded-for': address } })
    for (const username of ['ed@example.com', 'nobody@example.com']) {
      const wrong = await call(pennon, 'POST', '/auth/simple/login', { username, password: 'Wrong-Passw0rd-1' }, from('10.0.0.1'))
      assert.equal(wrong.status, 401)
      assert.deepEqual(withoutId(wrong.body), errorOf('PasswordMismatch', 'Wrong password, try again.'))
    }
    for (let i = 0; i < 2; i++)
      assert.equal(
        (
          await call(
            pennon,
            'POST',
            '/auth/simple/login',
            { username: 'ed@example.com', password: `Wrong-Passw0rd-${i}` },
            from('10.0.0.1'),
          )
        ).status,
        401,
      )
    const throttled = await call(pennon, 'POST', '/auth/simple/login', { username: 'ed@example.com', password: PASSWORD }, from('10.0.0.1'))
    assert.equal(throttled.status, 429)
    assert.match(String(throttled.headers['retry-after']), /^[0-9]+$/)
    assert.ok(Number(throttled.headers['retry-after']) > 800 && Number(throttled.headers['retry-after']) <= 900)
    assert.equal((await call(pennon, 'GET', `/api/admin/user-admin/${id}`)).body.loginAttempts, 3)
    assert.equal(
      (await call(pennon, 'POST', '/auth/simple/login', { username: 'ed@example.com', password: PASSWORD }, from('10.0.0.2'))).status,
      200,
      'the real user, elsewhere',
    )
    assert.equal((await call(pennon, 'GET', `/api/admin/user-admin/${id}`)).body.loginAttempts, 0, 'a sign-in clears the count')
  })

  test('a flood of sign-ins from many addresses: two hashes at a time, 32 waiting, the rest refused with 429 at once', async (t) => {
    const pennon = await useTestApp(t, database, { env: { TRUST_PROXY: 'true' } })
    await createUser(pennon, 'ed@example.com', 2)
    const attempts = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(
          pennon,
          'POST',
          '/auth/simple/login',
          { username: 'ed@example.com', password: `Wrong-Passw0rd-${i}` },
          { token: null, headers: { 'x-forwarded-for': `10.1.0.${i}` } },
        ),
      ),
    )
    const refused = attempts.filter((attempt) => attempt.status === 429)
    assert.deepEqual([...new Set(attempts.map((attempt) => attempt.status))].sort(), [401, 429])
    assert.ok(refused.length >= 50 - 2 - 32, `${refused.length} refused`)
    assert.deepEqual(
      withoutId(refused[0]!.body),
      errorOf('TooManyRequestsError', 'Too many sign-ins and password changes at once: try again in a second.'),
    )
    assert.equal(refused[0]!.headers['retry-after'], '1')
    await signIn(pennon, 'ed@example.com')
  })

  test('invite and reset links: who they are for, a password set once, then the link is used up', async (t) => {
    const pennon = await useTestApp(t, database)
    const invited = await call(
      pennon,
      'POST',
      '/api/admin/user-admin',
      { email: 'new@example.com', name: 'New', rootRole: 3 },
      { headers: { host: 'flags.example.com' } },
    )
    assert.equal(invited.status, 201)
    const link = invited.body.inviteLink as string
    assert.match(link, /^http:\/\/flags\.example\.com\/#\/reset-password\?token=[0-9a-f]{64}$/)
    const token = link.split('token=')[1]!
    assert.equal(
      (await call(pennon, 'POST', '/auth/simple/login', { username: 'new@example.com', password: PASSWORD }, { token: null })).status,
      401,
      'no password yet',
    )
    const who = await call(pennon, 'GET', `/auth/reset/validate?token=${token}`, undefined, { token: null })
    assert.equal(who.status, 200)
    assert.deepEqual(who.body, {
      id: invited.body.id,
      name: 'New',
      email: 'new@example.com',
      username: null,
      token,
      createdBy: 'admin',
      role: { id: 3, type: 'root', name: 'Viewer' },
    })
    const weak = await call(pennon, 'POST', '/auth/reset/password', { token, password: 'password' }, { token: null })
    assert.equal(weak.status, 400)
    assert.equal(weak.body.name, 'OwaspValidationError')
    // Sent twice at once: the link sets the password once.
    const twice = await Promise.all(
      [PASSWORD, 'Other-Passw0rd-1'].map((password) => call(pennon, 'POST', '/auth/reset/password', { token, password }, { token: null })),
    )
    assert.deepEqual(twice.map((response) => response.status).sort(), [200, 401])
    const winner = twice[0]!.status === 200 ? PASSWORD : 'Other-Passw0rd-1'
    await signIn(pennon, 'new@example.com', winner)
    const used = await call(pennon, 'POST', '/auth/reset/password', { token, password: 'Other-Passw0rd-1' }, { token: null })
    assert.equal(used.status, 401)
    assert.deepEqual(
      withoutId(used.body),
      errorOf('AuthenticationRequired', 'This link is unknown, used or expired: ask an admin for a new one.'),
    )

    const reset = await call(
      pennon,
      'POST',
      '/api/admin/user-admin/reset-password',
      { id: String(invited.body.id) },
      { headers: { host: 'flags.example.com' } },
    )
    assert.equal(reset.status, 200)
    assert.match(reset.body.resetPasswordUrl, /^http:\/\/flags\.example\.com\/#\/reset-password\?token=[0-9a-f]{64}$/)
    assert.equal((await call(pennon, 'GET', '/auth/reset/validate?token=0000', undefined, { token: null })).status, 401)
    assert.equal((await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id: '999' })).status, 404)
  })

  test('POST /auth/reset/validate answers what GET does, the token in the body rather than the URL', async (t) => {
    const pennon = await useTestApp(t, database)
    const invited = await call(pennon, 'POST', '/api/admin/user-admin', { username: 'newbie', rootRole: 2 })
    assert.equal(invited.status, 201)
    const token = (invited.body.inviteLink as string).split('token=')[1]!
    const posted = await call(pennon, 'POST', '/auth/reset/validate', { token }, { token: null })
    assert.equal(posted.status, 200)
    assert.deepEqual(posted.body, {
      id: invited.body.id,
      name: null,
      email: null,
      username: 'newbie',
      token,
      createdBy: 'admin',
      role: { id: 2, type: 'root', name: 'Editor' },
    })
    const got = await call(pennon, 'GET', `/auth/reset/validate?token=${token}`, undefined, { token: null })
    assert.equal(got.status, 200)
    assert.deepEqual(got.body, posted.body)

    // Unknown and used links: the same 401 either way.
    const unknownLink = errorOf('AuthenticationRequired', 'This link is unknown, used or expired: ask an admin for a new one.')
    const bothRefuse = async (secret: string) => {
      for (const answer of [
        await call(pennon, 'POST', '/auth/reset/validate', { token: secret }, { token: null }),
        await call(pennon, 'GET', `/auth/reset/validate?token=${secret}`, undefined, { token: null }),
      ]) {
        assert.equal(answer.status, 401)
        assert.deepEqual(withoutId(answer.body), unknownLink)
      }
    }
    await bothRefuse('0000')
    await bothRefuse('f'.repeat(64))
    assert.equal((await call(pennon, 'POST', '/auth/reset/password', { token, password: PASSWORD }, { token: null })).status, 200)
    await bothRefuse(token)

    // A body route: JSON only, and the schema's rules.
    const asText = await call(pennon, 'POST', '/auth/reset/validate', undefined, {
      token: null,
      raw: `token=${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    assert.equal(asText.status, 415)
    assert.deepEqual(
      withoutId(asText.body),
      errorOf(
        'ContentTypeerror',
        'The content type "application/x-www-form-urlencoded" is not accepted. Accepted content types: application/json.',
      ),
    )
    const invalid = (path: string, message: string) => errorOf('ValidationError', message, { details: [{ message, path }] })
    const extra = await call(pennon, 'POST', '/auth/reset/validate', { token, password: PASSWORD }, { token: null })
    assert.equal(extra.status, 400)
    assert.deepEqual(
      withoutId(extra.body),
      invalid('/body/password', 'The `/body` object does not allow the property `/body/password`. Remove it.'),
    )
    const missing = await call(pennon, 'POST', '/auth/reset/validate', {}, { token: null })
    assert.equal(missing.status, 400)
    assert.deepEqual(
      withoutId(missing.body),
      invalid('/body/token', 'The `/body/token` property is required. It was not present on the data you sent.'),
    )
  })
})

/**
 * Sessions used on the second instance, ended on the first. `told`: the first notifies the second after
 * its commits; otherwise it never does (as if it died after each commit), and the second sees each
 * change in its poll of the newest committed change, within CHANGE_POLL_MS.
 */
async function sessionsEndOnAnotherInstance(t: TestContext, database: TestDatabase, told: boolean): Promise<void> {
  const { first, second } = await useTwoInstances(t, database, undefined, told ? undefined : { notifyOthers: false })
  const id = await createUser(first, 'ed@example.com', 2)
  const me = (pennon: TestApp, cookie: string) => call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(cookie))
  const endsOnSecond = async (cookie: string, what: string) => {
    await eventually(async () => (await me(second, cookie)).status === 401, what, told ? 5_000 : 3 * CHANGE_POLL_MS)
    const refused = await me(second, cookie)
    assert.equal(refused.status, 401, `${what}, and stays ended`)
    assert.deepEqual(withoutId(refused.body), NO_CREDENTIAL)
  }
  // Each session is used on the second instance (twice: the second answer is the remembered one) before it ends on the first.
  const used = async (cookie: string) => {
    for (let i = 0; i < 2; i++) assert.equal((await me(second, cookie)).status, 200)
    return cookie
  }

  const signedOut = await used(await signIn(first, 'ed@example.com'))
  const kept = await used(await signIn(first, 'ed@example.com'))
  assert.equal((await call(first, 'POST', '/logout', undefined, asBrowser(signedOut))).status, 200)
  await endsOnSecond(signedOut, 'signed out on the first instance')
  assert.equal((await me(second, kept)).status, 200, "the same user's other session goes on")

  assert.equal((await call(first, 'PUT', `/api/admin/user-admin/${id}`, { rootRole: 3 })).status, 200)
  await endsOnSecond(kept, 'a new role given on the first instance')

  const beforePassword = await used(await signIn(first, 'ed@example.com'))
  assert.equal((await call(first, 'POST', `/api/admin/user-admin/${id}/change-password`, { password: 'New-Passw0rd-2026' })).status, 200)
  await endsOnSecond(beforePassword, 'a new password set on the first instance')

  // An operator ends a session in the database by hand: its absolute end moved to the past.
  const byHand = await used(await signIn(first, 'ed@example.com', 'New-Passw0rd-2026'))
  await sql`update user_sessions set expires_at = ${new Date(Date.now() - 60_000).toISOString()}`.execute(first.database.db)
  await endsOnSecond(byHand, 'ended by hand')

  const beforeDeletion = await used(await signIn(first, 'ed@example.com', 'New-Passw0rd-2026'))
  assert.equal((await call(first, 'DELETE', `/api/admin/user-admin/${id}`)).status, 200)
  await endsOnSecond(beforeDeletion, 'the user deleted on the first instance')
}
