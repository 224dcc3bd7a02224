/**
 * The last credential that can administer Pennon cannot be deleted: an unexpired admin API
 * token, or an unexpired token of an Admin service account. Every route that removes such
 * credentials refuses with 409 when none would be left; other deletes go on as before.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'

const WHY =
  'the last credential that can administer Pennon, so it cannot be deleted. Create another admin token, a token for an Admin service account, or an Admin user with a password first.'
const lastToken = (name: string) => errorOf('InvalidOperationError', `API token ${JSON.stringify(name)} is ${WHY}`)
const lastAccount = (username: string) => errorOf('InvalidOperationError', `Service account ${JSON.stringify(username)} holds ${WHY}`)

const tokenNames = async (pennon: TestApp) =>
  ((await call(pennon, 'GET', '/api/admin/api-tokens')).body.tokens as Array<{ tokenName: string }>).map((t) => t.tokenName).sort()

async function adminToken(pennon: TestApp, tokenName: string, expiresAt: string | null = null): Promise<string> {
  const created = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName, type: 'admin', expiresAt })
  assert.equal(created.status, 201, created.text)
  return created.body.secret
}

/** A service account with a root role and one token; returns its id and the token's secret. */
async function account(
  pennon: TestApp,
  username: string,
  rootRole: 1 | 2 | 3,
  expiresAt: string | null = null,
): Promise<{ id: number; secret: string }> {
  const created = await call(pennon, 'POST', '/api/admin/service-account', { username, name: username, rootRole })
  assert.equal(created.status, 201, created.text)
  const token = await call(pennon, 'POST', `/api/admin/service-account/${created.body.id}/token`, { description: 'test', expiresAt })
  assert.equal(token.status, 201, token.text)
  return { id: created.body.id, secret: token.body.secret }
}

/** Moves a credential's expiry into the past by hand, as time would. */
const expireApiToken = (pennon: TestApp, tokenName: string) =>
  pennon.database.db.updateTable('api_tokens').set({ expires_at: '2001-01-01T00:00:00.000Z' }).where('token_name', '=', tokenName).execute()

onEachDatabase('the last admin credential', (database) => {
  test('the only admin token cannot delete itself: 409, it still works, no event', async (t) => {
    const pennon = await useTestApp(t, database)
    const before = (await allEvents(pennon)).length
    const refused = await call(pennon, 'DELETE', '/api/admin/api-tokens/admin')
    assert.equal(refused.status, 409)
    assert.equal(refused.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(withoutId(refused.body), lastToken('admin'))
    assert.deepEqual(await tokenNames(pennon), ['admin'])
    assert.equal((await call(pennon, 'GET', '/api/admin/projects')).status, 200)
    assert.equal((await allEvents(pennon)).length, before)
  })

  test('with a second admin token either may go, one at a time; then the other is the last', async (t) => {
    const pennon = await useTestApp(t, database)
    const ops = await adminToken(pennon, 'ops')
    // A caller may delete its own token while another admin-capable one is left.
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/admin')).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects')).status, 401)
    const refused = await call(pennon, 'DELETE', '/api/admin/api-tokens/ops', undefined, { token: ops })
    assert.equal(refused.status, 409)
    assert.deepEqual(withoutId(refused.body), lastToken('ops'))
    assert.deepEqual(await tokenNames({ ...pennon, adminToken: ops }), ['ops'])
  })

  test('a name held by several tokens: refused when they are all the admins left, deleted together otherwise', async (t) => {
    const pennon = await useTestApp(t, database)
    const twin = await adminToken(pennon, 'twin')
    await adminToken(pennon, 'twin')
    const asTwin = { ...pennon, adminToken: twin }
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/admin')).status, 200)
    const refused = await call(asTwin, 'DELETE', '/api/admin/api-tokens/twin')
    assert.equal(refused.status, 409)
    assert.deepEqual(withoutId(refused.body), lastToken('twin'))
    assert.deepEqual(await tokenNames(asTwin), ['twin', 'twin'])

    const spare = await adminToken(asTwin, 'spare')
    assert.equal((await call(asTwin, 'DELETE', '/api/admin/api-tokens/twin')).status, 200)
    assert.deepEqual(await tokenNames({ ...pennon, adminToken: spare }), ['spare'])
    const deleted = (await allEvents(pennon)).filter((e) => e.type === 'api-token-deleted').map((e) => e.preData.tokenName)
    assert.deepEqual(deleted, ['admin', 'twin', 'twin'])
  })

  test('expired admin tokens do not count, and may always be deleted', async (t) => {
    const pennon = await useTestApp(t, database)
    await adminToken(pennon, 'soon', '2999-01-01T00:00:00.000Z')
    await expireApiToken(pennon, 'soon')
    assert.deepEqual(withoutId((await call(pennon, 'DELETE', '/api/admin/api-tokens/admin')).body), lastToken('admin'))
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/soon')).status, 200)
    assert.deepEqual(await tokenNames(pennon), ['admin'])
  })

  test('client and frontend tokens, and Editor or Viewer accounts, go as before', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const type of ['client', 'frontend'])
      assert.equal((await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: type, type })).status, 201)
    const editor = await account(pennon, 'editor', 2)
    const viewer = await account(pennon, 'viewer', 3)
    for (const path of ['api-tokens/client', 'api-tokens/frontend', `service-account/${editor.id}`, `service-account/${viewer.id}`]) {
      assert.equal((await call(pennon, 'DELETE', `/api/admin/${path}`)).status, 200, path)
    }
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/nobody')).status, 404)
  })

  test('an Admin service account counts: its token lets the last admin token go, and then it is the last', async (t) => {
    const pennon = await useTestApp(t, database)
    // An Editor's token and an expired Admin token count for nothing.
    await account(pennon, 'editor', 2)
    const expired = await account(pennon, 'stale-admin', 1, '2999-01-01T00:00:00.000Z')
    await pennon.database.db
      .updateTable('service_account_tokens')
      .set({ expires_at: '2001-01-01T00:00:00.000Z' })
      .where('service_account_id', '=', expired.id)
      .execute()
    assert.deepEqual(withoutId((await call(pennon, 'DELETE', '/api/admin/api-tokens/admin')).body), lastToken('admin'))

    const robot = await account(pennon, 'robot', 1)
    const asRobot = { ...pennon, adminToken: robot.secret }
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/admin')).status, 200)
    assert.equal((await call(asRobot, 'DELETE', `/api/admin/service-account/${expired.id}`)).status, 200)
    const refused = await call(asRobot, 'DELETE', `/api/admin/service-account/${robot.id}`)
    assert.equal(refused.status, 409)
    assert.deepEqual(withoutId(refused.body), lastAccount('robot'))
    assert.equal(
      (await call(asRobot, 'GET', '/api/admin/service-account')).body.serviceAccounts.some((a: { id: number }) => a.id === robot.id),
      true,
    )
    // An unknown account is still a 404, not a 409.
    assert.equal((await call(asRobot, 'DELETE', '/api/admin/service-account/999')).status, 404)

    // With an admin token again, the account may go, and then that token is the last.
    const ops = await adminToken(asRobot, 'ops')
    assert.equal((await call(asRobot, 'DELETE', `/api/admin/service-account/${robot.id}`)).status, 200)
    assert.deepEqual(withoutId((await call({ ...pennon, adminToken: ops }, 'DELETE', '/api/admin/api-tokens/ops')).body), lastToken('ops'))
  })

  test('an Admin service account with several tokens is one credential holder: refused while they are the last', async (t) => {
    const pennon = await useTestApp(t, database)
    const robot = await account(pennon, 'robot', 1)
    assert.equal(
      (await call(pennon, 'POST', `/api/admin/service-account/${robot.id}/token`, { description: 'second', expiresAt: null })).status,
      201,
    )
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/admin')).status, 200)
    const refused = await call({ ...pennon, adminToken: robot.secret }, 'DELETE', `/api/admin/service-account/${robot.id}`)
    assert.deepEqual(withoutId(refused.body), lastAccount('robot'))
  })

  test('with AUTH_TYPE=none the rule still holds: the stored credentials are what token auth would meet', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    const refused = await call(pennon, 'DELETE', '/api/admin/api-tokens/admin', undefined, { token: null })
    assert.equal(refused.status, 409)
    assert.deepEqual(withoutId(refused.body), lastToken('admin'))
  })
})
