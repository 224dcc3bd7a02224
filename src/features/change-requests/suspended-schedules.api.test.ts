import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, eventually, onEachDatabase, serviceAccountToken, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { createFlag, projectPath } from '../../../test/helpers/flags.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

const PROD = 'production'
const CR = `${projectPath()}/change-requests`
const FAST = { CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '50' }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString()

type Options = Parameters<typeof call>[4]
const setState = (pennon: TestApp, as: Options, id: number, state: string, extra: Record<string, unknown> = {}) =>
  call(pennon, 'PUT', `${CR}/${id}/state`, { state, ...extra }, as)

/** A flag off in production and `count` Approved requests switching it on; a signed-in Editor user who may schedule them. */
async function setUp(pennon: TestApp, count = 1) {
  const author = { token: await serviceAccountToken(pennon, 2, 'author') }
  const reviewer = { token: await serviceAccountToken(pennon, 2, 'reviewer') }
  await createFlag(pennon, 'checkout')
  const protect = await call(pennon, 'PUT', `${projectPath()}/environments/${PROD}/change-requests/config`, {
    changeRequestsEnabled: true,
    requiredApprovals: 1,
  })
  assert.equal(protect.status, 204, protect.text)
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const added = await call(
      pennon,
      'POST',
      `${projectPath()}/environments/${PROD}/change-requests`,
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
      author,
    )
    assert.equal(added.status, 200, added.text)
    assert.equal((await setState(pennon, author, added.body.id, 'In review')).status, 200)
    assert.equal((await setState(pennon, reviewer, added.body.id, 'Approved')).status, 200)
    ids.push(added.body.id)
  }
  const userId = await createUser(pennon, 'scheduler@example.com', 2)
  const scheduler = asBrowser(await signIn(pennon, 'scheduler@example.com'))
  return { author, reviewer, ids, userId, scheduler }
}

const requestOf = async (pennon: TestApp, id: number) => (await call(pennon, 'GET', `${CR}/${id}`)).body
const eventsOfType = async (pennon: TestApp, type: string) => (await allEvents(pennon)).filter((e) => e.type === type)

onEachDatabase('suspended schedules', (database) => {
  test('the person who scheduled it deleted: suspended with the reason and its event; not applied when due; scheduled again by another, applied', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const { reviewer, ids, userId, scheduler } = await setUp(pennon, 2)
    const [id, other] = ids as [number, number]
    const scheduledAt = inMs(600)
    const scheduled = await setState(pennon, scheduler, id, 'Scheduled', { scheduledAt })
    assert.equal(scheduled.status, 200, scheduled.text)
    // Another's schedule is not theirs: it stays pending.
    const otherAt = inMs(3_600_000)
    assert.equal((await setState(pennon, reviewer, other, 'Scheduled', { scheduledAt: otherAt })).status, 200)

    const deleted = await call(pennon, 'DELETE', `/api/admin/user-admin/${userId}`)
    assert.equal(deleted.status, 200, deleted.text)
    const reason = `The user who scheduled this change request (user id: ${userId}) has been deleted.`
    const request = await requestOf(pennon, id)
    assert.equal(request.state, 'Scheduled')
    assert.deepEqual(request.schedule, { scheduledAt, status: 'suspended', reason })
    assert.deepEqual((await requestOf(pennon, other)).schedule, { scheduledAt: otherAt, status: 'pending' })
    const events = (await allEvents(pennon)).slice(-2)
    assert.deepEqual(
      events.map(({ type, createdBy, project, environment, data }) => ({ type, createdBy, project, environment, data })),
      [
        { type: 'user-deleted', createdBy: 'admin', project: null, environment: null, data: null },
        {
          type: 'change-request-schedule-suspended',
          createdBy: 'admin',
          project: 'default',
          environment: PROD,
          data: { changeRequestId: id, state: 'Scheduled', scheduledAt, reason },
        },
      ],
    )
    assert.equal(events[0].groupId, events[1].groupId)
    const found = await call(pennon, 'GET', `/api/admin/search/change-requests?state=IS:open&limit=1`)
    assert.deepEqual(found.body.changeRequests[0].schedule, { scheduledAt: otherAt, status: 'pending' })
    const suspended = await call(pennon, 'GET', `/api/admin/search/change-requests?state=IS:open&offset=1&limit=1`)
    assert.deepEqual(suspended.body.changeRequests[0].schedule, { scheduledAt, status: 'suspended', reason })

    // Due, but suspended: the scheduler leaves it.
    await sleep(1000)
    assert.equal((await requestOf(pennon, id)).state, 'Scheduled')
    assert.deepEqual(await eventsOfType(pennon, 'change-request-applied'), [])

    // Scheduled again by someone allowed: pending, theirs, applied when due.
    const again = inMs(300)
    const resumed = await setState(pennon, reviewer, id, 'Scheduled', { scheduledAt: again })
    assert.equal(resumed.status, 200, resumed.text)
    assert.deepEqual(resumed.body.schedule, { scheduledAt: again, status: 'pending' })
    await eventually(async () => (await requestOf(pennon, id)).state === 'Applied', 'the resumed schedule')
    const [applied] = await eventsOfType(pennon, 'change-request-applied')
    assert.equal(applied.createdBy, 'reviewer')
    assert.equal(applied.data.scheduledAt, again)
  })

  test('their role changed to Viewer: suspended; to Editor: not; applied at once, it is Applied', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const { author, ids, userId, scheduler } = await setUp(pennon)
    const [id] = ids as [number]
    const scheduledAt = inMs(3_600_000)
    assert.equal((await setState(pennon, scheduler, id, 'Scheduled', { scheduledAt })).status, 200)

    // Admin and back to Editor: both may apply, the schedule stays pending.
    for (const rootRole of [1, 2]) {
      const changed = await call(pennon, 'PUT', `/api/admin/user-admin/${userId}`, { rootRole })
      assert.equal(changed.status, 200, changed.text)
    }
    assert.deepEqual((await requestOf(pennon, id)).schedule, { scheduledAt, status: 'pending' })
    assert.deepEqual(await eventsOfType(pennon, 'change-request-schedule-suspended'), [])

    const viewer = await call(pennon, 'PUT', `/api/admin/user-admin/${userId}`, { rootRole: 3 })
    assert.equal(viewer.status, 200, viewer.text)
    const reason = `The user who scheduled this change request (user id: ${userId}) no longer has the APPLY_CHANGE_REQUEST permission.`
    assert.deepEqual((await requestOf(pennon, id)).schedule, { scheduledAt, status: 'suspended', reason })
    const events = (await allEvents(pennon)).slice(-2)
    assert.deepEqual(
      events.map(({ type, data }) => ({ type, data: type === 'user-updated' ? data.rootRole : data })),
      [
        { type: 'user-updated', data: 3 },
        { type: 'change-request-schedule-suspended', data: { changeRequestId: id, state: 'Scheduled', scheduledAt, reason } },
      ],
    )
    // Still a Viewer: back to Viewer again changes nothing.
    assert.equal((await call(pennon, 'PUT', `/api/admin/user-admin/${userId}`, { rootRole: 3 })).status, 200)
    assert.equal((await eventsOfType(pennon, 'change-request-schedule-suspended')).length, 1)

    const appliedNow = await setState(pennon, author, id, 'Applied')
    assert.equal(appliedNow.status, 200, appliedNow.text)
    assert.equal(appliedNow.body.state, 'Applied')
    assert.equal(appliedNow.body.schedule, undefined)
  })

  test('deleted with the inactive people: suspended as well, in that deletion', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const { ids, userId, scheduler } = await setUp(pennon)
    const [id] = ids as [number]
    const scheduledAt = inMs(3_600_000)
    assert.equal((await setState(pennon, scheduler, id, 'Scheduled', { scheduledAt })).status, 200)
    const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString()
    await pennon.database.db.updateTable('users').set({ created_at: yearAgo }).where('id', '=', userId).execute()
    await pennon.database.db.updateTable('user_activity').set({ seen_at: yearAgo }).where('user_id', '=', userId).execute()
    const deleted = await call(pennon, 'POST', '/api/admin/user-admin/inactive/delete', { ids: [userId] })
    assert.equal(deleted.status, 200, deleted.text)
    const reason = `The user who scheduled this change request (user id: ${userId}) has been deleted.`
    assert.deepEqual((await requestOf(pennon, id)).schedule, { scheduledAt, status: 'suspended', reason })
    assert.deepEqual(
      (await allEvents(pennon)).slice(-2).map((e) => e.type),
      ['user-deleted', 'change-request-schedule-suspended'],
    )
  })
})
