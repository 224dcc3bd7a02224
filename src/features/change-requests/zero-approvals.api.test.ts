import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  allEvents,
  call,
  errorOf,
  eventually,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import { CR, inMs, PROD, productionClientToken, setState } from '../../../test/helpers/change-requests.ts'
import { createFlag, projectPath } from '../../../test/helpers/flags.ts'
import { addStrategy, toggle } from '../../../test/helpers/strategies.ts'

const FAST = { CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '50' }
const configPath = `${projectPath()}/environments/${PROD}/change-requests/config`

async function servedEnabled(pennon: TestApp): Promise<boolean> {
  const features = await call(pennon, 'GET', '/api/client/features', undefined, { token: await productionClientToken(pennon) })
  return features.body.features.find((f: any) => f.name === 'checkout').enabled
}

async function draft(pennon: TestApp, token: string): Promise<number> {
  const added = await call(
    pennon,
    'POST',
    `${projectPath()}/environments/${PROD}/change-requests`,
    { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
    { token },
  )
  assert.equal(added.status, 200, added.text)
  return added.body.id
}

onEachDatabase('change requests without approvals', (database) => {
  test('requiredApprovals 0: direct changes still refused; sent to review, a request is Approved at once; its author schedules it, applied when due', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const author = await serviceAccountToken(pennon, 2, 'author')
    await createFlag(pennon, 'checkout')
    await addStrategy(pennon, 'checkout', PROD, { name: 'default' })
    const put = await call(pennon, 'PUT', configPath, { changeRequestsEnabled: true, requiredApprovals: 0 })
    assert.equal(put.status, 204, put.text)
    const config = await call(pennon, 'GET', `${CR}/config`)
    assert.equal(config.status, 200, config.text)
    assert.deepEqual(config.body, [
      { environment: 'development', type: 'development', changeRequestEnabled: false, requiredApprovals: 1 },
      { environment: PROD, type: PROD, changeRequestEnabled: true, requiredApprovals: 0 },
    ])
    const [configured] = (await allEvents(pennon)).filter((e) => e.type === 'change-request-configuration-updated')
    assert.deepEqual(configured.data, { changeRequestsEnabled: true, requiredApprovals: 0 })
    // Left out, the setting keeps its 0.
    assert.equal((await call(pennon, 'PUT', configPath, { changeRequestsEnabled: true })).status, 204)
    assert.equal((await call(pennon, 'GET', `${CR}/config`)).body[1].requiredApprovals, 0)

    // The request is still the way: a direct change is refused.
    const refused = await toggle(pennon, 'checkout', PROD, 'on', 'default', author)
    assert.equal(refused.status, 403, refused.text)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf(
        'NoAccessError',
        `Missing permission: this operation needs "SKIP_CHANGE_REQUEST" in the "${PROD}" environment: changes there need a change request (project "default").`,
        { permissions: ['SKIP_CHANGE_REQUEST'] },
      ),
    )

    const id = await draft(pennon, author)
    const before = (await allEvents(pennon)).length
    const sent = await setState(pennon, author, id, 'In review')
    assert.equal(sent.status, 200, sent.text)
    assert.equal(sent.body.state, 'Approved')
    assert.equal(sent.body.minApprovals, 0)
    assert.deepEqual(sent.body.approvals, [])
    assert.deepEqual(Object.keys(sent.body.stateTimestamps), ['Draft', 'In review', 'Approved'])
    assert.equal(sent.body.stateTimestamps['In review'], sent.body.stateTimestamps.Approved)
    const events = (await allEvents(pennon)).slice(before)
    assert.deepEqual(
      events.map((e) => [e.type, e.createdBy, e.project, e.environment, e.data]),
      [
        ['change-request-sent-to-review', 'author', 'default', PROD, { changeRequestId: id, state: 'In review' }],
        ['change-request-approved', 'author', 'default', PROD, { changeRequestId: id, state: 'Approved' }],
      ],
    )

    // Its author alone schedules it; the scheduler applies it when due.
    const scheduledAt = inMs(500)
    const scheduled = await setState(pennon, author, id, 'Scheduled', { scheduledAt })
    assert.equal(scheduled.status, 200, scheduled.text)
    assert.deepEqual(scheduled.body.schedule, { scheduledAt, status: 'pending' })
    const servedEarly = await servedEnabled(pennon)
    assert.ok(!servedEarly || Date.now() >= Date.parse(scheduledAt), 'served before its time')
    await eventually(async () => (await call(pennon, 'GET', `${CR}/${id}`)).body.state === 'Applied', 'the scheduled apply')
    assert.equal(await servedEnabled(pennon), true)
    const [applied] = (await allEvents(pennon)).filter((e) => e.type === 'change-request-applied')
    assert.equal(applied.createdBy, 'author')
    assert.equal(applied.data.scheduledAt, scheduledAt)

    // Applied at once as well, by its author.
    const second = await draft(pennon, author)
    assert.equal((await setState(pennon, author, second, 'In review')).body.state, 'Approved')
    const now = await setState(pennon, author, second, 'Applied')
    assert.equal(now.status, 200, now.text)
    assert.equal(now.body.state, 'Applied')
  })

  test('a request keeps the approvals needed when it was made; with 1, its author still cannot approve it', async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 2, 'author')
    await createFlag(pennon, 'checkout')
    assert.equal((await call(pennon, 'PUT', configPath, { changeRequestsEnabled: true, requiredApprovals: 1 })).status, 204)
    const id = await draft(pennon, author)
    // Lowered to 0 after the draft was made: the draft still needs its one approval.
    assert.equal((await call(pennon, 'PUT', configPath, { changeRequestsEnabled: true, requiredApprovals: 0 })).status, 204)
    const sent = await setState(pennon, author, id, 'In review')
    assert.equal(sent.status, 200, sent.text)
    assert.equal(sent.body.state, 'In review')
    assert.equal(sent.body.minApprovals, 1)
    const own = await setState(pennon, author, id, 'Approved')
    assert.equal(own.status, 403, own.text)
    assert.deepEqual(withoutId(own.body), errorOf('NoAccessError', `The author of change request ${id} cannot approve it.`))
    const early = await setState(pennon, author, id, 'Scheduled', { scheduledAt: inMs(60_000) })
    assert.equal(early.status, 409, early.text)
    assert.equal(early.body.message, `Change request ${id} is In review: only a request that is Approved or Scheduled can be scheduled.`)
    assert.equal((await call(pennon, 'GET', `${CR}/${id}`)).body.state, 'In review')
  })
})
