import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, onEachDatabase, serviceAccountToken, useTestApp } from '../../../test/test-app.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

onEachDatabase('GET /api/admin/me', (database) => {
  test('an admin token: its name, Admin, and ADMIN alone', async (t) => {
    const pennon = await useTestApp(t, database)
    const me = await call(pennon, 'GET', '/api/admin/me')
    assert.equal(me.status, 200)
    assert.deepEqual(me.body, { kind: 'admin-token', name: 'admin', rootRole: 'Admin', permissions: ['ADMIN'] })
  })

  test('service accounts: their username, root role and each permission held', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await call(pennon, 'GET', '/api/admin/me', undefined, { token: await serviceAccountToken(pennon, 3, 'the-viewer') })
    assert.deepEqual(viewer.body, { kind: 'service-account', name: 'the-viewer', rootRole: 'Viewer', permissions: [] })
    const editor = await call(pennon, 'GET', '/api/admin/me', undefined, { token: await serviceAccountToken(pennon, 2, 'the-editor') })
    assert.equal(editor.body.rootRole, 'Editor')
    assert.ok(editor.body.permissions.includes('UPDATE_FEATURE_ENVIRONMENT'))
    assert.ok(!editor.body.permissions.includes('ADMIN'))
    const admin = await call(pennon, 'GET', '/api/admin/me', undefined, { token: await serviceAccountToken(pennon, 1, 'the-admin') })
    assert.deepEqual(admin.body, { kind: 'service-account', name: 'the-admin', rootRole: 'Admin', permissions: ['ADMIN'] })
  })

  test('client tokens are refused (403), no token is a 401, AUTH_TYPE=none is the built-in admin', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, { token: await apiToken(pennon, 'client') })).status, 403)
    assert.equal((await call(pennon, 'GET', '/api/admin/me', undefined, { token: null })).status, 401)
    const open = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    const me = await call(open, 'GET', '/api/admin/me', undefined, { token: null })
    assert.deepEqual(me.body, { kind: 'open-access', name: 'unknown', rootRole: 'Admin', permissions: ['ADMIN'] })
  })

  test('a person: their email (else username), user id, and whether a session signed them in', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await createUser(pennon, 'viewer@example.com', 3)
    const cookie = await signIn(pennon, 'viewer@example.com')
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/me', undefined, asBrowser(cookie))).body, {
      kind: 'user',
      name: 'viewer@example.com',
      id: viewer,
      session: true,
      rootRole: 'Viewer',
      permissions: [],
    })
    const named = await createUser(pennon, '', 1, { username: 'root', email: undefined })
    const token = await call(
      pennon,
      'POST',
      '/api/admin/user/tokens',
      { description: 'script', expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString() },
      asBrowser(await signIn(pennon, 'root')),
    )
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/me', undefined, { token: token.body.secret })).body, {
      kind: 'user',
      name: 'root',
      id: named,
      rootRole: 'Admin',
      permissions: ['ADMIN'],
    })
  })
})
