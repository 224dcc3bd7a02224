/** Real `unleash-client` SDKs against a listening Pennon, destroyed after the test. */
import { once } from 'node:events'
import { InMemStorageProvider, Unleash, type UnleashConfig } from 'unleash-client'
import type { TestApp } from './test-app.ts'

/** The test app listening on 127.0.0.1 (`port`, or any free one): its base URL. */
export async function listening(pennon: TestApp, port = 0): Promise<string> {
  await pennon.app.listen({ port, host: '127.0.0.1' })
  return `http://127.0.0.1:${(pennon.app.server.address() as { port: number }).port}`
}

type Mode = UnleashConfig['experimentalMode']

/** The SDK in one mode (polling the full state when none is given), without metrics, once it has the flags. */
export async function sdkOf(
  t: { after(fn: () => void): void },
  base: string,
  token: string,
  experimentalMode: Mode,
  refreshInterval = 60_000,
): Promise<Unleash> {
  const sdk = new Unleash({
    url: `${base}/api/`,
    appName: 'modes',
    customHeaders: { Authorization: token },
    disableMetrics: true,
    refreshInterval,
    storageProvider: new InMemStorageProvider(),
    ...(experimentalMode ? { experimentalMode } : {}),
  })
  t.after(() => sdk.destroy())
  const failed = once(sdk, 'error').then(([error]) => Promise.reject(error))
  await Promise.race([once(sdk, 'synchronized'), failed])
  return sdk
}

/**
 * As the metrics tests use it: its state in memory, polling once a minute unless told otherwise
 * (the tests read what it posts, not its polls). Resolves once it has registered and has its flags.
 */
export async function connectedSdk(
  t: { after(fn: () => void): void },
  options: { base: string; token: string; appName: string; instanceId: string; metricsInterval: number; refreshInterval?: number },
): Promise<Unleash> {
  const sdk = new Unleash({
    url: `${options.base}/api/`,
    appName: options.appName,
    instanceId: options.instanceId,
    customHeaders: { Authorization: options.token },
    metricsInterval: options.metricsInterval,
    refreshInterval: options.refreshInterval ?? 60_000,
    storageProvider: new InMemStorageProvider(),
  } satisfies UnleashConfig)
  t.after(() => sdk.destroy())
  const registered = once(sdk, 'registered')
  await once(sdk, 'synchronized')
  await registered
  return sdk
}
