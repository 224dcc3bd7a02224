/**
 * A real `unleash-client` against a listening Pennon, as the metrics tests use it: its state in
 * memory, polling once a minute unless told otherwise (the metrics tests read what it posts, not
 * its polls), destroyed after the test. Resolves once it has registered and has its flags.
 */
import { once } from 'node:events'
import { InMemStorageProvider, Unleash, type UnleashConfig } from 'unleash-client'

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
