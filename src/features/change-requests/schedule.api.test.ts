import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  allEvents,
  call,
  createAppStorage,
  createTestApp,
  eventually,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  useTwoInstances,
  type TestApp,
} from '../../../test/test-app.ts'
import { approvedRequest, CR, inMs, PROD, productionClientToken, setState } from '../../../test/helpers/change-requests.ts'
import { projectPath } from '../../../test/helpers/flags.ts'

const FAST = { CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '50' }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function servedEnabled(pennon: TestApp): Promise<boolean> {
  const features = await call(pennon, 'GET', '/api/client/features', undefined, { token: await productionClientToken(pennon) })
  return features.body.features.find((f: any) => f.name === 'checkout').enabled
}

const eventsOfType = async (pennon: TestApp, type: string) => (await allEvents(pennon)).filter((e) => e.type === type)

onEachDatabase('scheduled change requests', (database) => {
  test('scheduled 1.5 s ahead: not served before, served after; events say when it was due and when it ran', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const { author, id } = await approvedRequest(pennon)
    const scheduledAt = inMs(1500)
    const scheduled = await setState(pennon, author, id, 'Scheduled', { scheduledAt })
    assert.equal(scheduled.status, 200, scheduled.text)
    assert.equal(scheduled.body.state, 'Scheduled')
    assert.deepEqual(scheduled.body.schedule, { scheduledAt, status: 'pending' })
    const listed = await call(pennon, 'GET', `${CR}/scheduled?feature=checkout&feature=other`)
    assert.deepEqual(listed.body, [{ id, environment: PROD, title: `Change request #${id}` }])
    assert.deepEqual((await call(pennon, 'GET', `${CR}/scheduled?feature=other`)).body, [])
    assert.equal((await call(pennon, 'GET', `${CR}/count`)).body.scheduled, 1)
    const [event] = await eventsOfType(pennon, 'change-request-scheduled')
    assert.deepEqual(event.data, { changeRequestId: id, state: 'Scheduled', scheduledAt })
    assert.equal(event.createdBy, 'author')

    await sleep(800)
    // On a busy machine the time may have come meanwhile: what must hold is that nothing is served
    // or applied before it.
    const servedEarly = await servedEnabled(pennon)
    assert.ok(!servedEarly || Date.now() >= Date.parse(scheduledAt), 'served before its time')
    const stateEarly = (await call(pennon, 'GET', `${CR}/${id}`)).body.state
    assert.ok(stateEarly === 'Scheduled' || Date.now() >= Date.parse(scheduledAt), 'applied before its time')
    await eventually(async () => (await call(pennon, 'GET', `${CR}/${id}`)).body.state === 'Applied', 'the scheduled apply')
    assert.ok(Date.now() >= Date.parse(scheduledAt))
    assert.equal(await servedEnabled(pennon), true)
    const [applied] = await eventsOfType(pennon, 'change-request-applied')
    assert.equal(applied.data.scheduledAt, scheduledAt)
    assert.ok(applied.data.appliedAt >= scheduledAt)
    assert.equal(applied.createdBy, 'author')
    const [success] = await eventsOfType(pennon, 'change-request-scheduled-application-success')
    assert.deepEqual(success.data, { changeRequestId: id, state: 'Applied', scheduledAt, appliedAt: applied.data.appliedAt })
    assert.equal((await eventsOfType(pennon, 'feature-environment-enabled')).length, 1)
  })

  test('scheduling: Approved or Scheduled only, a future ISO time (400s), APPLY_CHANGE_REQUEST; moved; cancelled; rejected', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const { author, reviewer, id } = await approvedRequest(pennon)
    const viewer = await serviceAccountToken(pennon, 3, 'viewer')
    const noTime = await setState(pennon, author, id, 'Scheduled')
    assert.equal(noTime.status, 400, noTime.text)
    assert.equal(noTime.body.details[0].path, '/body/scheduledAt')
    assert.equal((await setState(pennon, author, id, 'Scheduled', { scheduledAt: 'tomorrow' })).status, 400)
    const past = await setState(pennon, author, id, 'Scheduled', { scheduledAt: inMs(-1000) })
    assert.equal(past.status, 400, past.text)
    assert.match(past.body.message, /not in the future/)
    assert.equal((await setState(pennon, viewer, id, 'Scheduled', { scheduledAt: inMs(60_000) })).status, 403)

    const first = inMs(60_000)
    assert.equal((await setState(pennon, author, id, 'Scheduled', { scheduledAt: first })).status, 200)
    // Moved sooner: applied at the new time.
    const second = inMs(300)
    const moved = await setState(pennon, reviewer, id, 'Scheduled', { scheduledAt: second })
    assert.equal(moved.status, 200, moved.text)
    assert.deepEqual(moved.body.schedule, { scheduledAt: second, status: 'pending' })
    await eventually(async () => (await call(pennon, 'GET', `${CR}/${id}`)).body.state === 'Applied', 'the moved schedule')
    assert.equal((await setState(pennon, author, id, 'Scheduled', { scheduledAt: inMs(60_000) })).status, 409)

    // Cancelled by the author while Scheduled: never applied.
    const other = await call(
      pennon,
      'POST',
      `${projectPath()}/environments/${PROD}/change-requests`,
      {
        feature: 'checkout',
        action: 'updateEnabled',
        payload: { enabled: false },
      },
      { token: author },
    )
    const otherId = other.body.id
    await setState(pennon, author, otherId, 'In review')
    await setState(pennon, reviewer, otherId, 'Approved')
    assert.equal((await setState(pennon, author, otherId, 'Scheduled', { scheduledAt: inMs(400) })).status, 200)
    const cancelled = await setState(pennon, author, otherId, 'Cancelled')
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.schedule, undefined)
    await sleep(700)
    assert.equal((await call(pennon, 'GET', `${CR}/${otherId}`)).body.state, 'Cancelled')
    assert.equal(await servedEnabled(pennon), true)
    assert.deepEqual((await call(pennon, 'GET', `${CR}/scheduled?feature=checkout`)).body, [])

    // Rejected by a reviewer while Scheduled: never applied either.
    const third = await call(
      pennon,
      'POST',
      `${projectPath()}/environments/${PROD}/change-requests`,
      {
        feature: 'checkout',
        action: 'updateEnabled',
        payload: { enabled: false },
      },
      { token: author },
    )
    await setState(pennon, author, third.body.id, 'In review')
    await setState(pennon, reviewer, third.body.id, 'Approved')
    assert.equal((await setState(pennon, author, third.body.id, 'Scheduled', { scheduledAt: inMs(400) })).status, 200)
    const rejected = await setState(pennon, reviewer, third.body.id, 'Rejected')
    assert.equal(rejected.status, 200, rejected.text)
    assert.equal(rejected.body.state, 'Rejected')
    await sleep(700)
    assert.equal(await servedEnabled(pennon), true)
    assert.deepEqual(
      (await eventsOfType(pennon, 'change-request-applied')).map((e) => e.data.changeRequestId),
      [id],
    )
  })

  test('a conflict when due: the schedule is marked failed with the reason, nothing applied, one failure event', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const { author, id, strategyId } = await approvedRequest(pennon, (strategyId) => [
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
      { feature: 'checkout', action: 'deleteStrategy', payload: { id: strategyId } },
    ])
    const scheduledAt = inMs(500)
    assert.equal((await setState(pennon, author, id, 'Scheduled', { scheduledAt })).status, 200)
    // The strategy deleted directly (an Admin skips change requests) before the time.
    const deleted = await call(pennon, 'DELETE', `${projectPath()}/features/checkout/environments/${PROD}/strategies/${strategyId}`)
    assert.equal(deleted.status, 200, deleted.text)
    await eventually(async () => (await call(pennon, 'GET', `${CR}/${id}`)).body.schedule?.status === 'failed', 'the failed apply')
    const failed = (await call(pennon, 'GET', `${CR}/${id}`)).body
    assert.equal(failed.state, 'Scheduled')
    const changeId = failed.features[0].changes[1].id
    const reason = `Change request ${id} cannot be applied: change ${changeId} (deleteStrategy of flag "checkout" in environment "production") conflicts with the flag as it is now: Flag "checkout" has no strategy "${strategyId}" in environment "production". Nothing was applied.`
    assert.deepEqual(failed.schedule, { scheduledAt, status: 'failed', reason, failureReason: reason })
    await sleep(300)
    assert.equal(await servedEnabled(pennon), false)
    assert.deepEqual(await eventsOfType(pennon, 'change-request-applied'), [])
    assert.deepEqual(await eventsOfType(pennon, 'feature-environment-enabled'), [])
    const failures = await eventsOfType(pennon, 'change-request-scheduled-application-failure')
    assert.equal(failures.length, 1)
    assert.deepEqual(
      { ...failures[0].data, failedAt: undefined },
      {
        changeRequestId: id,
        state: 'Scheduled',
        scheduledAt,
        failedAt: undefined,
        reason,
      },
    )
    // A failed schedule can be applied now (it conflicts again) or cancelled.
    assert.equal((await setState(pennon, author, id, 'Applied')).status, 409)
    assert.equal((await setState(pennon, author, id, 'Cancelled')).status, 200)
  })

  test('maintenance mode: a due request waits until it is turned off', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const { author, id } = await approvedRequest(pennon)
    assert.equal((await setState(pennon, author, id, 'Scheduled', { scheduledAt: inMs(300) })).status, 200)
    assert.equal((await call(pennon, 'POST', '/api/admin/maintenance', { enabled: true })).status, 204)
    await sleep(800)
    assert.equal((await call(pennon, 'GET', `${CR}/${id}`)).body.state, 'Scheduled')
    assert.equal((await call(pennon, 'POST', '/api/admin/maintenance', { enabled: false })).status, 204)
    await eventually(async () => (await call(pennon, 'GET', `${CR}/${id}`)).body.state === 'Applied', 'the apply after maintenance')
  })

  test('two instances on one database: applied once', async (t) => {
    const { first, second } = await useTwoInstances(t, database, FAST)
    const { author, id } = await approvedRequest(first)
    const scheduledAt = inMs(400)
    assert.equal((await setState(second, author, id, 'Scheduled', { scheduledAt })).status, 200)
    await eventually(async () => (await call(first, 'GET', `${CR}/${id}`)).body.state === 'Applied', 'the scheduled apply')
    await sleep(300)
    assert.equal((await eventsOfType(first, 'change-request-applied')).length, 1)
    assert.equal((await eventsOfType(first, 'feature-environment-enabled')).length, 1)
    assert.equal((await eventsOfType(first, 'change-request-scheduled-application-success')).length, 1)
  })

  test('the instance is down when it falls due: restarted, it applies it late, once, and says both times', async (t) => {
    const storage = await createAppStorage(database)
    t.after(() => storage.drop())
    const before = await createTestApp(database, { storage, env: FAST })
    const { author, id } = await approvedRequest(before)
    const scheduledAt = inMs(300)
    assert.equal((await setState(before, author, id, 'Scheduled', { scheduledAt })).status, 200)
    await before.close()
    await sleep(800)
    const restarted = await createTestApp(database, { storage, env: FAST })
    t.after(() => restarted.close())
    // The admin token is the one the first start made.
    const after = { ...restarted, adminToken: before.adminToken }
    await eventually(async () => (await call(after, 'GET', `${CR}/${id}`)).body.state === 'Applied', 'the late apply')
    const applied = await eventsOfType(after, 'change-request-applied')
    assert.equal(applied.length, 1)
    assert.equal(applied[0].data.scheduledAt, scheduledAt)
    assert.ok(Date.parse(applied[0].data.appliedAt) - Date.parse(scheduledAt) >= 500, JSON.stringify(applied[0].data))
    assert.equal(await servedEnabled(after), true)
  })
})
