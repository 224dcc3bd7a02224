/**
 * Maintenance mode through the real app on each database: the setting read and toggled, admin
 * changes refused with the exact 503 while it is on (but turning it off), reads, sign-in and
 * the SDK APIs serving on; and two instances on one database, where one's toggle holds in the
 * other at once.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  allEvents,
  apiToken,
  call,
  errorOf,
  eventually,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  useTwoInstances,
  withoutId,
} from '../../../test/test-app.ts'
import { createFlag } from '../../../test/helpers/flags.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

const MAINTENANCE = '/api/admin/maintenance'
const REFUSED = errorOf(
  'MaintenanceModeError',
  'Pennon is in maintenance mode: changes are refused until an admin turns it off (POST /api/admin/maintenance with {"enabled": false}).',
)

onEachDatabase('maintenance mode', (database) => {
  test('GET and POST /maintenance: off by default, on, off; ADMIN only; a bad body is a 400', async (t) => {
    const pennon = await useTestApp(t, database)
    const initially = await call(pennon, 'GET', MAINTENANCE)
    assert.equal(initially.status, 200)
    assert.deepEqual(initially.body, { enabled: false })

    const on = await call(pennon, 'POST', MAINTENANCE, { enabled: true })
    assert.equal(on.status, 204)
    assert.equal(on.text, '')
    assert.deepEqual((await call(pennon, 'GET', MAINTENANCE)).body, { enabled: true })
    const off = await call(pennon, 'POST', MAINTENANCE, { enabled: false })
    assert.equal(off.status, 204)
    assert.deepEqual((await call(pennon, 'GET', MAINTENANCE)).body, { enabled: false })

    const editor = await serviceAccountToken(pennon, 2)
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', { enabled: true }],
    ] as const) {
      const refused = await call(pennon, method, MAINTENANCE, body, { token: editor })
      assert.equal(refused.status, 403)
      assert.deepEqual(refused.body.permissions, ['ADMIN'])
    }
    const bad = await call(pennon, 'POST', MAINTENANCE, { enabled: 'yes' })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.details[0].path, '/body/enabled')
    assert.equal((await call(pennon, 'POST', MAINTENANCE, {})).status, 400)
    assert.deepEqual((await call(pennon, 'GET', MAINTENANCE)).body, { enabled: false })
  })

  test('while on: admin changes are a 503 and change nothing; reads, the SDK APIs and sign-in go on; off: changes again', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features/checkout/environments/development/on')).status, 200)
    const client = await apiToken(pennon, 'client')
    const frontend = await apiToken(pennon, 'frontend')
    await createUser(pennon, 'ada@example.com', 1)
    const viewerToken = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'POST', MAINTENANCE, { enabled: true })).status, 204)

    const writes = [
      ['POST', '/api/admin/projects/default/features', { name: 'blocked' }],
      ['PUT', '/api/admin/projects/default/features/checkout', { description: 'blocked' }],
      ['PATCH', '/api/admin/projects/default/features/checkout', [{ op: 'replace', path: '/description', value: 'blocked' }]],
      ['DELETE', '/api/admin/projects/default/features/checkout', undefined],
      ['POST', '/api/admin/projects/default/features/checkout/environments/development/off', undefined],
      ['POST', '/api/admin/api-tokens', { tokenName: 'blocked', type: 'client' }],
    ] as const
    for (const [method, url, body] of writes) {
      const refused = await call(pennon, method, url, body)
      assert.equal(refused.status, 503, `${method} ${url}`)
      assert.deepEqual(withoutId(refused.body), REFUSED, `${method} ${url}`)
    }
    // Permission first: what the caller may not do at all stays a 403.
    const viewer = await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'x' }, { token: viewerToken })
    assert.equal(viewer.status, 403)

    const flag = await call(pennon, 'GET', '/api/admin/projects/default/features/checkout')
    assert.equal(flag.status, 200)
    assert.equal(flag.body.description, null)
    assert.equal(flag.body.archived, false)
    const features = await call(pennon, 'GET', '/api/client/features', undefined, { token: client })
    assert.equal(features.status, 200)
    assert.deepEqual(
      features.body.features.map((f: any) => [f.name, f.enabled]),
      [['checkout', true]],
    )
    const toggles = await call(pennon, 'GET', '/api/frontend', undefined, { token: frontend })
    assert.equal(toggles.status, 200)
    assert.deepEqual(
      toggles.body.toggles.map((toggle: any) => toggle.name),
      ['checkout'],
    )
    const ofrep = await call(pennon, 'POST', '/ofrep/v1/evaluate/flags/checkout', { context: { targetingKey: 'u' } }, { token: frontend })
    assert.equal(ofrep.status, 200)
    assert.equal(ofrep.body.value, true)
    const registered = await call(
      pennon,
      'POST',
      '/api/client/register',
      { appName: 'shop', instanceId: 'i-1', strategies: ['default'], started: new Date().toISOString(), interval: 10_000 },
      { token: client },
    )
    assert.equal(registered.status, 202, registered.text)
    // Signing in and out stays open: an Admin person can turn maintenance off.
    const cookie = await signIn(pennon, 'ada@example.com')
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'x' }, asBrowser(cookie))).status, 503)
    assert.equal((await call(pennon, 'POST', MAINTENANCE, { enabled: false }, asBrowser(cookie))).status, 204)
    assert.equal((await call(pennon, 'POST', '/logout', undefined, asBrowser(cookie))).status, 200)

    const created = await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'allowed' })
    assert.equal(created.status, 201, created.text)
  })

  test("the potentially-stale scan pauses while it is on, as the reference's scheduled jobs do", async (t) => {
    const pennon = await useTestApp(t, database, { env: { STALE_SCAN_INTERVAL_SECONDS: '1' } })
    await createFlag(pennon, 'old-release')
    assert.equal((await call(pennon, 'POST', MAINTENANCE, { enabled: true })).status, 204)
    const created = new Date(Date.now() - 41 * 86_400_000).toISOString()
    await pennon.database.db.updateTable('features').set({ created_at: created }).where('name', '=', 'old-release').execute()
    const announced = async () => (await allEvents(pennon)).filter((event) => event.type === 'feature-potentially-stale-on').length
    await sleep(2_500) // two runs of the scan
    assert.equal(await announced(), 0)
    assert.equal((await call(pennon, 'POST', MAINTENANCE, { enabled: false })).status, 204)
    await eventually(async () => (await announced()) === 1, 'the announcement once maintenance is off', 5_000)
  })

  test('two instances on one database: one turns maintenance on, the other refuses changes at once, and serves them again once off', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    const write = (name: string) => call(second, 'POST', '/api/admin/projects/default/features', { name })
    // The second instance has read (and remembered) the setting: off.
    assert.equal((await write('before')).status, 201)
    assert.equal((await call(first, 'POST', MAINTENANCE, { enabled: true })).status, 204)
    let attempt = 0
    await eventually(async () => (await write(`during-${attempt++}`)).status === 503, 'the second instance refuses changes', 2_000)
    const refused = await write('during')
    assert.equal(refused.status, 503)
    assert.deepEqual(withoutId(refused.body), REFUSED)
    assert.deepEqual((await call(second, 'GET', MAINTENANCE)).body, { enabled: true })

    assert.equal((await call(second, 'POST', MAINTENANCE, { enabled: false }, { token: first.adminToken })).status, 204)
    await eventually(
      async () => (await call(first, 'POST', '/api/admin/projects/default/features', { name: `after-${attempt++}` })).status === 201,
      'the first instance accepts changes',
      2_000,
    )
  })
})
