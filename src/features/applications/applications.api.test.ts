/**
 * The application reads fed by direct posts (register and metrics, on the client and frontend
 * routes, with admin, client and frontend tokens): exact bodies, 404s, paging and search bounds.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'

let unique = 0
const name = (prefix: string) => `${prefix}-${process.pid}-${++unique}`
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

async function ok(pennon: TestApp, method: 'POST' | 'GET', url: string, body?: unknown, token?: string, status = 200): Promise<any> {
  const response = await call(pennon, method, url, body, token === undefined ? {} : { token })
  assert.equal(response.status, status, response.text)
  return response.body
}

const started = new Date().toISOString()
const stamp = () => ({ start: new Date(Date.now() - 1000).toISOString(), stop: new Date().toISOString() })

/** Replaces each ISO time by 'time' (after checking it is one), so a body compares exactly. */
function times(value: unknown): unknown {
  if (typeof value === 'string' && ISO.test(value)) return 'time'
  if (Array.isArray(value)) return value.map(times)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, times(v)]))
  return value
}

/** Two applications: checkout (server SDK, development and production) and web (browser SDK), over two projects. */
async function seed(pennon: TestApp) {
  const project = name('apps-proj')
  const [shared, local] = [name('shared'), name('local')]
  await ok(pennon, 'POST', '/api/admin/projects', { id: project, name: project }, undefined, 201)
  await ok(pennon, 'POST', `/api/admin/projects/${project}/features`, { name: shared }, undefined, 201)
  await ok(pennon, 'POST', '/api/admin/projects/default/features', { name: local }, undefined, 201)
  const client = await apiToken(pennon, 'client')
  const frontend = await apiToken(pennon, 'frontend')
  await ok(
    pennon,
    'POST',
    '/api/client/register',
    {
      appName: 'checkout',
      instanceId: 'pod-1',
      sdkVersion: 'unleash-node-sdk:5.0.0',
      strategies: ['default', 'flexibleRollout', 'my-custom', 'userWithId'],
      started,
      interval: 10000,
    },
    client,
    202,
  )
  await ok(
    pennon,
    'POST',
    '/api/client/metrics',
    {
      appName: 'checkout',
      instanceId: 'pod-1',
      bucket: { ...stamp(), toggles: { [shared]: { yes: 2, no: 0 }, [local]: { yes: 0, no: 1 }, ghost: { yes: 1 } } },
    },
    client,
    202,
  )
  await ok(
    pennon,
    'POST',
    '/api/client/metrics',
    {
      appName: 'checkout',
      instanceId: 'pod-2',
      environment: 'production',
      sdkVersion: 'unleash-node-sdk:6.12.1',
      bucket: { ...stamp(), toggles: { [local]: { yes: 4 } } },
    },
    pennon.adminToken,
    202,
  )
  await ok(
    pennon,
    'POST',
    '/api/frontend/client/metrics',
    {
      appName: 'web',
      instanceId: 'browser-1',
      sdkVersion: 'unleash-client-js:3.7.0',
      bucket: { ...stamp(), toggles: { [shared]: { yes: 1 } } },
    },
    frontend,
  )
  await pennon.metrics.flush()
  return { project, shared, local }
}

onEachDatabase('application reads', (database) => {
  test('an application: its SDK, strategies, usage, instances and the flags it reported; 404 when unknown', async (t) => {
    const pennon = await useTestApp(t, database)
    const { project, shared, local } = await seed(pennon)
    const checkout = await ok(pennon, 'GET', '/api/admin/metrics/applications/checkout')
    assert.deepEqual(
      checkout.instances.map((i: { lastSeen: string }) => i.lastSeen),
      checkout.instances
        .map((i: { lastSeen: string }) => i.lastSeen)
        .sort()
        .reverse(),
      'the latest seen first',
    )
    checkout.instances.sort((a: { instanceId: string }, b: { instanceId: string }) => (a.instanceId < b.instanceId ? -1 : 1))
    assert.deepEqual(times(checkout), {
      appName: 'checkout',
      sdkVersion: checkout.sdkVersion,
      strategies: ['default', 'flexibleRollout', 'my-custom', 'userWithId'],
      usage: [{ project: '*', environments: ['development', 'production'] }],
      createdAt: 'time',
      instances: [
        {
          instanceId: 'pod-1',
          environment: 'development',
          sdkVersion: 'unleash-node-sdk:5.0.0',
          sdkType: 'backend',
          clientIp: '127.0.0.1',
          lastSeen: 'time',
          createdAt: 'time',
        },
        {
          instanceId: 'pod-2',
          environment: 'production',
          sdkVersion: 'unleash-node-sdk:6.12.1',
          sdkType: 'backend',
          clientIp: '127.0.0.1',
          lastSeen: 'time',
          createdAt: 'time',
        },
      ],
      seenToggles: [
        { name: local, project: 'default' },
        { name: shared, project },
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    })
    assert.ok(['unleash-node-sdk:5.0.0', 'unleash-node-sdk:6.12.1'].includes(checkout.sdkVersion))

    const web = await ok(pennon, 'GET', '/api/admin/metrics/applications/web')
    assert.deepEqual(times(web), {
      appName: 'web',
      sdkVersion: 'unleash-client-js:3.7.0',
      strategies: [],
      usage: [{ project: '*', environments: ['development'] }],
      createdAt: 'time',
      instances: [
        {
          instanceId: 'browser-1',
          environment: 'development',
          sdkVersion: 'unleash-client-js:3.7.0',
          sdkType: 'frontend',
          clientIp: '127.0.0.1',
          lastSeen: 'time',
          createdAt: 'time',
        },
      ],
      seenToggles: [{ name: shared, project }],
    })
    // A flag deleted since it was reported.
    await ok(pennon, 'POST', `/api/admin/projects/${project}/archive`, { features: [shared] }, undefined, 202)
    await ok(pennon, 'POST', `/api/admin/projects/${project}/delete`, { features: [shared] })
    assert.deepEqual((await ok(pennon, 'GET', '/api/admin/metrics/applications/web')).seenToggles, [{ name: shared, notFound: true }])

    for (const url of ['/api/admin/metrics/applications/nobody', '/api/admin/metrics/applications/nobody/overview']) {
      const missing = await call(pennon, 'GET', url)
      assert.equal(missing.status, 404)
      assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'No application is named "nobody".'))
    }
  })

  test("an application's overview: projects, flag count, and per environment its instances, SDKs and issues", async (t) => {
    const pennon = await useTestApp(t, database)
    const { project } = await seed(pennon)
    assert.deepEqual(times(await ok(pennon, 'GET', '/api/admin/metrics/applications/checkout/overview')), {
      projects: [project, 'default'].sort(),
      featureCount: 2,
      environments: [
        {
          name: 'development',
          instanceCount: 1,
          sdks: ['unleash-node-sdk:5.0.0'],
          frontendSdks: [],
          backendSdks: ['unleash-node-sdk:5.0.0'],
          lastSeen: 'time',
          issues: { missingFeatures: ['ghost'], outdatedSdks: ['unleash-node-sdk:5.0.0'] },
        },
        {
          name: 'production',
          instanceCount: 1,
          sdks: ['unleash-node-sdk:6.12.1'],
          frontendSdks: [],
          backendSdks: ['unleash-node-sdk:6.12.1'],
          lastSeen: 'time',
          issues: { missingFeatures: [], outdatedSdks: [] },
        },
      ],
      issues: { missingStrategies: ['my-custom'] },
    })
    assert.deepEqual(times(await ok(pennon, 'GET', '/api/admin/metrics/applications/web/overview')), {
      projects: [project],
      featureCount: 1,
      environments: [
        {
          name: 'development',
          instanceCount: 1,
          sdks: ['unleash-client-js:3.7.0'],
          frontendSdks: ['unleash-client-js:3.7.0'],
          backendSdks: [],
          lastSeen: 'time',
          issues: { missingFeatures: [], outdatedSdks: [] },
        },
      ],
      issues: { missingStrategies: [] },
    })
    // Instances of one environment, seen in the last 24 hours.
    assert.deepEqual(times(await ok(pennon, 'GET', '/api/admin/metrics/instances/checkout/environment/development')), {
      instances: [{ instanceId: 'pod-1', sdkVersion: 'unleash-node-sdk:5.0.0', clientIp: '127.0.0.1', lastSeen: 'time' }],
    })
    await pennon.database.db
      .updateTable('client_instances')
      .set({ last_seen_at: new Date(Date.now() - 25 * 3_600_000).toISOString() })
      .where('instance_id', '=', 'pod-1')
      .execute()
    assert.deepEqual(await ok(pennon, 'GET', '/api/admin/metrics/instances/checkout/environment/development'), { instances: [] })
    assert.deepEqual(await ok(pennon, 'GET', '/api/admin/metrics/instances/nobody/environment/development'), { instances: [] })
  })

  test("a project's applications: by name, searched, paged; 404 for an unknown project, 400 for a bad page", async (t) => {
    const pennon = await useTestApp(t, database)
    const { project } = await seed(pennon)
    const apps = (url: string) => ok(pennon, 'GET', url)
    const checkoutHere = {
      name: 'checkout',
      environments: ['development'],
      instances: ['pod-1'],
      sdks: [{ name: 'unleash-node-sdk', versions: ['5.0.0'] }],
    }
    const web = {
      name: 'web',
      environments: ['development'],
      instances: ['browser-1'],
      sdks: [{ name: 'unleash-client-js', versions: ['3.7.0'] }],
    }
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications`), { total: 2, applications: [checkoutHere, web] })
    assert.deepEqual(await apps('/api/admin/projects/default/applications'), {
      total: 1,
      applications: [
        {
          name: 'checkout',
          environments: ['development', 'production'],
          instances: ['pod-1', 'pod-2'],
          sdks: [{ name: 'unleash-node-sdk', versions: ['5.0.0', '6.12.1'] }],
        },
      ],
    })
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications?sortOrder=desc`), {
      total: 2,
      applications: [web, checkoutHere],
    })
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications?limit=1`), { total: 2, applications: [checkoutHere] })
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications?limit=1&offset=1&sortBy=anything`), {
      total: 2,
      applications: [web],
    })
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications?limit=1000`), { total: 2, applications: [checkoutHere, web] })
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications?query=CLIENT-JS`), { total: 1, applications: [web] })
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications?query=nothing,%20pod-1`), {
      total: 1,
      applications: [checkoutHere],
    })
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications?query=develop`), {
      total: 2,
      applications: [checkoutHere, web],
    })
    assert.deepEqual(await apps(`/api/admin/projects/${project}/applications?query=zzz`), { total: 0, applications: [] })

    for (const [query, path, min] of [
      ['limit=0', 'limit', 1],
      ['limit=ten', 'limit', 1],
      ['offset=-1', 'offset', 0],
    ] as const) {
      const bad = await call(pennon, 'GET', `/api/admin/projects/${project}/applications?${query}`)
      assert.equal(bad.status, 400)
      const message = `The \`/query/${path}\` parameter must be a whole number of at least ${min}. You sent ${JSON.stringify(query.split('=')[1])}.`
      assert.deepEqual(withoutId(bad.body), errorOf('ValidationError', message, { details: [{ path: `/query/${path}`, message }] }))
    }
    const missing = await call(pennon, 'GET', '/api/admin/projects/no-such-project/applications')
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'Project "no-such-project" does not exist.'))
  })
})
