/**
 * Acceptance against the real OpenFeature server SDK and OFREP provider (@openfeature/server-sdk,
 * @openfeature/ofrep-provider 0.1.3): for every file of the Unleash client specification, its
 * state is created through the admin API, and for each test the provider's answer agrees with the
 * real Node SDK's (`unleash-client`) on the same flags: `getBooleanValue` where the answer is the
 * flag's switch; the variant's payload through `getStringValue`, `getNumberValue` or
 * `getObjectValue` where it carries one; the variant's name in the details either way. Then what
 * the provider does with Pennon's refusals: an unknown flag, a wrong token, a 429's Retry-After.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, describe, test } from 'node:test'
import { OFREPApiTooManyRequestsError, OFREPApiUnauthorizedError } from '@openfeature/ofrep-core'
import { OFREPProvider } from '@openfeature/ofrep-provider'
import { type Client, type EvaluationContext, OpenFeature } from '@openfeature/server-sdk'
import { InMemStorageProvider, Unleash, type Context } from 'unleash-client'
import { apiToken, call, onEachDatabase, useTestApp, type TestApp } from './test-app.ts'
import {
  casesOf,
  createSpecificationState,
  readingRemoteAddress,
  readingSessionId,
  readSpecificationFile,
  specificationFiles,
  stateOf,
} from './specification-state.ts'

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = pennon.app.server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

let domains = 0
const tally: string[] = []
after(() => console.log(`OFREP provider against the client specification:\n  ${tally.join('\n  ')}`))

/** An OpenFeature client of its own (a domain per provider), with the errors its evaluations raised. */
async function openFeatureClient(
  t: { after(fn: () => unknown): void },
  base: string,
  token: string,
  fetchImplementation?: typeof fetch,
): Promise<{ client: Client; errors: unknown[] }> {
  const domain = `pennon-${++domains}`
  const provider = new OFREPProvider({
    baseUrl: base,
    headers: { Authorization: token },
    ...(fetchImplementation ? { fetchImplementation } : {}),
  })
  await OpenFeature.setProviderAndWait(domain, provider)
  t.after(() => OpenFeature.clearProviders())
  const client = OpenFeature.getClient(domain)
  const errors: unknown[] = []
  client.addHooks({ error: (_context, error) => void errors.push(error) })
  return { client, errors }
}

/**
 * An Unleash context as an OpenFeature one, as an application would write it: the userId is the
 * targetingKey, custom properties are fields of their own (a null one left out), and the Node
 * SDK's appName when the test has none (the SDK adds its own).
 */
function openFeatureContext(context: Record<string, unknown>): EvaluationContext {
  const { userId, properties, ...fields } = context as { userId?: string; properties?: Record<string, unknown> }
  const custom = Object.fromEntries(Object.entries(properties ?? {}).filter(([, value]) => value !== null && value !== undefined))
  return {
    appName: 'specification',
    ...custom,
    ...fields,
    ...(userId === undefined ? {} : { targetingKey: userId }),
  } as EvaluationContext
}

async function nodeClient(t: { after(fn: () => void): void }, base: string, token: string): Promise<Unleash> {
  const sdk = new Unleash({
    url: `${base}/api/`,
    appName: 'specification',
    customHeaders: { Authorization: token },
    disableMetrics: true,
    refreshInterval: 60_000,
    storageProvider: new InMemStorageProvider(),
  })
  t.after(() => sdk.destroy())
  const failed = once(sdk, 'error').then(([error]) => Promise.reject(error))
  await Promise.race([once(sdk, 'synchronized'), failed])
  return sdk
}

onEachDatabase('OpenFeature server provider (OFREP)', (database) => {
  for (const fileName of specificationFiles()) {
    const file = readSpecificationFile(fileName)
    const cases = casesOf(file)
    describe(`${fileName} [${database.name}]`, () => {
      test('the OFREP provider agrees with the Node SDK on every test Pennon can hold', { timeout: 120_000 }, async (t) => {
        const pennon = await useTestApp(t, database)
        const state = stateOf(file)
        const { refused } = await createSpecificationState(pennon, state)
        const remoteAddressReaders = readingRemoteAddress(state)
        const sessionIdReaders = readingSessionId(state)
        const base = await listening(pennon)
        const token = await apiToken(pennon, 'client', 'specification-client')
        const sdk = await nodeClient(t, base, token)
        const { client, errors } = await openFeatureClient(t, base, token)
        const known = new Set(state.features.map((feature) => feature.name))
        let agreed = 0
        let skipped = 0
        for (const test of cases) {
          // As for the frontend API (client-specification.acceptance.test.ts): the server's defaults for what the context lacks.
          if (refused.has(test.toggleName)) continue
          if (
            (test.context.remoteAddress === undefined && remoteAddressReaders.has(test.toggleName)) ||
            (test.context.sessionId === undefined && sessionIdReaders.has(test.toggleName))
          ) {
            skipped++
            continue
          }
          const where = `${fileName} ${test.kind}: ${test.description}`
          const unleashContext = { appName: 'specification', ...test.context } as Context
          const enabled = sdk.isEnabled(test.toggleName, unleashContext)
          const variant = sdk.getVariant(test.toggleName, unleashContext)
          const context = openFeatureContext(test.context)
          const payload = enabled && variant.enabled ? variant.payload : undefined
          if (!known.has(test.toggleName)) {
            // A flag the SDK does not have is off to it; OFREP says it is not found, and the application gets its default.
            const details = await client.getBooleanDetails(test.toggleName, false, context)
            assert.equal(details.errorCode, 'FLAG_NOT_FOUND', where)
            assert.equal(details.value, enabled, where)
            errors.pop()
          } else if (payload === undefined) {
            const details = await client.getBooleanDetails(test.toggleName, !enabled, context)
            assert.equal(details.errorCode, undefined, `${where}: ${details.errorMessage}`)
            assert.equal(details.value, enabled, where)
            assert.equal(details.variant, variant.name, where)
          } else if (payload.type === 'json') {
            const details = await client.getObjectDetails(test.toggleName, {}, context)
            assert.deepEqual(details.value, JSON.parse(payload.value), where)
            assert.equal(details.reason, 'SPLIT', where)
            assert.equal(details.variant, variant.name, where)
          } else if (payload.type === 'number') {
            const details = await client.getNumberDetails(test.toggleName, Number.NaN, context)
            assert.equal(details.value, Number(payload.value), where)
            assert.equal(details.variant, variant.name, where)
          } else {
            const details = await client.getStringDetails(test.toggleName, '', context)
            assert.equal(details.value, payload.value, where)
            assert.equal(details.variant, variant.name, where)
          }
          agreed++
        }
        assert.deepEqual(errors, [])
        // A file whose every flag Pennon refuses (client-specification.acceptance.test.ts lists why) compares none.
        assert.equal(agreed, cases.filter((c) => !refused.has(c.toggleName)).length - skipped, fileName)
        tally.push(`${fileName} [${database.name}]: ${agreed} agreed, ${cases.length - agreed} not applicable`)
      })
    })
  }

  test("what the provider makes of Pennon's refusals: FLAG_NOT_FOUND, its unauthorized error, a 429's Retry-After", async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_FAILURES_PER_MINUTE: '1' } })
    const created = await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'known' })
    assert.equal(created.status, 201, created.text)
    const base = await listening(pennon)
    const good = await openFeatureClient(t, base, await apiToken(pennon, 'client'))
    const missing = await good.client.getBooleanDetails('nothing-here', true)
    assert.equal(missing.value, true)
    assert.equal(missing.errorCode, 'FLAG_NOT_FOUND')
    assert.equal((await good.client.getBooleanDetails('known', true)).reason, 'DISABLED')

    let requests = 0
    const counting: typeof fetch = (input, init) => {
      requests++
      return fetch(input, init)
    }
    const wrong = await openFeatureClient(t, base, '*:development.wrong', counting)
    assert.equal(await wrong.client.getBooleanValue('known', true), true)
    assert.ok(wrong.errors[0] instanceof OFREPApiUnauthorizedError, String(wrong.errors[0]))
    // The address's one failure a minute is spent: 429, and the provider holds off as Retry-After says.
    const before = Date.now()
    assert.equal(await wrong.client.getBooleanValue('known', true), true)
    const throttled = wrong.errors[1]
    assert.ok(throttled instanceof OFREPApiTooManyRequestsError, String(throttled))
    const seconds = throttled.retryAfterSeconds!
    assert.ok(seconds >= 1 && seconds <= 60, String(seconds))
    const asked = requests
    const paused = await wrong.client.getBooleanDetails('known', true)
    assert.equal(requests, asked, 'no request while paused')
    assert.equal(paused.errorCode, 'GENERAL')
    const until = Date.parse(/until (\S+)$/.exec(paused.errorMessage ?? '')![1]!)
    assert.ok(until >= before + seconds * 1000 - 1000 && until <= Date.now() + seconds * 1000 + 1000, paused.errorMessage)
  })
})
