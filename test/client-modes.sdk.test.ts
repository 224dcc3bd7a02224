/**
 * The real Node SDK (`unleash-client`) in its delta and streaming modes against Pennon on each
 * database: a flag switched in the admin API reaches a streaming SDK long before its next poll (also
 * when the switch is made through another instance on the same database), a delta-polling SDK
 * and a polling SDK told to stream see it too, and a streaming SDK whose server is closed and
 * restarted, or SIGKILLed and started again (same port, same database), resumes with the right
 * state, a change made while it was down included.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { randomBytes } from 'node:crypto'
import { startProcess, type Server } from '../bench/lib.ts'
import {
  apiToken,
  createProcessDatabase,
  createTestApp,
  createTestStorage,
  eventually,
  onEachDatabase,
  useTestApp,
  useTwoInstances,
} from './test-app.ts'
import { createFlag } from './helpers/flags.ts'
import { toggle } from './helpers/strategies.ts'
import { listening, sdkOf } from './sdk.ts'

/** How long until `check` holds, in ms (fails after 10 s). */
async function timeUntil(check: () => boolean, what: string, ms = 10_000): Promise<number> {
  const started = performance.now()
  await eventually(check, what, ms)
  return performance.now() - started
}

onEachDatabase('the Node SDK streaming and delta-polling', (database) => {
  test('a flag switched in the admin API reaches a streaming SDK long before its next poll, and a delta-polling one at its next poll', async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listening(pennon)
    await createFlag(pennon, 'checkout')
    const client = await apiToken(pennon, 'client')
    const streaming = await sdkOf(t, base, client, { type: 'streaming' })
    const delta = await sdkOf(t, base, client, { type: 'polling', format: 'delta' }, 100)
    assert.equal(streaming.isEnabled('checkout'), false)
    assert.equal(delta.isEnabled('checkout'), false)

    assert.equal((await toggle(pennon, 'checkout', 'development', 'on')).status, 200)
    const took = await timeUntil(() => streaming.isEnabled('checkout'), 'the streaming SDK sees the flag on')
    // Seen within timeUntil's 10 s while the SDK polls every 60 s: it came by the stream. The time is a figure, not a test.
    t.diagnostic(`the streaming SDK saw it after ${Math.round(took)} ms`)
    await timeUntil(() => delta.isEnabled('checkout'), 'the delta SDK sees the flag on')

    await createFlag(pennon, 'banner')
    assert.equal((await toggle(pennon, 'banner', 'development', 'on')).status, 200)
    const archived = await pennon.app.inject({
      method: 'POST',
      url: '/api/admin/projects/default/archive',
      headers: { authorization: pennon.adminToken, 'content-type': 'application/json' },
      payload: { features: ['checkout'] },
    })
    assert.equal(archived.statusCode, 202)
    for (const sdk of [streaming, delta]) {
      await timeUntil(
        () => sdk.isEnabled('banner') && sdk.getFeatureToggleDefinition('checkout') === undefined,
        'the SDK sees banner on and checkout gone',
      )
    }
    // Before the app closes (hooks run in order): the delta SDK polls every 100 ms.
    for (const sdk of [streaming, delta]) sdk.destroy()
  })

  test('a switch made through another instance on the same database reaches a streaming SDK of the first', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    const base = await listening(first)
    await createFlag(second, 'shared')
    const sdk = await sdkOf(t, base, await apiToken(second, 'client'), { type: 'streaming' })
    await timeUntil(() => sdk.getFeatureToggleDefinition('shared') !== undefined, 'the SDK knows the flag')
    assert.equal((await toggle(second, 'shared', 'development', 'on')).status, 200)
    const took = await timeUntil(() => sdk.isEnabled('shared'), "the SDK sees the other instance's switch")
    // Seen within timeUntil's 10 s while the SDK polls every 60 s: it came by the stream. The time is a figure, not a test.
    t.diagnostic(`seen after ${Math.round(took)} ms`)
  })

  test('a polling SDK told `fetch-mode: streaming` (CLIENT_FETCH_MODE=streaming) switches to streaming', async (t) => {
    const pennon = await useTestApp(t, database, { env: { CLIENT_FETCH_MODE: 'streaming' } })
    const base = await listening(pennon)
    await createFlag(pennon, 'switch')
    const sdk = new Unleash({
      url: `${base}/api/`,
      appName: 'modes',
      customHeaders: { Authorization: await apiToken(pennon, 'client') },
      disableMetrics: true,
      refreshInterval: 60_000,
      storageProvider: new InMemStorageProvider(),
    })
    t.after(() => sdk.destroy())
    // Its first poll is answered with the hint: it switches before saving anything, then streams.
    await once(sdk, 'synchronized')
    assert.equal((await toggle(pennon, 'switch', 'development', 'on')).status, 200)
    // Polling every 60 s, it would not see it for a minute.
    const took = await timeUntil(() => sdk.isEnabled('switch'), 'the switched SDK sees the change')
    // Seen within timeUntil's 10 s while the SDK polls every 60 s: it came by the stream. The time is a figure, not a test.
    t.diagnostic(`seen after ${Math.round(took)} ms`)
  })

  test('closed and restarted under a streaming SDK (same port, same database): the SDK reconnects and has the change made while it was down', async (t) => {
    const storage = await createTestStorage(database)
    t.after(() => storage.drop())
    let pennon = await createTestApp(database, { storage })
    t.after(() => pennon.close())
    // Only the first app stored its admin token.
    const { adminToken } = pennon
    const base = await listening(pennon)
    const port = Number(new URL(base).port)
    await createFlag(pennon, 'resilient')
    await createFlag(pennon, 'steady')
    assert.equal((await toggle(pennon, 'steady', 'development', 'on')).status, 200)
    const sdk = await sdkOf(t, base, await apiToken(pennon, 'client'), { type: 'streaming' })
    assert.deepEqual([sdk.isEnabled('steady'), sdk.isEnabled('resilient')], [true, false])

    await pennon.close()
    // While it is down, another instance switches the flag on.
    const meanwhile = await createTestApp(database, { storage })
    assert.equal((await toggle({ ...meanwhile, adminToken }, 'resilient', 'development', 'on')).status, 200)
    await meanwhile.close()
    assert.equal(sdk.isEnabled('resilient'), false)

    pennon = await createTestApp(database, { storage })
    await listening(pennon, port)
    await timeUntil(() => sdk.isEnabled('resilient'), 'the SDK has the change made while the server was down', 20_000)
    assert.equal(sdk.isEnabled('steady'), true)
    // And it streams again (it polls every 60 s): a change after the restart arrives at once.
    assert.equal((await toggle({ ...pennon, adminToken }, 'steady', 'development', 'off')).status, 200)
    const took = await timeUntil(() => !sdk.isEnabled('steady'), 'the SDK sees a change after the restart')
    // Seen within timeUntil's 10 s while the SDK polls every 60 s: it came by the stream. The time is a figure, not a test.
    t.diagnostic(`seen after ${Math.round(took)} ms`)
  })

  test('SIGKILLed under a streaming SDK and started again on the same port: the SDK reconnects and has the change made while it was down', {
    timeout: 120_000,
  }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const admin = `*:*.${randomBytes(32).toString('hex')}`
    const env = { ...storage.env, INIT_ADMIN_API_TOKENS: admin, AUTH_FAILURES_PER_MINUTE: '0' }
    const started: Server[] = []
    t.after(async () => {
      for (const server of started) await server.stop()
    })
    const start = async (port = 0) => {
      const server = await startProcess('src/main.ts', { ...env, PORT: String(port) })
      started.push(server)
      return server
    }
    const send = async (server: Server, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`)
      return text ? JSON.parse(text) : undefined
    }
    const flags = '/api/admin/projects/default/features'
    let server = await start()
    const port = Number(new URL(server.url).port)
    for (const name of ['resilient', 'steady']) await send(server, 'POST', flags, { name })
    await send(server, 'POST', `${flags}/steady/environments/development/on`)
    const { secret } = await send(server, 'POST', '/api/admin/api-tokens', {
      tokenName: 'killed',
      type: 'client',
      environment: 'development',
      projects: ['*'],
    })
    const sdk = await sdkOf(t, server.url, secret, { type: 'streaming' })
    assert.deepEqual([sdk.isEnabled('steady'), sdk.isEnabled('resilient')], [true, false])

    const exited = once(server.child, 'exit')
    server.child.kill('SIGKILL')
    await exited
    // While it is down, another instance on the same database switches the flag on.
    const meanwhile = await start()
    await send(meanwhile, 'POST', `${flags}/resilient/environments/development/on`)
    await meanwhile.stop()
    assert.equal(sdk.isEnabled('resilient'), false)

    server = await start(port)
    await eventually(() => sdk.isEnabled('resilient'), 'the SDK has the change made while the server was down', 30_000)
    assert.equal(sdk.isEnabled('steady'), true)
    // And it streams again (it polls every 60 s): a change after the restart arrives long before that.
    await send(server, 'POST', `${flags}/steady/environments/development/off`)
    const took = await timeUntil(() => !sdk.isEnabled('steady'), 'the SDK sees a change after the restart')
    t.diagnostic(`seen after ${Math.round(took)} ms`)
    // Before the servers stop (the after hooks run in the order they were added): a fetch the SDK
    // starts against a stopped server would fail after the test has ended.
    sdk.destroy()
  })
})
