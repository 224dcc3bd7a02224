/**
 * A scheduled change request falling due at the very moment the person who scheduled it is
 * deleted: the scheduler's apply claims the request row (FOR UPDATE SKIP LOCKED on PostgreSQL),
 * the deletion locks the user's pending schedules (FOR UPDATE) before suspending them. Whichever
 * takes the row first wins, and the other finds it no longer pending: each request ends exactly
 * one of Applied or suspended, never both, never neither.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { approvedRequest, CR, PROD, setState } from './helpers/change-requests.ts'
import { projectPath } from './helpers/flags.ts'
import { asBrowser, createUser, signIn } from './people.ts'
import { allEvents, call, onEachDatabase, useTestApp, type TestApp } from './test-app.ts'

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 12)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What became of request `id`: the state, the schedule's status, and its applied and suspended events. */
async function outcomeOf(pennon: TestApp, id: number) {
  const request = (await call(pennon, 'GET', `${CR}/${id}`)).body
  const events = (await allEvents(pennon)).filter((event) => event.data?.changeRequestId === id)
  const count = (type: string) => events.filter((event) => event.type === type).length
  return {
    state: request.state,
    schedule: request.schedule?.status,
    applied: count('change-request-applied'),
    suspended: count('change-request-schedule-suspended'),
  }
}

const APPLIED = { state: 'Applied', schedule: undefined, applied: 1, suspended: 0 }
const SUSPENDED = { state: 'Scheduled', schedule: 'suspended', applied: 0, suspended: 1 }

onEachDatabase('a schedule falling due as its person is deleted, raced', (database) => {
  test(`${ROUNDS} rounds: the scheduler's apply and the deletion at the same moment, each request Applied or suspended, once`, {
    timeout: 300_000,
  }, async (t) => {
    // The scheduler passes at each request's time (scheduler.ts), so it runs within milliseconds of it.
    const pennon = await useTestApp(t, database, { env: { CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '1000' } })
    const { author, reviewer } = await approvedRequest(pennon)
    const ids: number[] = []
    const tally = { applied: 0, suspended: 0 }
    for (let round = 0; round < ROUNDS; round++) {
      const added = await call(
        pennon,
        'POST',
        `${projectPath()}/environments/${PROD}/change-requests`,
        { feature: 'checkout', action: 'updateEnabled', payload: { enabled: round % 2 === 0 } },
        { token: author },
      )
      assert.equal(added.status, 200, added.text)
      const id: number = added.body.id
      assert.equal((await setState(pennon, author, id, 'In review')).status, 200)
      assert.equal((await setState(pennon, reviewer, id, 'Approved')).status, 200)
      const email = `scheduler-${round}@example.com`
      const userId = await createUser(pennon, email, 2)
      const scheduler = asBrowser(await signIn(pennon, email))
      const scheduledAt = new Date(Date.now() + 300).toISOString()
      const scheduled = await call(pennon, 'PUT', `${CR}/${id}/state`, { state: 'Scheduled', scheduledAt }, scheduler)
      assert.equal(scheduled.status, 200, scheduled.text)

      // The deletion sent around the moment the scheduler wakes: from 6 ms before to 5 ms after.
      await sleep(Math.max(0, Date.parse(scheduledAt) - Date.now() + (round % 12) - 6))
      const deleted = await call(pennon, 'DELETE', `/api/admin/user-admin/${userId}`)
      assert.equal(deleted.status, 200, deleted.text)
      // Decided once the deletion answered: applied before it, or suspended by it.
      const outcome = await outcomeOf(pennon, id)
      assert.deepEqual(outcome, outcome.state === 'Applied' ? APPLIED : SUSPENDED, `round ${round}`)
      tally[outcome.state === 'Applied' ? 'applied' : 'suspended']++
      ids.push(id)
    }
    // Later passes of the scheduler change none of them.
    await sleep(1200)
    for (const [round, id] of ids.entries()) {
      const outcome = await outcomeOf(pennon, id)
      assert.deepEqual(outcome, outcome.state === 'Applied' ? APPLIED : SUSPENDED, `round ${round}, later`)
    }
    t.diagnostic(`applied ${tally.applied}, suspended ${tally.suspended}`)
  })
})
