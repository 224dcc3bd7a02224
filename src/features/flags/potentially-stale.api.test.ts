/**
 * The potentially-stale scan through the real app on each database: the app's timer marks a flag
 * past its type's lifetime and writes `feature-potentially-stale-on` once, as the event log shows
 * it and an integration receives it; which flags a run marks and unmarks; and two instances
 * scanning one database at once write each flag's event once.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { allEvents, call, eventually, onEachDatabase, useTestApp, useTwoInstances, type TestApp } from '../../../test/test-app.ts'
import { archive, createFlag, projectPath } from '../../../test/helpers/flags.ts'
import { EVENT_KEYS } from '../../../test/helpers/events.ts'
import { tagFlag } from '../../../test/helpers/tags.ts'
import { startReceiver } from '../../../test/webhook-receiver.ts'
import { scanPotentiallyStale } from './potentially-stale-scan.ts'
import * as migration0017 from '../../db/migrations/0017-potentially-stale.ts'

const DAY = 86_400_000
const TYPE = 'feature-potentially-stale-on'

/** Moves a flag's creation `days` into the past (as if it had lived that long). */
async function age(pennon: TestApp, name: string, days: number): Promise<void> {
  const createdAt = new Date(Date.now() - days * DAY).toISOString()
  await pennon.database.db.updateTable('features').set({ created_at: createdAt }).where('name', '=', name).execute()
}

const staleEvents = async (pennon: TestApp) => (await allEvents(pennon)).filter((event) => event.type === TYPE)

const markStale = async (pennon: TestApp, features: string[], stale: boolean) =>
  assert.equal((await call(pennon, 'POST', `${projectPath()}/stale`, { features, stale })).status, 202)

const setLifetime = async (pennon: TestApp, type: string, lifetimeDays: number) =>
  assert.equal((await call(pennon, 'PUT', `/api/admin/feature-types/${type}/lifetime`, { lifetimeDays })).status, 200)

onEachDatabase('potentially stale flags', (database) => {
  test("the app's scan announces a flag past its lifetime once: the event as the log shows it, received by an integration", async (t) => {
    const receiver = await startReceiver()
    t.after(() => receiver.stop())
    const pennon = await useTestApp(t, database, {
      env: { STALE_SCAN_INTERVAL_SECONDS: '1', INTEGRATIONS_ALLOWED_HOSTS: '127.0.0.1', INTEGRATIONS_POLL_MS: '50' },
    })
    const hook = await call(pennon, 'POST', '/api/admin/addons', {
      provider: 'webhook',
      enabled: true,
      parameters: { url: `${receiver.url}/stale` },
      events: [TYPE],
    })
    assert.equal(hook.status, 201, hook.text)
    await createFlag(pennon, 'old-release')
    await createFlag(pennon, 'young-release')
    await tagFlag(pennon, 'old-release', 'simple', 'cleanup')
    await age(pennon, 'old-release', 41)
    await age(pennon, 'young-release', 39)

    await eventually(async () => (await receiver.received()).length === 1, 'the delivery of the event', 10_000)
    await sleep(2_500) // two more runs of the scan: nothing more to announce
    const [event, ...more] = await staleEvents(pennon)
    assert.deepEqual(more, [], 'one event')
    const history = await call(pennon, 'GET', '/api/admin/events/old-release')
    assert.equal(history.status, 200)
    assert.deepEqual(history.body.events[0], event)
    assert.deepEqual(Object.keys(event), EVENT_KEYS)
    assert.match(event.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.match(event.groupId, /^[0-9a-f-]{36}$/)
    assert.deepEqual(event, {
      id: event.id,
      type: TYPE,
      createdBy: 'system',
      createdAt: event.createdAt,
      createdByUserId: -1337,
      data: null,
      preData: null,
      tags: [{ value: 'cleanup', type: 'simple' }],
      featureName: 'old-release',
      project: 'default',
      environment: null,
      groupType: 'system',
      groupId: event.groupId,
    })
    const stored = await pennon.database.db.selectFrom('events').select('json').where('id', '=', event.id).executeTakeFirstOrThrow()
    const deliveries = await receiver.received()
    assert.deepEqual(
      deliveries.map((delivery) => [delivery.path, delivery.body]),
      [['/stale', stored.json]],
      'exactly that event, byte for byte',
    )
    // Reads compute it from the flag's age: the same answer.
    const read = await call(pennon, 'GET', `${projectPath()}/features/old-release`)
    assert.deepEqual([read.status, read.body.potentiallyStale], [200, true])
    const young = await call(pennon, 'GET', `${projectPath()}/features/young-release`)
    assert.deepEqual([young.status, young.body.potentiallyStale], [200, false])
  })

  test('which flags a run marks: by type and age, never stale or archived ones; a mark undone by a longer lifetime is announced again', async (t) => {
    const pennon = await useTestApp(t, database)
    const types = { op: 'operational', rel: 'release', exp: 'experiment', sun: 'sunset', kill: 'kill-switch', perm: 'permission' }
    for (const [name, type] of Object.entries(types)) await createFlag(pennon, name, 'default', { type })
    await createFlag(pennon, 'shelved')
    await createFlag(pennon, 'gone')
    await markStale(pennon, ['shelved'], true)
    assert.equal((await archive(pennon, ['gone'])).status, 202)
    const scan = async (days: number) => scanPotentiallyStale(pennon.database.db, { now: Date.now() + days * DAY })

    assert.deepEqual(await scan(1), { marked: [], unmarked: 0 })
    assert.deepEqual(await scan(8), { marked: ['op'], unmarked: 0 })
    assert.deepEqual(await scan(8), { marked: [], unmarked: 0 }, 'announced once')
    assert.deepEqual(await scan(41), { marked: ['exp', 'rel'], unmarked: 0 })
    assert.deepEqual(await scan(91), { marked: ['sun'], unmarked: 0 })
    assert.deepEqual(await scan(10_000), { marked: [], unmarked: 0 }, 'kill switches and permissions never; stale and archived flags not')

    // A longer lifetime unmarks, without an event; back to 40 days, the flag is announced again.
    await setLifetime(pennon, 'release', 100)
    assert.deepEqual(await scan(91), { marked: [], unmarked: 1 })
    await setLifetime(pennon, 'release', 40)
    assert.deepEqual(await scan(91), { marked: ['rel'], unmarked: 0 })

    // Stale and back keeps the mark (not announced again); a flag never announced is, once no longer stale.
    await markStale(pennon, ['op', 'shelved'], true)
    await markStale(pennon, ['op', 'shelved'], false)
    assert.deepEqual(await scan(91), { marked: ['shelved'], unmarked: 0 })

    const events = await staleEvents(pennon)
    assert.deepEqual(
      events.map((event) => [
        event.featureName,
        event.project,
        event.createdBy,
        event.createdByUserId,
        event.data,
        event.preData,
        event.tags,
      ]),
      ['op', 'exp', 'rel', 'sun', 'rel', 'shelved'].map((name) => [name, 'default', 'system', -1337, null, null, []]),
    )
    assert.deepEqual(
      events.map((event) => event.groupType),
      events.map(() => 'system'),
    )
    assert.equal(new Set(events.map((event) => event.groupId)).size, 6, 'one group per transaction (one per type and run here)')
  })

  test('a run with nothing to do writes nothing: the cached answers stay (the change watch does not move)', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'fresh')
    await createFlag(pennon, 'announced', 'default', { type: 'operational' })
    assert.deepEqual(await scanPotentiallyStale(pennon.database.db, { now: Date.now() + 8 * DAY }), { marked: ['announced'], unmarked: 0 })
    const watch = pennon.database.watchChanges()
    // On PostgreSQL this instance hears its own writes once more, a moment after them: until then the version moves.
    await eventually(async () => {
      const settled = watch.version()
      await sleep(200)
      return settled !== undefined && watch.version() === settled
    }, 'the watch is ready and settled')
    const before = watch.version()
    assert.deepEqual(await scanPotentiallyStale(pennon.database.db, { now: Date.now() + 8 * DAY }), { marked: [], unmarked: 0 })
    await sleep(100) // room for a (wrong) notification to arrive
    assert.equal(watch.version(), before)
  })

  test('the upgrade that adds the mark marks the flags already past their lifetime, without an event', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const name of ['outlived', 'young', 'shelved']) await createFlag(pennon, name)
    await age(pennon, 'outlived', 41)
    await age(pennon, 'shelved', 41)
    await markStale(pennon, ['shelved'], true)
    // The schema as it was before migration 0017, then that migration again.
    await migration0017.down(pennon.database.db)
    await migration0017.up(pennon.database.db)
    const marks = await pennon.database.db.selectFrom('features').select(['name', 'potentially_stale']).orderBy('name').execute()
    assert.deepEqual(
      marks.map((row) => [row.name, Boolean(row.potentially_stale)]),
      [
        ['outlived', true],
        ['shelved', false],
        ['young', false],
      ],
    )
    assert.deepEqual(await scanPotentiallyStale(pennon.database.db), { marked: [], unmarked: 0 })
    await markStale(pennon, ['shelved'], false)
    assert.deepEqual(await scanPotentiallyStale(pennon.database.db), { marked: ['shelved'], unmarked: 0 })
    assert.deepEqual(
      (await staleEvents(pennon)).map((event) => event.featureName),
      ['shelved'],
    )
  })
})

onEachDatabase('potentially stale flags, two instances', (database) => {
  test('scans run at once by two instances on one database announce each flag once', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    const names = Array.from({ length: 40 }, (_, index) => `op-${String(index).padStart(2, '0')}`)
    for (const name of names) await createFlag(first, name, 'default', { type: 'operational' })
    const options = { now: Date.now() + 8 * DAY, batch: 3 }
    const runs = await Promise.all([first, second, first, second].map((pennon) => scanPotentiallyStale(pennon.database.db, options)))
    const marked = runs.flatMap((run) => run.marked)
    assert.deepEqual([...marked].sort(), names, 'every flag marked, by one run only')
    const announced = (await staleEvents(first)).map((event) => event.featureName)
    assert.deepEqual([...announced].sort(), names, 'one event per flag')
    assert.deepEqual((await staleEvents(second)).length, names.length)
  })
})
