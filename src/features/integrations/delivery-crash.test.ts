/**
 * At least once across a crash, and once across instances: Pennon SIGKILLed with deliveries
 * pending sends them all after its restart (a repeat only with the same `webhook-id`), and two
 * instances on one database send each event once.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startProcess } from '../../../bench/lib.ts'
import { call, createProcessDatabase, eventually, onEachDatabase, useTwoInstances } from '../../../test/test-app.ts'
import { startReceiver } from '../../../test/webhook-receiver.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const DELIVERY_ENV = { INTEGRATIONS_ALLOWED_HOSTS: '127.0.0.1', INTEGRATIONS_POLL_MS: '50', INTEGRATIONS_RETRY_MAX_SECONDS: '1' }

async function post(base: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

const webhookTo = (url: string) => ({ provider: 'webhook', enabled: true, parameters: { url }, events: ['feature-created'] })

onEachDatabase('webhook delivery across crashes and instances', (database) => {
  test('SIGKILLed with deliveries pending: after the restart every one arrives, a repeat only with the same webhook-id', {
    timeout: 120_000,
  }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const receiver = await startReceiver()
    t.after(() => receiver.stop())
    const env = { ...storage.env, ...DELIVERY_ENV, INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0' }

    const first = await startProcess('src/main.ts', env)
    assert.equal((await post(first.url, '/api/admin/addons', webhookTo(`${receiver.url}/hook`))).status, 201)
    await receiver.answer(503)
    const names = Array.from({ length: 6 }, (_, i) => `pending-${i}`)
    for (const name of names) assert.equal((await post(first.url, '/api/admin/projects/default/features', { name })).status, 201)
    // Let it try (and fail) at least once, then kill it with all six pending.
    await sleep(300)
    const exited = new Promise((resolve) => first.child.on('exit', resolve))
    first.child.kill('SIGKILL')
    await exited
    assert.deepEqual(await receiver.received(), [])

    await receiver.answer(200)
    const second = await startProcess('src/main.ts', env)
    t.after(() => second.stop())
    await eventually(
      async () => new Set((await receiver.received()).map((d) => d.headers['webhook-id'])).size === names.length,
      'all six',
      15_000,
    )
    await sleep(300)
    const received = await receiver.received()
    const byId = new Map<string, string>()
    for (const delivery of received) {
      const id = delivery.headers['webhook-id']!
      if (byId.has(id)) assert.equal(delivery.body, byId.get(id), 'a repeat is the same event')
      byId.set(id, delivery.body)
    }
    assert.deepEqual(
      [...byId.values()].map((body) => JSON.parse(body).featureName),
      names,
      'in order',
    )
  })

  test('two instances on one database: each event delivered once, in order', { timeout: 60_000 }, async (t) => {
    const receiver = await startReceiver()
    t.after(() => receiver.stop())
    const { first, second } = await useTwoInstances(t, database, DELIVERY_ENV)
    assert.equal((await call(first, 'POST', '/api/admin/addons', webhookTo(`${receiver.url}/hook`))).status, 201)
    const names = Array.from({ length: 20 }, (_, i) => `flag-${String(i).padStart(2, '0')}`)
    for (const [i, name] of names.entries()) {
      assert.equal((await call(i % 2 === 0 ? first : second, 'POST', '/api/admin/projects/default/features', { name })).status, 201)
    }
    await eventually(async () => (await receiver.received()).length >= names.length, 'all twenty', 15_000)
    await sleep(500)
    const received = await receiver.received()
    assert.deepEqual(
      received.map((delivery) => JSON.parse(delivery.body).featureName),
      names,
      'each once, in order',
    )
  })
})
