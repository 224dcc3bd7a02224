/**
 * An admin's changes to applications (POST and DELETE /metrics/applications/:appName) and the
 * outdated SDKs, through the real app on each database: exact bodies, permissions, bad input.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, apiToken, call, onEachDatabase, serviceAccountToken, useTestApp, type TestApp } from '../../../test/test-app.ts'

const APP = '/api/admin/metrics/applications'
const started = new Date().toISOString()

async function register(pennon: TestApp, token: string, appName: string, instanceId: string, sdkVersion: string) {
  const registered = await call(
    pennon,
    'POST',
    '/api/client/register',
    { appName, instanceId, sdkVersion, strategies: ['default'], started, interval: 10_000 },
    { token },
  )
  assert.equal(registered.status, 202, registered.text)
  await pennon.metrics.flush()
}

onEachDatabase('applications: admin changes', (database) => {
  test('POST creates an application, then updates only what is given; GET shows it; no event', async (t) => {
    const pennon = await useTestApp(t, database)
    const eventsBefore = (await allEvents(pennon)).length
    const created = await call(pennon, 'POST', `${APP}/billing`, {
      description: 'Invoices and payments',
      url: 'https://example.com/billing',
      color: 'red',
    })
    assert.equal(created.status, 202, created.text)
    assert.equal(created.text, '')
    const read = await call(pennon, 'GET', `${APP}/billing`)
    assert.equal(read.status, 200)
    const { createdAt, ...rest } = read.body
    assert.match(createdAt, /^\d{4}-/)
    assert.deepEqual(rest, {
      appName: 'billing',
      strategies: [],
      description: 'Invoices and payments',
      url: 'https://example.com/billing',
      color: 'red',
      usage: [{ project: '*', environments: ['*'] }],
      instances: [],
      seenToggles: [],
    })

    const updated = await call(pennon, 'POST', `${APP}/billing`, { strategies: ['default', 'custom'], icon: 'https://example.com/i.png' })
    assert.equal(updated.status, 202)
    const list = await call(pennon, 'GET', APP)
    assert.deepEqual(list.body, {
      total: 1,
      applications: [
        {
          appName: 'billing',
          strategies: ['default', 'custom'],
          description: 'Invoices and payments',
          url: 'https://example.com/billing',
          color: 'red',
          icon: 'https://example.com/i.png',
          usage: [{ project: '*', environments: ['*'] }],
        },
      ],
    })
    // An empty body is a valid one: it only marks the application seen.
    assert.equal((await call(pennon, 'POST', `${APP}/other`, {})).status, 202)
    assert.equal((await allEvents(pennon)).length, eventsBefore)
  })

  test('POST keeps what an SDK registered; DELETE forgets the application and its instances, known or not', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await register(pennon, client, 'shop', 'pod-1', 'unleash-node-sdk:6.12.1')
    assert.equal((await call(pennon, 'POST', `${APP}/shop`, { color: 'blue' })).status, 202)
    const read = await call(pennon, 'GET', `${APP}/shop`)
    assert.equal(read.body.sdkVersion, 'unleash-node-sdk:6.12.1')
    assert.deepEqual(read.body.strategies, ['default'])
    assert.equal(read.body.color, 'blue')
    assert.equal(read.body.instances.length, 1)

    const deleted = await call(pennon, 'DELETE', `${APP}/shop`)
    assert.equal(deleted.status, 200)
    assert.equal(deleted.text, '')
    assert.equal((await call(pennon, 'GET', `${APP}/shop`)).status, 404)
    assert.deepEqual((await call(pennon, 'GET', APP)).body, { total: 0, applications: [] })
    const instances = await pennon.database.db.selectFrom('client_instances').select('app_name').where('app_name', '=', 'shop').execute()
    assert.deepEqual(instances, [])
    assert.equal((await call(pennon, 'DELETE', `${APP}/never-was`)).status, 200)
  })

  test('permissions: UPDATE_APPLICATION (Editors and Admins); bad bodies are 400s', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2)
    for (const [method, body] of [
      ['POST', { color: 'red' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await call(pennon, method, `${APP}/shop`, body, { token: viewer })
      assert.equal(refused.status, 403)
      assert.deepEqual(refused.body.permissions, ['UPDATE_APPLICATION'])
    }
    assert.equal((await call(pennon, 'POST', `${APP}/shop`, { color: 'red' }, { token: editor })).status, 202)
    assert.equal((await call(pennon, 'DELETE', `${APP}/shop`, undefined, { token: editor })).status, 200)
    assert.equal((await call(pennon, 'POST', `${APP}/shop`, { color: 'red' }, { token: null })).status, 401)

    const bad = await call(pennon, 'POST', `${APP}/shop`, { strategies: 'default' })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.name, 'ValidationError')
    assert.equal(bad.body.details[0].path, '/body/strategies')
    assert.equal((await call(pennon, 'POST', `${APP}/shop`, { url: 'x'.repeat(1001) })).status, 400)
    assert.equal((await call(pennon, 'POST', `${APP}/${'a'.repeat(256)}`, {})).status, 400)
    assert.equal((await call(pennon, 'GET', `${APP}/shop`)).status, 404)
  })
})

onEachDatabase('applications: outdated SDKs', (database) => {
  test('GET /metrics/sdks/outdated and /projects/:projectId/sdks/outdated: versions below the minimum, with their applications', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/metrics/sdks/outdated')).body, { sdks: [] })
    const client = await apiToken(pennon, 'client')
    await register(pennon, client, 'checkout', 'pod-1', 'unleash-node-sdk:5.0.0')
    await register(pennon, client, 'checkout', 'pod-2', 'unleash-node-sdk:6.12.1')
    await register(pennon, client, 'billing', 'pod-1', 'unleash-node-sdk:5.0.0')
    await register(pennon, client, 'billing', 'pod-2', 'unleash-client-java:7.0.0')
    await register(pennon, client, 'other', 'pod-1', 'my-own-sdk:0.0.1')
    await register(pennon, client, 'other', 'pod-2', 'unleash-node-sdk:not-semver')

    const all = await call(pennon, 'GET', '/api/admin/metrics/sdks/outdated')
    assert.equal(all.status, 200)
    assert.deepEqual(all.body, {
      sdks: [
        { sdkVersion: 'unleash-client-java:7.0.0', applications: ['billing'] },
        { sdkVersion: 'unleash-node-sdk:5.0.0', applications: ['billing', 'checkout'] },
      ],
    })

    // A project's: the applications whose counts name its flags.
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'paid' })).status, 201)
    const counted = await call(
      pennon,
      'POST',
      '/api/client/metrics',
      {
        appName: 'checkout',
        instanceId: 'pod-1',
        bucket: { start: new Date(Date.now() - 1000).toISOString(), stop: new Date().toISOString(), toggles: { paid: { yes: 1 } } },
      },
      { token: client },
    )
    assert.equal(counted.status, 202)
    await pennon.metrics.flush()
    const project = await call(pennon, 'GET', '/api/admin/projects/default/sdks/outdated')
    assert.equal(project.status, 200)
    assert.deepEqual(project.body, { sdks: [{ sdkVersion: 'unleash-node-sdk:5.0.0', applications: ['checkout'] }] })

    const unknown = await call(pennon, 'GET', '/api/admin/projects/nope/sdks/outdated')
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.name, 'NotFoundError')
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'GET', '/api/admin/metrics/sdks/outdated', undefined, { token: viewer })).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/metrics/sdks/outdated', undefined, { token: null })).status, 401)
  })
})
