/**
 * The real SDKs from node_modules against a listening Pennon: unleash-client (server SDK,
 * client token) registers at start and posts its metrics bucket; unleash-proxy-client (browser
 * SDK, frontend token) posts its own. What they sent shows in the admin reads and in the flag's
 * lastSeenAt.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { defaultStrategies } from 'unleash-client/lib/strategy/index.js'
import { UnleashClient } from 'unleash-proxy-client'
import { apiToken, call, eventually, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = pennon.app.server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

async function ok(response: Promise<{ status: number; text: string }>, status = 200): Promise<void> {
  const answer = await response
  assert.equal(answer.status, status, answer.text)
}

onEachDatabase('SDK metrics from the real SDKs', (database) => {
  test('unleash-client registers and reports, unleash-proxy-client reports: the admin reads show both', { timeout: 60_000 }, async (t) => {
    const pennon = await useTestApp(t, database, { env: { METRICS_FLUSH_MS: '20' } })
    const flag = 'sdk-metrics-flag'
    await ok(call(pennon, 'POST', '/api/admin/projects/default/features', { name: flag }), 201)
    await ok(call(pennon, 'POST', `/api/admin/projects/default/features/${flag}/environments/development/on`))
    await ok(
      call(pennon, 'PUT', `/api/admin/projects/default/features/${flag}/environments/development/variants`, [
        { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' },
      ]),
    )
    const base = await listening(pennon)

    const sdk = new Unleash({
      url: `${base}/api/`,
      appName: 'checkout-service',
      instanceId: 'pod-1',
      customHeaders: { Authorization: await apiToken(pennon, 'client') },
      metricsInterval: 200,
      refreshInterval: 60_000,
      disableMetrics: false,
      storageProvider: new InMemStorageProvider(),
    })
    t.after(() => sdk.destroy())
    const warnings: unknown[] = []
    sdk.on('warn', (warning) => warnings.push(warning))
    const registered = once(sdk, 'registered')
    await once(sdk, 'synchronized')
    await registered
    for (let i = 0; i < 3; i++) assert.equal(sdk.isEnabled(flag), true)
    for (let i = 0; i < 2; i++) assert.equal(sdk.getVariant(flag).name, 'blue')
    sdk.isEnabled('a-flag-pennon-never-had')
    await once(sdk, 'sent')

    const browser = new UnleashClient({
      url: `${base}/api/frontend`,
      clientKey: await apiToken(pennon, 'frontend'),
      appName: 'web-shop',
      refreshInterval: 0,
      metricsInterval: 0.2,
      metricsIntervalInitial: 0.1,
      storageProvider: { save: async () => {}, get: async () => undefined },
    })
    t.after(() => browser.stop())
    const sent = new Promise((resolve) => browser.on('sent', resolve))
    await browser.start()
    assert.equal(browser.isEnabled(flag), true)
    await sent

    const usage = async () => (await call(pennon, 'GET', `/api/admin/client-metrics/features/${flag}`)).body
    await eventually(async () => (await usage()).seenApplications.length === 2, 'both applications stored')
    const { lastHourUsage, seenApplications } = await usage()
    assert.deepEqual(seenApplications, ['checkout-service', 'web-shop'])
    // The server SDK counts getVariant as an evaluation too: 3 + 2, and 1 from the browser.
    assert.deepEqual(
      lastHourUsage.map(({ timestamp: _hour, ...rest }: { timestamp: string }) => rest),
      [{ environment: 'development', yes: 6, no: 0, variants: { blue: 2 } }],
    )

    const applications = (await call(pennon, 'GET', '/api/admin/metrics/applications')).body
    assert.deepEqual(applications, {
      total: 2,
      applications: [
        {
          appName: 'checkout-service',
          sdkVersion: 'unleash-node-sdk:6.12.1',
          strategies: defaultStrategies.map((strategy) => strategy.name),
          usage: [{ project: '*', environments: ['development'] }],
        },
        { appName: 'web-shop', strategies: [], usage: [{ project: '*', environments: ['development'] }] },
      ],
    })
    const instance = await pennon.database.db
      .selectFrom('client_instances')
      .select(['instance_id', 'interval', 'sdk_version'])
      .where('app_name', '=', 'checkout-service')
      .execute()
    assert.deepEqual(instance, [{ instance_id: 'pod-1', interval: 200, sdk_version: 'unleash-node-sdk:6.12.1' }])

    const environments = (await call(pennon, 'GET', `/api/admin/projects/default/features/${flag}`)).body.environments as Array<{
      name: string
      lastSeenAt: string | null
    }>
    assert.notEqual(environments.find((e) => e.name === 'development')!.lastSeenAt, null)
    assert.equal(environments.find((e) => e.name === 'production')!.lastSeenAt, null)
    assert.deepEqual(warnings, [], 'the SDK warned')
  })
})
