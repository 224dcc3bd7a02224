/**
 * A scheduled change request seen by the real Node SDK (`unleash-client`) on each database, with
 * the scheduler at its default interval: a polling SDK sees the flag switch at its first poll after
 * the scheduler's pass, never before the time; a streaming one under 1 s after the time, also when
 * it is connected to another instance than the one that applied it (docs/change-requests.md#scheduling).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Unleash } from 'unleash-client'
import { approvedRequest, CR, inMs, productionClientToken, setState } from './helpers/change-requests.ts'
import { listening, sdkOf } from './sdk.ts'
import { call, createAppStorage, createTestApp, onEachDatabase, useTestApp, type TestApp } from './test-app.ts'

const POLL_MS = 500
/** What the apply itself and the SDK's handling of the answer may take, beyond the intervals. */
const MARGIN_MS = 250
/** Streaming: the flip seen this soon after the time. */
const STREAMING_DEADLINE_MS = 1000

/** When (ms since the epoch) `sdk` first evaluates `flag` on, heard from its `changed` event; fails after `ms`. */
function switchedOnAt(sdk: Unleash, flag: string, ms = 10_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!sdk.isEnabled(flag)) return
      const at = Date.now()
      clearTimeout(timer)
      sdk.off('changed', check)
      resolve(at)
    }
    const timer = setTimeout(() => {
      sdk.off('changed', check)
      reject(new Error(`the SDK did not see ${flag} on within ${ms} ms`))
    }, ms)
    sdk.on('changed', check)
  })
}

/** `checkout` scheduled to be switched on 2 s from now through `pennon`: when, and the request's id. */
async function scheduleSwitchOn(pennon: TestApp): Promise<{ id: number; scheduledAt: string }> {
  const { author, id } = await approvedRequest(pennon)
  const scheduledAt = inMs(2000)
  const scheduled = await setState(pennon, author, id, 'Scheduled', { scheduledAt })
  assert.equal(scheduled.status, 200, scheduled.text)
  assert.deepEqual(scheduled.body.schedule, { scheduledAt, status: 'pending' })
  return { id, scheduledAt }
}

/** The flip seen `sdk` after the time (never before), and the request Applied. */
async function seenAfter(pennon: TestApp, sdk: Unleash, id: number, scheduledAt: string): Promise<number> {
  assert.equal(sdk.isEnabled('checkout'), false)
  const seenAt = await switchedOnAt(sdk, 'checkout')
  const late = seenAt - Date.parse(scheduledAt)
  assert.ok(late >= 0, `seen ${-late} ms before the time it was scheduled at`)
  const request = await call(pennon, 'GET', `${CR}/${id}`)
  assert.equal(request.body.state, 'Applied')
  return late
}

onEachDatabase('scheduled change requests seen by the Node SDK', (database) => {
  test('a polling SDK sees the flag switch within one poll interval plus the scheduler interval of the time, not before', async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listening(pennon)
    const { id, scheduledAt } = await scheduleSwitchOn(pennon)
    const sdk = await sdkOf(t, base, await productionClientToken(pennon), undefined, POLL_MS)
    const late = await seenAfter(pennon, sdk, id, scheduledAt)
    const bound = POLL_MS + pennon.config.changeRequestSchedulerIntervalMs + MARGIN_MS
    assert.ok(late <= bound, `seen ${late} ms after the time (bound: ${bound} ms)`)
    t.diagnostic(`seen ${late} ms after the time`)
    // Before the app closes (the after hooks run in the order they were added).
    sdk.destroy()
  })

  test('a streaming SDK sees the flag switch under 1 s after the time, not before', async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listening(pennon)
    const { id, scheduledAt } = await scheduleSwitchOn(pennon)
    // Polling once a minute: what it sees within the test came by the stream.
    const sdk = await sdkOf(t, base, await productionClientToken(pennon), { type: 'streaming' })
    const late = await seenAfter(pennon, sdk, id, scheduledAt)
    assert.ok(late < STREAMING_DEADLINE_MS, `seen ${late} ms after the time`)
    t.diagnostic(`seen ${late} ms after the time`)
    // Before the app closes (the after hooks run in the order they were added).
    sdk.destroy()
  })

  test('applied by one instance, seen under 1 s after the time by a streaming SDK of another on the same database', async (t) => {
    const storage = await createAppStorage(database)
    const applying = await createTestApp(database, { storage })
    // The other's scheduler never passes during the test: only the first instance applies.
    const other = await createTestApp(database, { storage, env: { CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '3600000' } })
    t.after(async () => {
      await other.close()
      await applying.close()
      await storage.drop()
    })
    const base = await listening(other)
    const { id, scheduledAt } = await scheduleSwitchOn(applying)
    const sdk = await sdkOf(t, base, await productionClientToken(applying), { type: 'streaming' })
    const late = await seenAfter(applying, sdk, id, scheduledAt)
    assert.ok(late < STREAMING_DEADLINE_MS, `seen ${late} ms after the time`)
    t.diagnostic(`seen ${late} ms after the time`)
    // Before the app closes (the after hooks run in the order they were added).
    sdk.destroy()
  })
})
