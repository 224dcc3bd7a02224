/**
 * The open-source Unleash Proxy (`@unleash/proxy`, run in-process) in front of Pennon: its
 * embedded Node SDK reads Pennon's client API with a client token, registers and posts metrics
 * there, and the browser SDK (`unleash-proxy-client`) reads the proxy's `/proxy` with one of its
 * client keys. For every file of the client specification the browser SDK's answers through the
 * proxy must be the specification's, with the same tests not applicable as on Pennon's own
 * frontend API (client-specification.acceptance.test.ts) and no others; and what the proxy counts
 * must reach Pennon's admin metrics reads.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { after, describe, test } from 'node:test'
import { createApp, createProxyConfig } from '@unleash/proxy'
import { createNewClient } from '@unleash/proxy/dist/create-client.js'
import { LogLevel } from '@unleash/proxy/dist/logger.js'
import { InMemStorageProvider, type ClientFeaturesResponse } from 'unleash-client'
import { defaultStrategies } from 'unleash-client/lib/strategy/index.js'
import { UnleashClient } from 'unleash-proxy-client'
import { apiToken, call, eventually, onEachDatabase, useTestApp, type TestApp } from './test-app.ts'
import {
  casesOf,
  createSpecificationState,
  readingRemoteAddress,
  readingSessionId,
  readSpecificationFile,
  specificationFiles,
  stateOf,
} from './specification-state.ts'

const CLIENT_KEY = 'proxy-client-key'

const tally = new Map<string, { passed: number; notApplicable: number }>()
after(() => {
  const lines = [...tally].map(([key, { passed, notApplicable }]) => `  ${key}: ${passed} passed, ${notApplicable} not applicable`)
  console.log(`client specification through the Unleash Proxy in front of Pennon:\n${lines.join('\n')}`)
})

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = pennon.app.server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

interface RunningProxy {
  url: string
  close(): Promise<void>
}

/**
 * The proxy, configured as its README says (UNLEASH_URL, UNLEASH_API_TOKEN, UNLEASH_PROXY_CLIENT_KEYS),
 * listening on a free port once its SDK has read Pennon. Its client is made here (`clientMode: 'new'`
 * as the proxy makes it) so that the test can stop it: the proxy has no close of its own.
 */
async function startProxy(
  pennonUrl: string,
  clientToken: string,
  options: { appName?: string; instanceId?: string; metricsInterval?: number } = {},
): Promise<RunningProxy> {
  const proxyOptions = {
    unleashUrl: `${pennonUrl}/api`,
    unleashApiToken: clientToken,
    clientKeys: [CLIENT_KEY],
    unleashAppName: options.appName ?? 'unleash-proxy',
    unleashInstanceId: options.instanceId ?? 'proxy-1',
    refreshInterval: 60_000,
    metricsInterval: options.metricsInterval ?? 60_000,
    metricsJitter: 0,
    enableAllEndpoint: true,
    logLevel: LogLevel.error,
    // The SDK's default keeps a backup file per appName in the temp folder, and is ready from it: a previous run's flags.
    storageProvider: new InMemStorageProvider<ClientFeaturesResponse>(),
  }
  const client = createNewClient(createProxyConfig(proxyOptions))
  // The proxy's client stops its SDK (destroy) but not its metrics timer, which it keeps private.
  const { metrics } = client as unknown as { metrics: { stop(): void } }
  // Synchronized: its SDK has read Pennon's answer; ready: the proxy serves (a tick later).
  const ready = Promise.all([once(client.unleash, 'synchronized'), once(client, 'ready')])
  const server = createServer(createApp(proxyOptions, client))
  const url = await listen(server)
  await ready
  return {
    url,
    async close() {
      metrics.stop()
      client.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

/** The browser SDK against the proxy, started for one context. */
async function browserThroughProxy(proxyUrl: string, context: Record<string, unknown>): Promise<UnleashClient> {
  const { properties, ...fields } = context as { properties?: Record<string, string>; appName?: unknown }
  const client = new UnleashClient({
    url: `${proxyUrl}/proxy`,
    clientKey: CLIENT_KEY,
    appName: typeof fields.appName === 'string' ? fields.appName : 'specification',
    context: { ...fields, ...(properties ? { properties } : {}) },
    refreshInterval: 0,
    disableMetrics: true,
    storageProvider: { save: async () => {}, get: async () => undefined },
  })
  await client.start()
  return client
}

const asWritten = ({ featureEnabled: _deprecated, ...variant }: Record<string, unknown>) => variant

onEachDatabase('client specification through the Unleash Proxy', (database) => {
  for (const fileName of specificationFiles()) {
    const file = readSpecificationFile(fileName)
    const cases = casesOf(file)

    describe(`${fileName} [${database.name}]`, () => {
      test('the browser SDK through the Unleash Proxy answers as the specification says', { timeout: 120_000 }, async (t) => {
        const pennon = await useTestApp(t, database)
        const state = stateOf(file)
        const { refused } = await createSpecificationState(pennon, state)
        const remoteAddressReaders = readingRemoteAddress(state)
        const sessionIdReaders = readingSessionId(state)
        const proxy = await startProxy(await listening(pennon), await apiToken(pennon, 'client', 'proxy-client'))
        t.after(() => proxy.close())

        const counts = { passed: 0, notApplicable: 0 }
        tally.set(`${fileName} [${database.name}]`, counts)
        for (const test of cases) {
          // Exactly the frontend API run's reasons: the proxy, too, takes the caller's address
          // when the context has none, and the browser SDK makes up a sessionId.
          const notApplicable =
            refused.has(test.toggleName) ||
            (test.context.remoteAddress === undefined && remoteAddressReaders.has(test.toggleName)) ||
            (test.context.sessionId === undefined && sessionIdReaders.has(test.toggleName))
          if (notApplicable) {
            counts.notApplicable++
            continue
          }
          const client = await browserThroughProxy(proxy.url, test.context)
          try {
            const actual =
              test.kind === 'isEnabled'
                ? client.isEnabled(test.toggleName)
                : asWritten(client.getVariant(test.toggleName) as unknown as Record<string, unknown>)
            assert.deepEqual(actual, test.expectedResult, `${fileName} through the proxy ${test.kind}: ${test.description}`)
          } finally {
            client.stop()
          }
          counts.passed++
        }
      })
    })
  }

  test("what the proxy registers and counts reaches Pennon's admin metrics reads", { timeout: 60_000 }, async (t) => {
    const pennon = await useTestApp(t, database, { env: { METRICS_FLUSH_MS: '20' } })
    const flag = 'proxied-flag'
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: flag })).status, 201)
    assert.equal((await call(pennon, 'POST', `/api/admin/projects/default/features/${flag}/environments/development/on`)).status, 200)
    const proxy = await startProxy(await listening(pennon), await apiToken(pennon, 'client', 'proxy-client'), {
      appName: 'edge-of-town',
      instanceId: 'proxy-7',
      metricsInterval: 100,
    })
    t.after(() => proxy.close())

    // A browser posts its counts to the proxy, which adds them to its own and posts them to Pennon.
    const browser = new UnleashClient({
      url: `${proxy.url}/proxy`,
      clientKey: CLIENT_KEY,
      appName: 'web-shop',
      refreshInterval: 0,
      metricsInterval: 0.2,
      metricsIntervalInitial: 0.1,
      storageProvider: { save: async () => {}, get: async () => undefined },
    })
    t.after(() => browser.stop())
    const sent = new Promise((resolve) => browser.on('sent', resolve))
    await browser.start()
    for (let i = 0; i < 3; i++) assert.equal(browser.isEnabled(flag), true)
    assert.equal(browser.isEnabled('not-a-flag'), false)
    await sent

    const usage = async () => (await call(pennon, 'GET', `/api/admin/client-metrics/features/${flag}`)).body
    await eventually(async () => (await usage()).lastHourUsage.length === 1, "the proxy's counts stored", 10_000)
    const { lastHourUsage, seenApplications } = await usage()
    // The proxy posts under its own application name: the browser's is not forwarded.
    assert.deepEqual(seenApplications, ['edge-of-town'])
    assert.deepEqual(
      lastHourUsage.map(({ timestamp: _hour, ...rest }: { timestamp: string }) => rest),
      [{ environment: 'development', yes: 3, no: 0, variants: {} }],
    )

    const application = await call(pennon, 'GET', '/api/admin/metrics/applications/edge-of-town')
    assert.equal(application.status, 200, application.text)
    const { instances, createdAt: _created, ...rest } = application.body
    // The proxy's embedded Node SDK registered itself, with the strategies it knows.
    assert.deepEqual(rest, {
      appName: 'edge-of-town',
      sdkVersion: 'unleash-node-sdk:6.12.1',
      strategies: defaultStrategies.map((strategy) => strategy.name),
      usage: [{ project: '*', environments: ['development'] }],
      seenToggles: [{ name: flag, project: 'default' }],
    })
    assert.deepEqual(
      instances.map(({ lastSeen: _seen, createdAt: _at, ...instance }: Record<string, unknown>) => instance),
      [
        {
          instanceId: 'proxy-7',
          environment: 'development',
          sdkVersion: 'unleash-node-sdk:6.12.1',
          sdkType: 'backend',
          clientIp: '127.0.0.1',
        },
      ],
    )
  })
})
