import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, useTestApp, withoutId } from '../../../test/test-app.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

const inAYear = () => new Date(Date.now() + 365 * 86_400_000).toISOString()

onEachDatabase('personal access tokens', (database) => {
  test('a personal token acts as its user, with their role as it is now, until deleted, expired or the user is gone', async (t) => {
    const pennon = await useTestApp(t, database)
    const id = await createUser(pennon, 'ed@example.com', 2)
    const cookie = await signIn(pennon, 'ed@example.com')
    const expiresAt = inAYear()
    const created = await call(pennon, 'POST', '/api/admin/user/tokens', { description: 'ci', expiresAt }, asBrowser(cookie))
    assert.equal(created.status, 201)
    const { secret, createdAt, id: tokenId } = created.body
    assert.match(secret, /^user:[0-9a-f]{64}$/)
    assert.deepEqual(created.body, { id: tokenId, description: 'ci', expiresAt, createdAt, seenAt: null, userId: id, secret })
    const listed = await call(pennon, 'GET', '/api/admin/user/tokens', undefined, asBrowser(cookie))
    assert.deepEqual(listed.body, { pats: [{ id: tokenId, description: 'ci', expiresAt, createdAt, seenAt: null, userId: id }] })

    const me = await call(pennon, 'GET', '/api/admin/me', undefined, { token: `Bearer ${secret}` })
    assert.deepEqual(
      [me.status, me.body.kind, me.body.name, me.body.id, me.body.session, me.body.rootRole],
      [200, 'user', 'ed@example.com', id, undefined, 'Editor'],
    )
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'by-token' }, { token: secret })).status, 201)
    const event = (await allEvents(pennon)).find((e) => e.type === 'feature-created')
    assert.deepEqual([event.createdBy, event.createdByUserId], ['ed@example.com', id])

    // A new role applies to the token at once (the remembered principal is dropped with the change).
    assert.equal((await call(pennon, 'PUT', `/api/admin/user-admin/${id}`, { rootRole: 3 })).status, 200)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'refused' }, { token: secret })).status, 403)

    assert.equal((await call(pennon, 'DELETE', `/api/admin/user/tokens/${tokenId}`, undefined, { token: secret })).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, { token: secret })).status, 401)
    const types = (await allEvents(pennon)).filter((e) => e.type.startsWith('pat-')).map((e) => [e.type, e.createdBy, e.data])
    assert.deepEqual(types, [
      ['pat-created', 'ed@example.com', { id: tokenId, description: 'ci', expiresAt, userId: id }],
      ['pat-deleted', 'ed@example.com', { id: tokenId, description: 'ci', expiresAt, userId: id }],
    ])
    assert.ok(!JSON.stringify(await allEvents(pennon)).includes(secret.slice(5)), 'no event holds the secret')

    const again = await call(
      pennon,
      'POST',
      '/api/admin/user/tokens',
      { description: 'again', expiresAt },
      { token: null, headers: { cookie: await signIn(pennon, 'ed@example.com'), origin: 'http://localhost' } },
    )
    assert.equal(again.status, 201)
    assert.equal((await call(pennon, 'DELETE', `/api/admin/user-admin/${id}`)).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, { token: again.body.secret })).status, 401, 'gone with its user')
  })

  test('rules: an expiry in the future, descriptions unique per user, ten at most, and only people have them', async (t) => {
    const pennon = await useTestApp(t, database)
    await createUser(pennon, 'ed@example.com', 3)
    const cookie = await signIn(pennon, 'ed@example.com')
    const past = await call(
      pennon,
      'POST',
      '/api/admin/user/tokens',
      { description: 'old', expiresAt: '2020-01-01T00:00:00.000Z' },
      asBrowser(cookie),
    )
    assert.equal(past.status, 400)
    assert.deepEqual(
      withoutId(past.body),
      errorOf('ValidationError', 'The `/body/expiresAt` property must be in the future. You sent "2020-01-01T00:00:00.000Z".', {
        details: [
          {
            path: '/body/expiresAt',
            message: 'The `/body/expiresAt` property must be in the future. You sent "2020-01-01T00:00:00.000Z".',
          },
        ],
      }),
    )
    assert.equal(
      (await call(pennon, 'POST', '/api/admin/user/tokens', { description: 'x', expiresAt: 'tomorrow' }, asBrowser(cookie))).status,
      400,
    )
    for (let i = 0; i < 10; i++)
      assert.equal(
        (await call(pennon, 'POST', '/api/admin/user/tokens', { description: `t${i}`, expiresAt: inAYear() }, asBrowser(cookie))).status,
        201,
      )
    const duplicate = await call(pennon, 'POST', '/api/admin/user/tokens', { description: 't1', expiresAt: inAYear() }, asBrowser(cookie))
    assert.equal(duplicate.status, 409)
    const eleventh = await call(pennon, 'POST', '/api/admin/user/tokens', { description: 't10', expiresAt: inAYear() }, asBrowser(cookie))
    assert.equal(eleventh.status, 409)
    assert.deepEqual(
      withoutId(eleventh.body),
      errorOf('InvalidOperationError', 'Too many personal access tokens (10) already exist for this user: delete one first.'),
    )
    const byToken = await call(pennon, 'GET', '/api/admin/user/tokens')
    assert.equal(byToken.status, 404)
    assert.deepEqual(
      withoutId(byToken.body),
      errorOf('NotFoundError', 'This is for signed-in users and their personal access tokens: the credential used is not a person.'),
    )
    assert.equal((await call(pennon, 'DELETE', '/api/admin/user/tokens/99999', undefined, asBrowser(cookie))).status, 404)
  })

  test('a personal token lasts at most PAT_MAX_LIFETIME_DAYS (365 by default), and cannot make another personal token', async (t) => {
    const pennon = await useTestApp(t, database)
    await createUser(pennon, 'ed@example.com', 2)
    const cookie = await signIn(pennon, 'ed@example.com')
    const forEver = await call(
      pennon,
      'POST',
      '/api/admin/user/tokens',
      { description: 'for ever', expiresAt: '9999-12-31T23:59:59.000Z' },
      asBrowser(cookie),
    )
    assert.equal(forEver.status, 400)
    const { message } = withoutId(forEver.body) as { message: string }
    assert.match(
      message,
      /^The `\/body\/expiresAt` property must be at most 365 days from now \(before \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)\. You sent "9999-12-31T23:59:59\.000Z"\.$/,
    )
    assert.deepEqual(withoutId(forEver.body), errorOf('ValidationError', message, { details: [{ path: '/body/expiresAt', message }] }))
    const justInside = new Date(Date.now() + 364 * 86_400_000).toISOString()
    const made = await call(pennon, 'POST', '/api/admin/user/tokens', { description: 'ci', expiresAt: justInside }, asBrowser(cookie))
    assert.equal(made.status, 201)

    const byToken = await call(
      pennon,
      'POST',
      '/api/admin/user/tokens',
      { description: 'minted by a token', expiresAt: justInside },
      { token: made.body.secret },
    )
    assert.equal(byToken.status, 403)
    assert.deepEqual(
      withoutId(byToken.body),
      errorOf(
        'NoAccessError',
        'Personal access tokens are made by a signed-in person (a session): a personal access token cannot make another.',
        { permissions: [] },
      ),
    )
    assert.deepEqual(
      (await call(pennon, 'GET', '/api/admin/user/tokens', undefined, asBrowser(cookie))).body.pats.map(
        (pat: { description: string }) => pat.description,
      ),
      ['ci'],
    )

    const shorter = await useTestApp(t, database, { env: { PAT_MAX_LIFETIME_DAYS: '30' } })
    await createUser(shorter, 'ed@example.com', 2)
    const tooLong = await call(
      shorter,
      'POST',
      '/api/admin/user/tokens',
      { description: 'x', expiresAt: new Date(Date.now() + 31 * 86_400_000).toISOString() },
      asBrowser(await signIn(shorter, 'ed@example.com')),
    )
    assert.equal(tooLong.status, 400)
    assert.match(tooLong.body.message, /at most 30 days from now/)
  })
})
