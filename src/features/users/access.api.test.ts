/**
 * GET /user-admin/access, GET /user-admin/inactive, POST /user-admin/inactive/delete and
 * DELETE /user-admin/scim-users through the real app on each database: exact bodies, who is
 * inactive (dates moved back in the tables), all-or-none deletion with its events, permissions.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

const U = '/api/admin/user-admin'
const DAY_MS = 86_400_000
const ago = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString()

/** Moves a person's creation back, and their last sign-in (none: never). */
async function age(pennon: TestApp, id: number, createdDaysAgo: number, seenDaysAgo?: number) {
  const db = pennon.database.db
  await db
    .updateTable('users')
    .set({ created_at: ago(createdDaysAgo) })
    .where('id', '=', id)
    .execute()
  if (seenDaysAgo !== undefined)
    await db
      .updateTable('user_activity')
      .set({ seen_at: ago(seenDaysAgo) })
      .where('user_id', '=', id)
      .execute()
}

onEachDatabase('user-admin: access, inactive people, SCIM', (database) => {
  test('GET /user-admin/access: people, then service accounts; NONE', async (t) => {
    const pennon = await useTestApp(t, database)
    const ada = await createUser(pennon, 'ada@example.com', 1, { name: 'Ada' })
    const bob = await createUser(pennon, 'bob@example.com', 3)
    const viewer = await serviceAccountToken(pennon, 3, 'robot')
    const account = (await call(pennon, 'GET', '/api/admin/service-account')).body.serviceAccounts[0]
    const access = await call(pennon, 'GET', `${U}/access`, undefined, { token: viewer })
    assert.equal(access.status, 200)
    assert.deepEqual(access.body, {
      users: [
        { id: ada, name: 'Ada', username: null, email: 'ada@example.com', accountType: 'User' },
        { id: bob, name: null, username: null, email: 'bob@example.com', accountType: 'User' },
        { id: account.id, name: 'robot', username: 'robot', email: null, accountType: 'Service Account' },
      ],
      groups: [],
    })
    assert.equal((await call(pennon, 'GET', `${U}/access`, undefined, { token: null })).status, 401)
  })

  test('GET /user-admin/inactive: created and unseen for 180 days, personal tokens included; ADMIN', async (t) => {
    const pennon = await useTestApp(t, database)
    const never = await createUser(pennon, 'never@example.com', 3)
    const old = await createUser(pennon, 'old@example.com', 3)
    const recent = await createUser(pennon, 'recent@example.com', 3)
    const fresh = await createUser(pennon, 'fresh@example.com', 3)
    const withToken = await createUser(pennon, 'token@example.com', 3)
    for (const email of ['old@example.com', 'recent@example.com']) await signIn(pennon, email)
    const cookie = await signIn(pennon, 'token@example.com')
    const expiresAt = new Date(Date.now() + 30 * DAY_MS).toISOString()
    const pat = await call(pennon, 'POST', '/api/admin/user/tokens', { description: 'ci', expiresAt }, asBrowser(cookie))
    assert.equal(pat.status, 201, pat.text)
    await age(pennon, never, 200)
    await age(pennon, old, 400, 190)
    await age(pennon, recent, 400, 10)
    await age(pennon, withToken, 400, 300)
    await pennon.database.db
      .updateTable('personal_access_tokens')
      .set({ seen_at: ago(5) })
      .where('user_id', '=', withToken)
      .execute()
    void fresh

    const answer = await call(pennon, 'GET', `${U}/inactive`)
    assert.equal(answer.status, 200)
    const { createdAt: c1, ...first } = answer.body.inactiveUsers[0]
    const { createdAt: c2, seenAt, ...second } = answer.body.inactiveUsers[1]
    assert.equal(answer.body.version, 1)
    assert.equal(answer.body.inactiveUsers.length, 2)
    assert.deepEqual(first, { id: never, name: null, email: 'never@example.com', username: null, seenAt: null, patSeenAt: null })
    assert.deepEqual(second, { id: old, name: null, email: 'old@example.com', username: null, patSeenAt: null })
    for (const [at, days] of [
      [c1, 200],
      [c2, 400],
      [seenAt, 190],
    ] as const)
      assert.ok(Math.abs(Date.parse(at) - Date.parse(ago(days))) < 60_000)

    // The personal token, once unused for long enough, no longer keeps its owner active.
    await pennon.database.db
      .updateTable('personal_access_tokens')
      .set({ seen_at: ago(181) })
      .where('user_id', '=', withToken)
      .execute()
    const later = (await call(pennon, 'GET', `${U}/inactive`)).body.inactiveUsers
    assert.deepEqual(
      later.map((user: any) => user.id),
      [never, old, withToken],
    )
    assert.ok(Math.abs(Date.parse(later[2].patSeenAt) - Date.parse(ago(181))) < 60_000)

    const editor = await serviceAccountToken(pennon, 2)
    const refused = await call(pennon, 'GET', `${U}/inactive`, undefined, { token: editor })
    assert.equal(refused.status, 403)
    assert.deepEqual(refused.body.permissions, ['ADMIN'])
    const shorter = await useTestApp(t, database, { env: { USER_INACTIVITY_THRESHOLD_IN_DAYS: '5' } })
    const ten = await createUser(shorter, 'ten@example.com', 3)
    await age(shorter, ten, 10)
    assert.deepEqual(
      (await call(shorter, 'GET', `${U}/inactive`)).body.inactiveUsers.map((user: any) => user.id),
      [ten],
    )
  })

  test('POST /user-admin/inactive/delete: all or none, with user-deleted events; the caller left out', async (t) => {
    const pennon = await useTestApp(t, database)
    const a = await createUser(pennon, 'a@example.com', 3)
    const b = await createUser(pennon, 'b@example.com', 2)
    const active = await createUser(pennon, 'active@example.com', 3)
    const me = await createUser(pennon, 'me@example.com', 1)
    await age(pennon, a, 365)
    await age(pennon, b, 365)
    await age(pennon, me, 365)
    const eventsBefore = (await allEvents(pennon)).length

    const unknown = await call(pennon, 'POST', `${U}/inactive/delete`, { ids: [a, 9999] })
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), {
      name: 'NotFoundError',
      message: 'No user has the id 9999.',
      details: [{ message: 'No user has the id 9999.' }],
    })
    const notInactive = await call(pennon, 'POST', `${U}/inactive/delete`, { ids: [a, active] })
    assert.equal(notInactive.status, 400)
    assert.equal(
      notInactive.body.message,
      `User ${active} is not inactive: they signed in, used a personal token, or were created within the last 180 days.`,
    )
    assert.equal((await allEvents(pennon)).length, eventsBefore)
    assert.equal((await call(pennon, 'GET', `${U}/${a}`)).status, 200)

    const cookie = await signIn(pennon, 'me@example.com')
    await age(pennon, me, 365, 200)
    const deleted = await call(pennon, 'POST', `${U}/inactive/delete`, { ids: [a, b, me] }, asBrowser(cookie))
    assert.equal(deleted.status, 200, deleted.text)
    assert.equal(deleted.text, '')
    assert.equal((await call(pennon, 'GET', `${U}/${a}`)).status, 404)
    assert.equal((await call(pennon, 'GET', `${U}/${b}`)).status, 404)
    assert.equal((await call(pennon, 'GET', `${U}/${me}`)).status, 200)
    const events = (await allEvents(pennon)).slice(eventsBefore)
    assert.deepEqual(
      events.map((event) => [event.type, event.preData.id, event.preData.email, event.createdBy]),
      [
        ['user-deleted', a, 'a@example.com', 'me@example.com'],
        ['user-deleted', b, 'b@example.com', 'me@example.com'],
      ],
    )

    assert.equal((await call(pennon, 'POST', `${U}/inactive/delete`, { ids: ['x'] })).status, 400)
    assert.equal((await call(pennon, 'POST', `${U}/inactive/delete`, {})).status, 400)
    const editor = await serviceAccountToken(pennon, 2)
    assert.equal((await call(pennon, 'POST', `${U}/inactive/delete`, { ids: [] }, { token: editor })).status, 403)
    assert.equal((await call(pennon, 'POST', `${U}/inactive/delete`, { ids: [] })).status, 200)
  })

  test('DELETE /user-admin/scim-users: none here, 200 and no event; ADMIN', async (t) => {
    const pennon = await useTestApp(t, database)
    await createUser(pennon, 'ada@example.com', 3)
    const eventsBefore = (await allEvents(pennon)).length
    const answer = await call(pennon, 'DELETE', `${U}/scim-users`)
    assert.equal(answer.status, 200)
    assert.equal(answer.text, '')
    assert.equal((await allEvents(pennon)).length, eventsBefore)
    assert.equal((await call(pennon, 'GET', `${U}/access`)).body.users.length, 1)
    const editor = await serviceAccountToken(pennon, 2)
    assert.equal((await call(pennon, 'DELETE', `${U}/scim-users`, undefined, { token: editor })).status, 403)
  })
})
