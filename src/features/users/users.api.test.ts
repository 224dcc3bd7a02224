import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, useTestApp, withoutId } from '../../../test/test-app.ts'
import { asBrowser, createUser, PASSWORD, signIn } from '../../../test/people.ts'

const user = (fields: Record<string, unknown>) => ({
  name: null,
  username: null,
  email: null,
  loginAttempts: 0,
  seenAt: null,
  accountType: 'User',
  ...fields,
})

onEachDatabase('users', (database) => {
  test('admins create, list, search, read, update and delete users; each change is an event', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await call(pennon, 'POST', '/api/admin/user-admin', {
      email: 'Ada@Example.com',
      name: 'Ada',
      rootRole: 'Editor',
      password: PASSWORD,
    })
    assert.equal(created.status, 201)
    const { id, createdAt } = created.body
    assert.deepEqual(created.body, { ...user({ id, name: 'Ada', email: 'ada@example.com', rootRole: 2, createdAt }), emailSent: false })
    const bob = await createUser(pennon, 'bob@example.com', 3, { username: 'bob' })

    const list = await call(pennon, 'GET', '/api/admin/user-admin')
    assert.equal(list.status, 200)
    assert.deepEqual(
      list.body.users.map((u: any) => [u.id, u.email, u.username, u.rootRole]),
      [
        [id, 'ada@example.com', null, 2],
        [bob, 'bob@example.com', 'bob', 3],
      ],
    )
    assert.deepEqual(
      list.body.rootRoles.map((r: any) => [r.id, r.type, r.name]),
      [
        [1, 'root', 'Admin'],
        [2, 'root', 'Editor'],
        [3, 'root', 'Viewer'],
      ],
    )
    assert.deepEqual(
      (await call(pennon, 'GET', '/api/admin/user-admin/search?q=BO')).body.map((u: any) => u.id),
      [bob],
    )
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/user-admin/search?q=%25')).body, [], 'a % is a character, not a wildcard')
    assert.deepEqual(
      (await call(pennon, 'GET', `/api/admin/user-admin/${id}`)).body,
      user({ id, name: 'Ada', email: 'ada@example.com', rootRole: 2, createdAt }),
    )

    const updated = await call(pennon, 'PUT', `/api/admin/user-admin/${id}`, { name: 'Ada L.', rootRole: 1 })
    assert.equal(updated.status, 200)
    assert.deepEqual(updated.body, user({ id, name: 'Ada L.', email: 'ada@example.com', rootRole: 1, createdAt }))
    assert.equal((await call(pennon, 'DELETE', `/api/admin/user-admin/${bob}`)).status, 200)
    assert.equal((await call(pennon, 'GET', `/api/admin/user-admin/${bob}`)).status, 404)

    const events = (await allEvents(pennon)).filter((event) => event.type.startsWith('user-'))
    assert.deepEqual(
      events.map((event) => [event.type, event.createdBy, event.createdByUserId, event.data, event.preData]),
      [
        ['user-created', 'admin', -42, { id, name: 'Ada', username: null, email: 'ada@example.com', rootRole: 2 }, null],
        ['user-created', 'admin', -42, { id: bob, name: null, username: 'bob', email: 'bob@example.com', rootRole: 3 }, null],
        [
          'user-updated',
          'admin',
          -42,
          { id, name: 'Ada L.', username: null, email: 'ada@example.com', rootRole: 1 },
          { id, name: 'Ada', username: null, email: 'ada@example.com', rootRole: 2 },
        ],
        ['user-deleted', 'admin', -42, null, { id: bob, name: null, username: 'bob', email: 'bob@example.com', rootRole: 3 }],
      ],
    )
    assert.ok(!JSON.stringify(await allEvents(pennon)).includes('scrypt'), 'no event holds a password hash')
  })

  test("POST /user-admin/reset-password takes the user's email as the reference does, their username, or their id", async (t) => {
    const pennon = await useTestApp(t, database)
    const ada = await createUser(pennon, 'ada@example.com', 2)
    const bob = await createUser(pennon, 'bob@example.com', 3, { username: 'bob' })
    /** Who the link is for, as the link's own page asks. */
    async function linkFor(id: unknown): Promise<number> {
      const reset = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id })
      assert.equal(reset.status, 200, reset.text)
      assert.deepEqual(Object.keys(reset.body), ['resetPasswordUrl'])
      const token = (reset.body.resetPasswordUrl as string).split('token=')[1]!
      return (await call(pennon, 'GET', `/auth/reset/validate?token=${token}`, undefined, { token: null })).body.id
    }
    assert.equal(await linkFor('ada@example.com'), ada)
    assert.equal(await linkFor('Ada@Example.COM'), ada)
    assert.equal(await linkFor('bob'), bob)
    assert.equal(await linkFor(bob), bob)
    assert.equal(await linkFor(String(ada)), ada)

    const nobody = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id: 'nobody@example.com' })
    assert.equal(nobody.status, 404)
    assert.deepEqual(withoutId(nobody.body), errorOf('NotFoundError', 'No user has the email "nobody@example.com".'))
    const noName = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id: 'carol' })
    assert.deepEqual(withoutId(noName.body), errorOf('NotFoundError', 'No user has the username "carol".'))
    const noId = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id: '999' })
    assert.deepEqual(withoutId(noId.body), errorOf('NotFoundError', 'No user has id 999.'))
    const zero = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id: 0 })
    assert.equal(zero.status, 400)
    assert.equal(zero.body.details[0].path, '/body/id')
    const missing = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', {})
    assert.equal(missing.status, 400)
  })

  test('bad input gets a clear 400 or 409, never a stored user', async (t) => {
    const pennon = await useTestApp(t, database)
    const cases: Array<[unknown, number, Record<string, unknown>]> = [
      [
        { rootRole: 2 },
        400,
        errorOf('ValidationError', 'A user needs a username or an email: send at least one of them.', {
          details: [{ path: '/body', message: 'A user needs a username or an email: send at least one of them.' }],
        }),
      ],
      [
        { email: 'not-an-email', rootRole: 2 },
        400,
        errorOf('ValidationError', 'The `/body/email` property must be an email address. You sent "not-an-email".', {
          details: [{ path: '/body/email', message: 'The `/body/email` property must be an email address. You sent "not-an-email".' }],
        }),
      ],
      [
        { username: 'a@b', rootRole: 3 },
        400,
        errorOf(
          'ValidationError',
          'The `/body/username` property cannot contain "@": sign-in tells usernames from emails by it. You sent "a@b".',
          {
            details: [
              {
                path: '/body/username',
                message: 'The `/body/username` property cannot contain "@": sign-in tells usernames from emails by it. You sent "a@b".',
              },
            ],
          },
        ),
      ],
      [
        { email: 'a@example.com', rootRole: 'Owner' },
        400,
        errorOf(
          'ValidationError',
          'The `/body/rootRole` property must be a root role: 1 (Admin), 2 (Editor) or 3 (Viewer), by id or name. You sent "Owner".',
          {
            details: [
              {
                path: '/body/rootRole',
                message:
                  'The `/body/rootRole` property must be a root role: 1 (Admin), 2 (Editor) or 3 (Viewer), by id or name. You sent "Owner".',
              },
            ],
          },
        ),
      ],
      [
        { email: 'a@example.com', rootRole: 2, password: 'short' },
        400,
        {
          name: 'OwaspValidationError',
          message: 'The password must be at least 10 characters long.',
          details: [
            {
              message: 'The password must be at least 10 characters long.',
              validationErrors: [
                'The password must be at least 10 characters long.',
                'The password must contain at least one uppercase letter.',
                'The password must contain at least one number.',
                'The password must contain at least one special character.',
              ],
            },
          ],
        },
      ],
    ]
    for (const [body, status, expected] of cases) {
      const response = await call(pennon, 'POST', '/api/admin/user-admin', body)
      assert.equal(response.status, status, JSON.stringify(body))
      assert.deepEqual(withoutId(response.body), expected)
    }
    await createUser(pennon, 'a@example.com', 2)
    const twice = await call(pennon, 'POST', '/api/admin/user-admin', { email: 'A@EXAMPLE.COM', rootRole: 3 })
    // A 400, as the reference's BadDataError.
    assert.equal(twice.status, 400)
    assert.deepEqual(
      withoutId(twice.body),
      errorOf('ValidationError', 'A user with email "a@example.com" already exists.', {
        details: [{ path: '/body/email', message: 'A user with email "a@example.com" already exists.' }],
      }),
    )
    assert.equal((await call(pennon, 'GET', '/api/admin/user-admin')).body.users.length, 1)
    // Told apart by the constraint broken, on both databases: the username this time.
    const bee = await createUser(pennon, 'b@example.com', 3, { username: 'bee' })
    const sameUsername = await call(pennon, 'POST', '/api/admin/user-admin', { username: 'bee', email: 'c@example.com', rootRole: 3 })
    assert.equal(sameUsername.status, 400)
    assert.deepEqual(
      withoutId(sameUsername.body),
      errorOf('ValidationError', 'A user with username "bee" already exists.', {
        details: [{ path: '/body/username', message: 'A user with username "bee" already exists.' }],
      }),
    )
    // Changing one's email to a taken one: the same 400 (the reference fails with a 500).
    const takenEmail = await call(pennon, 'PUT', `/api/admin/user-admin/${bee}`, { email: 'a@example.com' })
    assert.equal(takenEmail.status, 400)
    assert.deepEqual(
      withoutId(takenEmail.body),
      errorOf('ValidationError', 'A user with email "a@example.com" already exists.', {
        details: [{ path: '/body/email', message: 'A user with email "a@example.com" already exists.' }],
      }),
    )
    assert.equal((await call(pennon, 'GET', '/api/admin/user-admin/abc')).status, 400)
    assert.equal((await call(pennon, 'PUT', '/api/admin/user-admin/999', { name: 'x' })).status, 404)
    assert.equal((await call(pennon, 'POST', '/api/admin/user-admin/validate-password', { password: 'Str0ng-Passw0rd!' })).status, 200)
    assert.equal(
      (await call(pennon, 'POST', '/auth/reset/validate-password', { password: 'aaa-Bbbb-1111' }, { token: null })).status,
      400,
      'three of a character in a row',
    )
  })

  test('users and tokens are only for admins; Editors and Viewers signed in are refused', async (t) => {
    const pennon = await useTestApp(t, database)
    await createUser(pennon, 'editor@example.com', 2)
    const cookie = await signIn(pennon, 'editor@example.com')
    const refused = await call(pennon, 'GET', '/api/admin/user-admin', undefined, asBrowser(cookie))
    assert.equal(refused.status, 403)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "ADMIN".', { permissions: ['ADMIN'] }),
    )
    assert.equal((await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'x', type: 'client' }, asBrowser(cookie))).status, 403)
  })

  test('the last credential that can administer Pennon may be an Admin user; it cannot be deleted or demoted', async (t) => {
    const pennon = await useTestApp(t, database)
    const admin = await createUser(pennon, 'root@example.com', 1)
    const cookie = await signIn(pennon, 'root@example.com')
    // The admin token may go now: an Admin user can still sign in.
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/admin', undefined, asBrowser(cookie))).status, 200)
    for (const [method, body] of [
      ['PUT', { rootRole: 2 }],
      ['DELETE', undefined],
    ] as const) {
      const response = await call(pennon, method, `/api/admin/user-admin/${admin}`, body, asBrowser(cookie))
      assert.equal(response.status, 409)
      assert.deepEqual(
        withoutId(response.body),
        errorOf(
          'InvalidOperationError',
          'User "root@example.com" is the last credential that can administer Pennon, so it cannot be deleted. Create another admin token, a token for an Admin service account, or an Admin user with a password first.',
        ),
      )
    }
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(cookie))).body.rootRole, 'Admin')
  })
})
