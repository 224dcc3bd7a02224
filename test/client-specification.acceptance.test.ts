/**
 * Acceptance against the real clients: for every file of the official Unleash client
 * specification, its state is created through Pennon's admin API, then
 *  - the real Node SDK (`unleash-client`) reads the flags with a client token in each of its three
 *    modes — polling `GET /api/client/features`, delta polling `GET /api/client/delta`, and
 *    streaming `GET /api/client/streaming` — and every `tests[]` / `variantTests[]` expectation is
 *    asserted with each one's answers;
 *  - the real browser SDK (`unleash-proxy-client`, run in Node) reads the frontend API with a
 *    frontend token for each test's context, and must agree with the specification too;
 *  - the admin playground (`POST /api/admin/playground`) is asked with each test's context, and
 *    its `isEnabled` and `variant` must be the specification's and the Node SDK's answers.
 * A test whose flag Pennon refuses to hold as the file describes it is not applicable: it is
 * listed by name with the answer that refused it (docs/client-api.md says why each differs).
 */
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { once } from 'node:events'
import { InMemStorageProvider, Unleash, type Context } from 'unleash-client'
import { UnleashClient } from 'unleash-proxy-client'
import { apiToken, call, onEachDatabase, useTestApp, type TestApp } from './test-app.ts'
import {
  casesOf,
  createSpecificationState,
  readingRemoteAddress,
  readingSessionId,
  readSpecificationFile,
  specificationFiles,
  stateOf,
  type SpecificationTest,
} from './specification-state.ts'

const tally = new Map<string, { passed: number; notApplicable: string[] }>()
after(() => {
  const lines = [...tally].map(
    ([key, { passed, notApplicable }]) =>
      `  ${key}: ${passed} passed, ${notApplicable.length} not applicable${notApplicable.map((n) => `\n      - ${n}`).join('')}`,
  )
  console.log(`client specification through Pennon:\n${lines.join('\n')}`)
})

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = pennon.app.server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

/** The browser SDK, started for one context; its answers are those of the frontend API. */
async function frontendClient(base: string, token: string, context: Record<string, unknown>): Promise<UnleashClient> {
  const { properties, ...fields } = context as { properties?: Record<string, string>; appName?: unknown }
  const client = new UnleashClient({
    url: `${base}/api/frontend`,
    clientKey: token,
    appName: typeof fields.appName === 'string' ? fields.appName : 'specification',
    context: { ...fields, ...(properties ? { properties } : {}) },
    refreshInterval: 0,
    disableMetrics: true,
    storageProvider: { save: async () => {}, get: async () => undefined },
  })
  await client.start()
  return client
}

/** The Node SDK's three ways of reading the flags. */
const SDK_MODES = [
  { key: 'unleash-client', mode: { type: 'polling', format: 'full' } },
  { key: 'unleash-client (delta)', mode: { type: 'polling', format: 'delta' } },
  { key: 'unleash-client (streaming)', mode: { type: 'streaming' } },
] as const

/** The Node SDK in one mode, once it has the flags. */
async function nodeClient(
  t: { after(fn: () => void): void },
  base: string,
  token: string,
  mode: (typeof SDK_MODES)[number]['mode'],
): Promise<Unleash> {
  const sdk = new Unleash({
    url: `${base}/api/`,
    appName: 'specification',
    customHeaders: { Authorization: token },
    disableMetrics: true,
    refreshInterval: 60_000,
    storageProvider: new InMemStorageProvider(),
    experimentalMode: mode,
  })
  t.after(() => sdk.destroy())
  const failed = once(sdk, 'error').then(([error]) => Promise.reject(error))
  await Promise.race([once(sdk, 'synchronized'), failed])
  return sdk
}

/** What the SDKs return, as the files write it: the deprecated `featureEnabled` left out. */
const asWritten = ({ featureEnabled: _deprecated, ...variant }: Record<string, unknown>) => variant

/**
 * A test's context as the playground takes it (sdkContextSchema): the SDK's appName when the test
 * has none (the Node SDK above is `specification`), and a null property left out — to the SDK a
 * null property is none, and the playground takes text only, as the reference's.
 */
function playgroundContext(context: Record<string, unknown>): Record<string, unknown> {
  const { properties, ...fields } = context as { properties?: Record<string, unknown> }
  const texts = properties && Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== null))
  return { appName: 'specification', ...fields, ...(texts ? { properties: texts } : {}) }
}

/** What the playground says of one flag (a flag it does not list is off, as in the SDK). */
async function playgroundAnswer(pennon: TestApp, test: SpecificationTest & { kind: 'isEnabled' | 'getVariant' }): Promise<unknown> {
  const response = await call(pennon, 'POST', '/api/admin/playground', {
    environment: 'development',
    context: playgroundContext(test.context),
  })
  assert.equal(response.status, 200, response.text)
  const feature = (response.body.features as Array<{ name: string; isEnabled: boolean; variant: Record<string, unknown> }>).find(
    (f) => f.name === test.toggleName,
  )
  if (test.kind === 'isEnabled') return feature?.isEnabled ?? false
  return asWritten(feature?.variant ?? { name: 'disabled', enabled: false, feature_enabled: false })
}

onEachDatabase('client specification', (database) => {
  for (const fileName of specificationFiles()) {
    const file = readSpecificationFile(fileName)
    const cases = casesOf(file)

    describe(`${fileName} [${database.name}]`, () => {
      test('the Node SDK (client API), the browser SDK (frontend API) and the playground answer as the specification says', {
        timeout: 120_000,
      }, async (t) => {
        const pennon = await useTestApp(t, database)
        const state = stateOf(file)
        const { refused } = await createSpecificationState(pennon, state)
        const remoteAddressReaders = readingRemoteAddress(state)
        const sessionIdReaders = readingSessionId(state)
        const base = await listening(pennon)
        const clientToken = await apiToken(pennon, 'client', 'specification-client')
        const frontendToken = await apiToken(pennon, 'frontend', 'specification-frontend')

        const sdks = new Map<string, Unleash>()
        for (const { key, mode } of SDK_MODES) sdks.set(key, await nodeClient(t, base, clientToken, mode))
        const sdk = sdks.get('unleash-client')!

        const runs = [
          ...SDK_MODES.map(({ key }) => ['client API', key] as const),
          ['frontend API', 'unleash-proxy-client'] as const,
          ['playground', 'the admin playground'] as const,
        ]
        for (const [api, key] of runs) {
          const counts = { passed: 0, notApplicable: [] as string[] }
          tally.set(`${fileName} via ${key} [${database.name}]`, counts)
          for (const test of cases) {
            const reason =
              refused.get(test.toggleName) ??
              (api === 'frontend API' && test.context.remoteAddress === undefined && remoteAddressReaders.has(test.toggleName)
                ? "the frontend API takes the caller's address when the context has no remoteAddress, as the reference does"
                : api === 'frontend API' && test.context.sessionId === undefined && sessionIdReaders.has(test.toggleName)
                  ? 'the browser SDK makes up a sessionId when the context has none (one per browser), so the frontend API is asked with one'
                  : undefined)
            if (reason) {
              counts.notApplicable.push(`${test.kind} "${test.description}" (${test.toggleName}: ${reason})`)
              continue
            }
            const where = `${fileName} ${api} ${test.kind}: ${test.description}`
            const sdkAnswer = (client = sdk) => {
              const context = test.context as Context
              return test.kind === 'isEnabled'
                ? client.isEnabled(test.toggleName, context)
                : asWritten(client.getVariant(test.toggleName, context) as unknown as Record<string, unknown>)
            }
            if (api === 'client API') {
              assert.deepEqual(sdkAnswer(sdks.get(key)), test.expectedResult, `${where} (${key})`)
            } else if (api === 'playground') {
              const actual = await playgroundAnswer(pennon, test)
              assert.deepEqual(actual, test.expectedResult, where)
              assert.deepEqual(actual, sdkAnswer(), `${where}: the Node SDK's answer`)
            } else {
              const client = await frontendClient(base, frontendToken, test.context)
              try {
                const actual =
                  test.kind === 'isEnabled'
                    ? client.isEnabled(test.toggleName)
                    : asWritten(client.getVariant(test.toggleName) as unknown as Record<string, unknown>)
                assert.deepEqual(actual, test.expectedResult, where)
              } finally {
                client.stop()
              }
            }
            counts.passed++
          }
        }
        // The three ways of reading give the SDK the same flags: the same tests pass.
        const polling = tally.get(`${fileName} via unleash-client [${database.name}]`)!
        for (const { key } of SDK_MODES) assert.deepEqual(tally.get(`${fileName} via ${key} [${database.name}]`), polling, key)
      })
    })
  }
})
