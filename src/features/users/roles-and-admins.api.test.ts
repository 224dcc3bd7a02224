/** GET /user/roles (a caller's project roles: Pennon has none) and GET /user-admin/admin-count. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

const ADMIN_COUNT = '/api/admin/user-admin/admin-count'

onEachDatabase('roles and admins', (database) => {
  test('GET /user/roles?projectId=…: {version: 1, roles: []} for any caller; 400 without projectId', async (t) => {
    const pennon = await useTestApp(t, database)
    await createUser(pennon, 'viewer@example.com', 3)
    const viewer = asBrowser(await signIn(pennon, 'viewer@example.com'))
    for (const options of [{}, viewer]) {
      const roles = await call(pennon, 'GET', '/api/admin/user/roles?projectId=default', undefined, options)
      assert.equal(roles.status, 200)
      assert.deepEqual(roles.body, { version: 1, roles: [] })
    }
    const missing = await call(pennon, 'GET', '/api/admin/user/roles')
    assert.equal(missing.status, 400)
    assert.equal(missing.body.name, 'ValidationError')
    assert.deepEqual(
      missing.body.details.map((d: { path: string }) => d.path),
      ['/query/projectId'],
    )
  })

  test('GET /user-admin/admin-count: Admin users with and without a password, and Admin service accounts; ADMIN only', async (t) => {
    const pennon = await useTestApp(t, database)
    const before = await call(pennon, 'GET', ADMIN_COUNT)
    assert.equal(before.status, 200)
    assert.deepEqual(before.body, { password: 0, noPassword: 0, service: 0 })

    await createUser(pennon, 'admin1@example.com', 1)
    await createUser(pennon, 'admin2@example.com', 1)
    await createUser(pennon, 'editor@example.com', 2)
    const invited = await call(pennon, 'POST', '/api/admin/user-admin', { email: 'invited@example.com', rootRole: 1 })
    assert.equal(invited.status, 201, invited.text)
    await serviceAccountToken(pennon, 1)
    const editorToken = await serviceAccountToken(pennon, 2)

    const after = await call(pennon, 'GET', ADMIN_COUNT)
    assert.equal(after.status, 200)
    assert.deepEqual(after.body, { password: 2, noPassword: 1, service: 1 })

    const refused = await call(pennon, 'GET', ADMIN_COUNT, undefined, { token: editorToken })
    assert.equal(refused.status, 403)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "ADMIN".', { permissions: ['ADMIN'] }),
    )
  })
})
