/**
 * The usage reads fed by a real unleash-client from node_modules against a listening Pennon: it
 * registers, evaluates flags (and a name Pennon never had), posts its metrics bucket; the service
 * is flushed, then every read shows what the SDK sent.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import { connectedSdk } from '../../../test/sdk.ts'
import { defaultStrategies } from 'unleash-client/lib/strategy/index.js'
import { apiToken, call, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { hourOf } from '../metrics/metrics-aggregate.ts'

async function ok(pennon: TestApp, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, status = 200): Promise<any> {
  const response = await call(pennon, method, url, body)
  assert.equal(response.status, status, response.text)
  return response.body
}

onEachDatabase('usage reads from a real SDK', (database) => {
  test('unleash-client evaluates and reports: raw metrics, the application, its overview, the project and unknown flags show it', {
    timeout: 60_000,
  }, async (t) => {
    // A flush interval far above the test's length: the test flushes when it wants the rows.
    const pennon = await useTestApp(t, database, { env: { METRICS_FLUSH_MS: '600000' } })
    const project = `sdk-usage-${process.pid}`
    const flag = `sdk-usage-flag-${process.pid}`
    await ok(pennon, 'POST', '/api/admin/projects', { id: project, name: project }, 201)
    await ok(pennon, 'POST', `/api/admin/projects/${project}/features`, { name: flag }, 201)
    await ok(pennon, 'POST', `/api/admin/projects/${project}/features/${flag}/environments/development/on`)
    await ok(pennon, 'PUT', `/api/admin/projects/${project}/features/${flag}/environments/development/variants`, [
      { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' },
    ])
    await pennon.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = pennon.app.server.address() as { port: number }

    const sdk = await connectedSdk(t, {
      base: `http://127.0.0.1:${port}`,
      token: await apiToken(pennon, 'client'),
      appName: 'usage-service',
      instanceId: 'pod-7',
      metricsInterval: 200,
    })
    for (let i = 0; i < 4; i++) assert.equal(sdk.isEnabled(flag), true)
    assert.equal(sdk.getVariant(flag).name, 'blue')
    sdk.isEnabled('never-a-flag')
    await once(sdk, 'sent')
    await pennon.metrics.flush()
    const hour = hourOf(Date.now())
    const sdkVersion = (
      await pennon.database.db
        .selectFrom('client_instances')
        .select('sdk_version')
        .where('app_name', '=', 'usage-service')
        .executeTakeFirstOrThrow()
    ).sdk_version!
    assert.match(sdkVersion, /^unleash-node-sdk:\d+\.\d+\.\d+$/)

    // getVariant counts as an evaluation too: 4 + 1.
    assert.deepEqual(await ok(pennon, 'GET', `/api/admin/client-metrics/features/${flag}/raw?hoursBack=1`), {
      version: 1,
      maturity: 'stable',
      data: [
        { featureName: flag, appName: 'usage-service', environment: 'development', timestamp: hour, yes: 5, no: 0, variants: { blue: 1 } },
      ],
    })
    const application = await ok(pennon, 'GET', '/api/admin/metrics/applications/usage-service')
    const instance = application.instances[0]
    assert.deepEqual(application, {
      appName: 'usage-service',
      sdkVersion,
      strategies: defaultStrategies.map((strategy) => strategy.name),
      usage: [{ project: '*', environments: ['development'] }],
      createdAt: application.createdAt,
      instances: [
        {
          instanceId: 'pod-7',
          environment: 'development',
          sdkVersion,
          sdkType: 'backend',
          clientIp: '127.0.0.1',
          lastSeen: instance.lastSeen,
          createdAt: instance.createdAt,
        },
      ],
      seenToggles: [{ name: flag, project }],
    })
    assert.deepEqual(await ok(pennon, 'GET', '/api/admin/metrics/applications/usage-service/overview'), {
      projects: [project],
      featureCount: 1,
      environments: [
        {
          name: 'development',
          instanceCount: 1,
          sdks: [sdkVersion],
          frontendSdks: [],
          backendSdks: [sdkVersion],
          lastSeen: instance.lastSeen,
          issues: { missingFeatures: ['never-a-flag'], outdatedSdks: [] },
        },
      ],
      issues: { missingStrategies: [] },
    })
    const [name, version] = sdkVersion.split(':')
    assert.deepEqual(await ok(pennon, 'GET', `/api/admin/projects/${project}/applications`), {
      total: 1,
      applications: [{ name: 'usage-service', environments: ['development'], instances: ['pod-7'], sdks: [{ name, versions: [version] }] }],
    })
    const unknown = (await ok(pennon, 'GET', '/api/admin/metrics/unknown-flags')).unknownFlags
    assert.deepEqual(unknown, [
      {
        name: 'never-a-flag',
        lastSeenAt: unknown[0].lastSeenAt,
        lastEventAt: null,
        reports: [{ appName: 'usage-service', environments: [{ environment: 'development', seenAt: unknown[0].lastSeenAt }] }],
      },
    ])
    // The flag's lastSeenAt, in the environment it was counted in and on the flag.
    const read = await ok(pennon, 'GET', `/api/admin/projects/${project}/features/${flag}`)
    const development = read.environments.find((environment: { name: string }) => environment.name === 'development')
    assert.match(development.lastSeenAt, /^\d{4}-\d\d-\d\dT/)
    assert.equal(read.lastSeenAt, development.lastSeenAt)
    assert.equal(read.environments.find((environment: { name: string }) => environment.name === 'production').lastSeenAt, null)
  })
})
