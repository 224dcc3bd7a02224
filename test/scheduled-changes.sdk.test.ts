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

/** The approved request `id` (switch `checkout` on) scheduled 2 s from now through `pennon`: when. */
async function scheduleIn2s(pennon: TestApp, { author, id }: { author: string; id: number }): Promise<string> {
  const scheduledAt = inMs(2000)
  const scheduled = await setState(pennon, author, id, 'Scheduled', { scheduledAt })
  assert.equal(scheduled.status, 200, scheduled.text)
  assert.deepEqual(scheduled.body.schedule, { scheduledAt, status: 'pending' })
  return scheduledAt
}

/** How long after the time `sdk` sees `checkout` switch on (never before it), the request then Applied. */
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
    const request = await approvedRequest(pennon)
    const sdk = await sdkOf(t, base, await productionClientToken(pennon), undefined, POLL_MS)
    const scheduledAt = await scheduleIn2s(pennon, request)
    const late = await seenAfter(pennon, sdk, request.id, scheduledAt)
    const bound = POLL_MS + pennon.config.changeRequestSchedulerIntervalMs + MARGIN_MS
    assert.ok(late <= bound, `seen ${late} ms after the time (bound: ${bound} ms)`)
    t.diagnostic(`seen ${late} ms after the time`)
    // Before the app closes (the after hooks run in the order they were added).
    sdk.destroy()
  })

  test('a streaming SDK sees the flag switch under 1 s after the time, not before', async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listening(pennon)
    const request = await approvedRequest(pennon)
    // Polling once a minute: what it sees within the test came by the stream.
    const sdk = await sdkOf(t, base, await productionClientToken(pennon), { type: 'streaming' })
    const scheduledAt = await scheduleIn2s(pennon, request)
    const late = await seenAfter(pennon, sdk, request.id, scheduledAt)
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
    const request = await approvedRequest(applying)
    const sdk = await sdkOf(t, base, await productionClientToken(applying), { type: 'streaming' })
    const scheduledAt = await scheduleIn2s(applying, request)
    const late = await seenAfter(applying, sdk, request.id, scheduledAt)
    assert.ok(late < STREAMING_DEADLINE_MS, `seen ${late} ms after the time`)
    t.diagnostic(`seen ${late} ms after the time`)
    // Before the app closes (the after hooks run in the order they were added).
    sdk.destroy()
  })
})
