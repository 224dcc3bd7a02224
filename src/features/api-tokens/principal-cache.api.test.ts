/**
 * Authenticated requests are answered from remembered principals (no token query), and that
 * never outlives the token: expiry, deletion through this instance, through another instance
 * on the same database, and a change made by hand in the database all end it.
 * A change through this instance counts at once; another instance's (or a hand-made one) a
 * moment later: from the next event-loop turn on SQLite, with the notification on PostgreSQL.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test, type TestContext } from 'node:test'
import {
  call,
  eventually,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  useTwoInstances,
  type TestApp,
  type TestDatabase,
} from '../../../test/test-app.ts'
import { CHANGE_POLL_MS } from '../../db/pg-change-watch.ts'

const projects = (pennon: TestApp, token: string) => call(pennon, 'GET', '/api/admin/projects', undefined, { token })

onEachDatabase('remembered principals', (database) => {
  test('a token that expires while remembered is refused from that moment', async (t) => {
    const pennon = await useTestApp(t, database)
    const expiresAt = new Date(Date.now() + 1_500).toISOString()
    const created = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'brief', type: 'admin', expiresAt })
    assert.equal(created.status, 201)
    assert.equal((await projects(pennon, created.body.secret)).status, 200)
    assert.equal((await projects(pennon, created.body.secret)).status, 200)
    await sleep(Date.parse(expiresAt) - Date.now() + 20)
    const refused = await projects(pennon, created.body.secret)
    assert.equal(refused.status, 401)
    assert.equal(refused.body.message, 'Authentication failed: the token in the Authorization header is unknown, deleted or expired.')
  })

  test('deleted through this instance: refused by the very next request', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'gone', type: 'admin' })
    assert.equal((await projects(pennon, created.body.secret)).status, 200)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/api-tokens/gone')).status, 200)
    assert.equal((await projects(pennon, created.body.secret)).status, 401)
    assert.equal((await projects(pennon, created.body.secret)).status, 401, 'and stays refused')
  })

  for (const told of [true, false])
    test(
      told
        ? 'deleted through another instance, or by hand in the database: refused there too'
        : 'deleted through an instance that dies after each commit, before telling the others: refused on them within a poll',
      async (t) => {
        await deletedOnAnotherInstance(t, database, told)
      },
    )
})

/**
 * Tokens remembered by the second instance, deleted through the first and by hand. `told`: the first
 * notifies the second after its commits; otherwise it never does (as if it died after each commit),
 * and the second sees each change in its poll of the newest committed change, within CHANGE_POLL_MS.
 */
async function deletedOnAnotherInstance(t: TestContext, database: TestDatabase, told: boolean): Promise<void> {
  const { first, second } = await useTwoInstances(t, database, undefined, told ? undefined : { notifyOthers: false })
  const refusedEventually = (pennon: TestApp, token: string, what: string) =>
    eventually(async () => (await projects(pennon, token)).status === 401, what, told ? 3_000 : 3 * CHANGE_POLL_MS)
  const admin = first.adminToken
  const created = await call(first, 'POST', '/api/admin/api-tokens', { tokenName: 'shared', type: 'admin' })
  const viewer = await serviceAccountToken(first, 3, 'viewer')
  // The second instance remembers both.
  for (const token of [created.body.secret, viewer]) {
    assert.equal((await projects(second, token)).status, 200)
    assert.equal((await projects(second, token)).status, 200)
  }

  assert.equal((await call(first, 'DELETE', '/api/admin/api-tokens/shared', undefined, { token: admin })).status, 200)
  await refusedEventually(second, created.body.secret, 'the deleted token refused on the other instance')
  assert.equal((await projects(second, created.body.secret)).status, 401, 'and stays refused')

  // An operator revokes the service account's tokens with SQL, bypassing Pennon.
  await first.database.db.deleteFrom('service_account_tokens').execute()
  await refusedEventually(second, viewer, 'the token revoked by hand refused')
  assert.equal((await projects(second, viewer)).status, 401, 'and stays refused')
  assert.equal((await projects(second, admin)).status, 200, 'other tokens go on working')
}
