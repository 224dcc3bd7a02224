/**
 * What a start-up does about admin tokens: an empty table gets the INIT_ADMIN_API_TOKENS or, with
 * token auth, a generated token; a database where no token can administer Pennon any more takes
 * the INIT_ADMIN_API_TOKENS too (under a name of their own), and otherwise is reported locked out,
 * nothing created. Run as main.ts runs it, then checked through the real app.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { createDb } from '../../db/database.ts'
import { migrateToLatest } from '../../db/migrate.ts'
import {
  allEvents,
  call,
  createTestApp,
  createTestStorage,
  onEachDatabase,
  type TestDatabase,
  type TestStorage,
} from '../../../test/test-app.ts'
import { createTokenService, type BootstrapOutcome } from './token-service.ts'
import { environmentExists } from '../environments/environment-store.ts'
import { lockSigningInAdmins } from '../users/user-store.ts'

const initToken = () => `*:*.${randomBytes(32).toString('hex')}`

/** A fresh, migrated database for the test, dropped when it ends. */
async function useStorage(t: { after(fn: () => Promise<void>): void }, database: TestDatabase): Promise<TestStorage> {
  const storage = await createTestStorage(database)
  t.after(() => storage.drop())
  return storage
}

/** The start-up's bootstrap on that database, as main.ts runs it. */
async function bootstrap(storage: TestStorage, initTokens: string[], tokenAuth = true): Promise<BootstrapOutcome> {
  const db = createDb(storage.options)
  try {
    let outcome: BootstrapOutcome = { kind: 'nothing' }
    await migrateToLatest(db.db, async () => {
      outcome = await createTokenService({ db: db.db, lockSigningInAdmins, environmentExists }).bootstrap(initTokens, tokenAuth)
    })
    return outcome
  } finally {
    await db.close()
  }
}

/** The real app on that database, closed when the test ends; its own start-up stores `adminToken` only if the rules say so. */
async function appOn(t: { after(fn: () => Promise<void>): void }, database: TestDatabase, storage: TestStorage) {
  const pennon = await createTestApp(database, { storage })
  t.after(() => pennon.close())
  return pennon
}

const EXPIRED = '2001-01-01T00:00:00.000Z'

onEachDatabase('start-up admin tokens', (database) => {
  test('an empty table with token auth and no INIT token: one admin token, generated, working, with its event', async (t) => {
    const storage = await useStorage(t, database)
    const outcome = await bootstrap(storage, [])
    assert.equal(outcome.kind, 'generated')
    const secret = outcome.kind === 'generated' ? outcome.secret : ''
    assert.match(secret, /^\*:\*\.[0-9a-f]{64}$/)
    assert.deepEqual({ ...outcome, secret: 's' }, { kind: 'generated', tokenName: 'admin', secret: 's' })
    assert.deepEqual(await bootstrap(storage, []), { kind: 'nothing' }, 'the next start creates nothing')
    const pennon = await appOn(t, database, storage)
    const list = await call(pennon, 'GET', '/api/admin/api-tokens', undefined, { token: secret })
    assert.equal(list.status, 200)
    assert.deepEqual(
      list.body.tokens.map((token: { tokenName: string }) => token.tokenName),
      ['admin'],
    )
    const events = (await allEvents(pennon)).map((e) => [e.type, e.createdBy, e.createdByUserId, e.groupType, e.data?.tokenName])
    assert.deepEqual(events, [['api-token-created', 'system', -1337, 'system', 'admin']])
  })

  test('an empty table with AUTH_TYPE=none and no INIT token: nothing', async (t) => {
    const storage = await useStorage(t, database)
    assert.deepEqual(await bootstrap(storage, [], false), { kind: 'nothing' })
  })

  test('tokens exist, one can administer: a new INIT token is not stored', async (t) => {
    const storage = await useStorage(t, database)
    const pennon = await appOn(t, database, storage)
    const other = initToken()
    assert.deepEqual(await bootstrap(storage, [other]), { kind: 'nothing' })
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: other })).status, 401)
  })

  test('no token can administer any more: the INIT token is stored as admin-2, works, and has its event', async (t) => {
    const storage = await useStorage(t, database)
    const first = await appOn(t, database, storage)
    assert.equal((await call(first, 'POST', '/api/admin/api-tokens', { tokenName: 'ci', type: 'client' })).status, 201)
    // The only admin token expires: everybody is locked out.
    await first.database.db.updateTable('api_tokens').set({ expires_at: EXPIRED }).where('token_name', '=', 'admin').execute()
    assert.equal((await call(first, 'GET', '/api/admin/projects')).status, 401)

    const recovery = initToken()
    assert.deepEqual(await bootstrap(storage, [recovery, recovery]), { kind: 'stored', tokenName: 'admin-2', count: 1 })
    const list = await call(first, 'GET', '/api/admin/api-tokens', undefined, { token: recovery })
    assert.equal(list.status, 200)
    assert.deepEqual(list.body.tokens.map((token: { tokenName: string }) => token.tokenName).sort(), ['admin', 'admin-2', 'ci'])
    const created = (await allEvents(first)).filter((e) => e.type === 'api-token-created').at(-1)
    assert.deepEqual(
      [created.createdBy, created.createdByUserId, created.groupType, created.project, created.environment],
      ['system', -1337, 'system', '*', '*'],
    )
    assert.deepEqual(
      { ...created.data, createdAt: 'c' },
      { tokenName: 'admin-2', type: 'admin', environment: '*', projects: ['*'], expiresAt: null, createdAt: 'c' },
    )
    assert.deepEqual(await bootstrap(storage, [initToken()]), { kind: 'nothing' }, 'once one can administer, INIT tokens are left alone')
  })

  test('no token can administer and no new INIT token: locked out, reported, nothing created', async (t) => {
    const storage = await useStorage(t, database)
    const pennon = await appOn(t, database, storage)
    await pennon.database.db.updateTable('api_tokens').set({ expires_at: EXPIRED }).where('token_name', '=', 'admin').execute()
    assert.deepEqual(await bootstrap(storage, []), { kind: 'locked-out' })
    // The INIT token already stored (now expired) is not stored again.
    assert.deepEqual(await bootstrap(storage, [pennon.adminToken]), { kind: 'locked-out' })
    // Without token auth nobody is locked out of anything, so nothing is said.
    assert.deepEqual(await bootstrap(storage, [], false), { kind: 'nothing' })
    const rows = await pennon.database.db.selectFrom('api_tokens').select('token_name').execute()
    assert.deepEqual(
      rows.map((row) => row.token_name),
      ['admin'],
    )
  })

  test("an Admin service account's token can administer: no INIT token is needed then", async (t) => {
    const storage = await useStorage(t, database)
    const pennon = await appOn(t, database, storage)
    const account = await call(pennon, 'POST', '/api/admin/service-account', { username: 'robot', name: 'Robot', rootRole: 1 })
    assert.equal(
      (await call(pennon, 'POST', `/api/admin/service-account/${account.body.id}/token`, { description: 'r', expiresAt: null })).status,
      201,
    )
    await pennon.database.db.updateTable('api_tokens').set({ expires_at: EXPIRED }).where('token_name', '=', 'admin').execute()
    assert.deepEqual(await bootstrap(storage, [initToken()]), { kind: 'nothing' })
  })
})
