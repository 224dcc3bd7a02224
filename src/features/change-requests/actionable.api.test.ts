import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, eventually, onEachDatabase, serviceAccountToken, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { CR, inMs, PROD, requireChangeRequests } from '../../../test/helpers/change-requests.ts'
import { createFlag, projectPath } from '../../../test/helpers/flags.ts'
import { addStrategy } from '../../../test/helpers/strategies.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

const DEV = 'development'
const FAST = { CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '50' }
type As = Parameters<typeof call>[4]

async function request(pennon: TestApp, as: As, change: Record<string, unknown>, environment = PROD): Promise<number> {
  const added = await call(pennon, 'POST', `${projectPath()}/environments/${environment}/change-requests`, change, as)
  assert.equal(added.status, 200, added.text)
  return added.body.id
}

async function move(pennon: TestApp, as: As, id: number, state: string, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await call(pennon, 'PUT', `${CR}/${id}/state`, { state, ...extra }, as)
  assert.equal(response.status, 200, response.text)
  return response.body
}

const actionable = async (pennon: TestApp, as: As) => {
  const response = await call(pennon, 'GET', `${CR}/actionable`, undefined, as)
  assert.equal(response.status, 200, response.text)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  return response.body
}

const stateOf = async (pennon: TestApp, id: number) => (await call(pennon, 'GET', `${CR}/${id}`)).body

onEachDatabase('actionable change requests', (database) => {
  test('each caller counts what waits for them: reviews they may still give, approved requests and stuck schedules they may apply', async (t) => {
    const pennon = await useTestApp(t, database, { env: FAST })
    const author = { token: await serviceAccountToken(pennon, 2, 'author') }
    const reviewer = { token: await serviceAccountToken(pennon, 2, 'reviewer') }
    const second = { token: await serviceAccountToken(pennon, 2, 'second') }
    const viewer = { token: await serviceAccountToken(pennon, 3, 'viewer') }
    const admin = {}
    await createFlag(pennon, 'checkout')
    const strategy = await addStrategy(pennon, 'checkout', PROD, { name: 'default' })
    await addStrategy(pennon, 'checkout', DEV, { name: 'default' })
    await requireChangeRequests(pennon, { environment: PROD, requiredApprovals: 1 })
    await requireChangeRequests(pennon, { environment: DEV, requiredApprovals: 2 })
    const switchOn = { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } }
    for (const caller of [author, reviewer, second, viewer, admin]) assert.deepEqual(await actionable(pennon, caller), { total: 0 })

    // Drafts wait for no one else.
    const inReview = await request(pennon, author, switchOn)
    assert.deepEqual(await actionable(pennon, reviewer), { total: 0 })
    await move(pennon, author, inReview, 'In review')
    const approved = await request(pennon, author, { ...switchOn, payload: { enabled: false } }, DEV)
    await move(pennon, author, approved, 'In review')
    await move(pennon, reviewer, approved, 'Approved')
    // DEV needs two: still In review, the reviewer's part done, the second's not.
    assert.equal((await stateOf(pennon, approved)).state, 'In review')
    const byReviewer = await request(pennon, reviewer, { feature: 'checkout', action: 'patchVariant', payload: { variants: [] } })
    await move(pennon, reviewer, byReviewer, 'In review')
    assert.deepEqual(await actionable(pennon, author), { total: 1 }) // the reviewer's
    assert.deepEqual(await actionable(pennon, reviewer), { total: 1 }) // the author's first
    assert.deepEqual(await actionable(pennon, second), { total: 3 })
    assert.deepEqual(await actionable(pennon, admin), { total: 3 })
    assert.deepEqual(await actionable(pennon, viewer), { total: 0 })

    // Approved: anyone who may apply it, its author too.
    await move(pennon, second, approved, 'Approved')
    assert.equal((await stateOf(pennon, approved)).state, 'Approved')
    assert.deepEqual(await actionable(pennon, author), { total: 2 })
    assert.deepEqual(await actionable(pennon, reviewer), { total: 2 })
    assert.deepEqual(await actionable(pennon, second), { total: 3 })

    // Scheduled and pending: nothing to do; failed: to schedule again, apply or end.
    await move(pennon, author, approved, 'Scheduled', { scheduledAt: inMs(3_600_000) })
    assert.deepEqual(await actionable(pennon, author), { total: 1 })
    const failing = await request(pennon, author, { feature: 'checkout', action: 'deleteStrategy', payload: { id: strategy.id } })
    await move(pennon, author, failing, 'In review')
    await move(pennon, reviewer, failing, 'Approved')
    await move(pennon, author, failing, 'Scheduled', { scheduledAt: inMs(300) })
    const gone = await call(pennon, 'DELETE', `${projectPath()}/features/checkout/environments/${PROD}/strategies/${strategy.id}`)
    assert.equal(gone.status, 200, gone.text)
    await eventually(async () => (await stateOf(pennon, failing)).schedule?.status === 'failed', 'the failed schedule')
    assert.deepEqual(await actionable(pennon, author), { total: 2 })
    assert.deepEqual(await actionable(pennon, second), { total: 3 })

    // Suspended (the person who scheduled it may no longer apply): the same.
    const userId = await createUser(pennon, 'scheduler@example.com', 2)
    const scheduler = asBrowser(await signIn(pennon, 'scheduler@example.com'))
    const suspended = await request(pennon, author, switchOn)
    await move(pennon, author, suspended, 'In review')
    await move(pennon, reviewer, suspended, 'Approved')
    await move(pennon, scheduler, suspended, 'Scheduled', { scheduledAt: inMs(3_600_000) })
    assert.deepEqual(await actionable(pennon, author), { total: 2 })
    assert.equal((await call(pennon, 'PUT', `/api/admin/user-admin/${userId}`, { rootRole: 3 })).status, 200)
    assert.equal((await stateOf(pennon, suspended)).schedule.status, 'suspended')
    assert.deepEqual(await actionable(pennon, author), { total: 3 })
    assert.deepEqual(await actionable(pennon, reviewer), { total: 3 })
    assert.deepEqual(await actionable(pennon, second), { total: 4 })
    assert.deepEqual(await actionable(pennon, admin), { total: 4 })
    assert.deepEqual(await actionable(pennon, viewer), { total: 0 })
    // The demoted scheduler (signed in again: the role change ended their session) may act on nothing.
    assert.deepEqual(await actionable(pennon, asBrowser(await signIn(pennon, 'scheduler@example.com'))), { total: 0 })

    // Closed requests count for no one; other projects see none of these.
    await move(pennon, reviewer, inReview, 'Rejected')
    await move(pennon, author, failing, 'Cancelled')
    await move(pennon, reviewer, suspended, 'Applied')
    assert.deepEqual(await actionable(pennon, second), { total: 1 })
    assert.deepEqual(await actionable(pennon, author), { total: 1 })
    const other = await call(pennon, 'GET', '/api/admin/projects/other/change-requests/actionable', undefined, second)
    assert.equal(other.status, 200, other.text)
    assert.deepEqual(other.body, { total: 0 })
  })
})
