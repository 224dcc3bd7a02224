/** Webhooks delivered to a real receiver in its own process: once per event, in order, after failures, signed. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Webhook } from 'standardwebhooks'
import { call, eventually, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { startReceiver, type Receiver } from '../../../test/webhook-receiver.ts'

const ADDONS = '/api/admin/addons'
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
const env = { INTEGRATIONS_ALLOWED_HOSTS: '127.0.0.1', INTEGRATIONS_POLL_MS: '50', INTEGRATIONS_RETRY_MAX_SECONDS: '1' }

async function useReceiver(t: { after(fn: () => Promise<void>): void }): Promise<Receiver> {
  const receiver = await startReceiver()
  t.after(() => receiver.stop())
  return receiver
}

const createFlag = async (pennon: TestApp, name: string, project = 'default') =>
  assert.equal((await call(pennon, 'POST', `/api/admin/projects/${project}/features`, { name })).status, 201)

const storedEvent = async (pennon: TestApp, type: string, featureName: string) =>
  await pennon.database.db
    .selectFrom('events')
    .select(['id', 'json'])
    .where('type', '=', type)
    .where('feature_name', '=', featureName)
    .executeTakeFirstOrThrow()

async function addWebhook(
  pennon: TestApp,
  receiver: Receiver,
  fields: Record<string, unknown> = {},
  parameters: Record<string, unknown> = {},
) {
  const created = await call(pennon, 'POST', ADDONS, {
    provider: 'webhook',
    enabled: true,
    parameters: { url: `${receiver.url}/hook`, authorization: 'Bearer hook-token', customHeaders: '{"X-Team":"flags"}', ...parameters },
    events: ['feature-created'],
    ...fields,
  })
  assert.equal(created.status, 201, created.text)
  return created.body.id as number
}

onEachDatabase('webhook delivery', (database) => {
  test('one change, one delivery: the event as stored, the headers asked for, a signature the standardwebhooks package verifies', async (t) => {
    const receiver = await useReceiver(t)
    const pennon = await useTestApp(t, database, { env })
    const id = await addWebhook(pennon, receiver, {}, { signingSecret: SECRET })
    await createFlag(pennon, 'checkout')
    await eventually(async () => (await receiver.received()).length === 1, 'the delivery')
    await sleep(300)
    const [delivery, ...more] = await receiver.received()
    assert.deepEqual(more, [], 'exactly one delivery')
    const event = await storedEvent(pennon, 'feature-created', 'checkout')
    assert.equal(delivery!.path, '/hook')
    assert.equal(delivery!.body, event.json, 'the body is the event, byte for byte')
    assert.equal(delivery!.headers['content-type'], 'application/json')
    assert.equal(delivery!.headers.authorization, 'Bearer hook-token')
    assert.equal(delivery!.headers['x-team'], 'flags')
    assert.equal(delivery!.headers['webhook-id'], `pennon-${id}-${event.id}`)
    const verified = new Webhook(SECRET).verify(delivery!.body, delivery!.headers)
    assert.deepEqual(verified, JSON.parse(event.json))
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(delivery!.body, delivery!.headers))

    const log = await call(pennon, 'GET', `${ADDONS}/${id}/events`)
    assert.equal(log.status, 200)
    assert.deepEqual(
      log.body.integrationEvents.map((row: Record<string, unknown>) => [
        row.integrationId,
        row.state,
        row.stateDetails,
        row.event,
        row.details,
      ]),
      [
        [
          id,
          'success',
          'Webhook request was successful with status code: 200.',
          JSON.parse(event.json),
          { url: `${receiver.url}/hook`, contentType: 'application/json', body: JSON.parse(event.json) },
        ],
      ],
    )
    assert.match(log.body.integrationEvents[0].id, /^[0-9]+$/)

    // Sent again by hand: the same event and webhook-id, a second try in the log.
    const again = await call(pennon, 'POST', `${ADDONS}/${id}/events/${event.id}/redeliver`)
    assert.equal(again.status, 200, again.text)
    assert.deepEqual(
      [again.body.state, again.body.stateDetails, again.body.event],
      ['success', 'Webhook request was successful with status code: 200.', JSON.parse(event.json)],
    )
    const [, repeat] = await receiver.received()
    assert.deepEqual([repeat!.body, repeat!.headers['webhook-id']], [event.json, `pennon-${id}-${event.id}`])
    assert.equal((await call(pennon, 'GET', `${ADDONS}/${id}/events`)).body.integrationEvents.length, 2)
    const unknownEvent = await call(pennon, 'POST', `${ADDONS}/${id}/events/999999/redeliver`)
    assert.deepEqual([unknownEvent.status, unknownEvent.body.message], [404, 'Event 999999 does not exist.'])
  })

  test("an integration with nothing to send writes nothing: no write wakes the workers or empties the SDKs' caches", async (t) => {
    const receiver = await useReceiver(t)
    const pennon = await useTestApp(t, database, { env })
    await addWebhook(pennon, receiver)
    await createFlag(pennon, 'once')
    await eventually(async () => (await receiver.received()).length === 1, 'the delivery')
    // The delivery's commit, and the lease given back once it has been idle a while; then nothing,
    // though INTEGRATIONS_POLL_MS (50) looks 20 times a second.
    await eventually(
      async () => (await pennon.database.db.selectFrom('addons').select('leased_until').executeTakeFirstOrThrow()).leased_until === null,
      'the lease given back',
    )
    // Its commit's own announcement, which may come just after.
    await sleep(100)
    let writes = 0
    const unsubscribe = pennon.database.watchChanges().subscribe?.(() => writes++)
    await sleep(1000)
    unsubscribe?.()
    assert.equal(writes, 0)
    assert.equal((await receiver.received()).length, 1)
  })

  test('changed while it is sending: new settings apply from 100 ms after the change; disabled and enabled again, what came between is not sent', async (t) => {
    const receiver = await useReceiver(t)
    const pennon = await useTestApp(t, database, { env })
    const id = await addWebhook(pennon, receiver)
    const put = async (fields: Record<string, unknown>) => {
      const changed = await call(pennon, 'PUT', `${ADDONS}/${id}`, {
        provider: 'webhook',
        enabled: true,
        parameters: { url: `${receiver.url}/hook`, authorization: '*****', customHeaders: '*****' },
        events: ['feature-created'],
        ...fields,
      })
      assert.equal(changed.status, 200, changed.text)
      await sleep(150)
    }
    const arrived = async () => (await receiver.received()).map((delivery) => `${delivery.path} ${JSON.parse(delivery.body).featureName}`)
    await createFlag(pennon, 'first')
    await eventually(async () => (await arrived()).length === 1, 'the first')
    // Still held by its sender (idle for less than a second): the settings are read back.
    await put({ parameters: { url: `${receiver.url}/moved`, authorization: '*****', customHeaders: '*****' } })
    await createFlag(pennon, 'second')
    await eventually(async () => (await arrived()).length === 2, 'the second')
    await put({ enabled: false })
    await createFlag(pennon, 'while-off')
    await put({ enabled: true })
    await createFlag(pennon, 'third')
    await eventually(async () => (await arrived()).length === 3, 'the third')
    await sleep(300)
    assert.deepEqual(await arrived(), ['/hook first', '/moved second', '/hook third'])
  })

  test('a receiver down for five changes gets all five, in order, once it is up; each failure is in the log', async (t) => {
    const receiver = await useReceiver(t)
    const pennon = await useTestApp(t, database, { env })
    const id = await addWebhook(pennon, receiver)
    await receiver.answer(503)
    for (const name of ['one', 'two', 'three', 'four', 'five']) await createFlag(pennon, name)
    await eventually(
      async () => (await call(pennon, 'GET', `${ADDONS}/${id}/events`)).body.integrationEvents.length >= 2,
      'two failed tries',
    )
    assert.deepEqual(await receiver.received(), [])
    await receiver.answer(200)
    await eventually(async () => (await receiver.received()).length >= 5, 'all five', 10_000)
    await sleep(300)
    const names = (await receiver.received()).map((delivery) => JSON.parse(delivery.body).featureName)
    assert.deepEqual(names, ['one', 'two', 'three', 'four', 'five'])
    const log = (await call(pennon, 'GET', `${ADDONS}/${id}/events?limit=100`)).body.integrationEvents
    const failures = log.filter((row: { state: string }) => row.state === 'failed')
    assert.ok(failures.length >= 2)
    for (const row of failures) {
      assert.equal(row.stateDetails, 'Webhook request failed with status code: 503.')
      assert.equal(row.event.featureName, 'one', 'nothing after the first undelivered one is tried')
    }
    assert.deepEqual(
      log
        .filter((row: { state: string }) => row.state === 'success')
        .map((row: { event: { featureName: string } }) => row.event.featureName),
      ['five', 'four', 'three', 'two', 'one'],
      'newest first',
    )
  })

  test('an integration disabled with deliveries pending sends none of them, even once its receiver is up', async (t) => {
    const receiver = await useReceiver(t)
    const pennon = await useTestApp(t, database, { env })
    const id = await addWebhook(pennon, receiver)
    await receiver.answer(503)
    for (const name of ['held-1', 'held-2', 'held-3']) await createFlag(pennon, name)
    await eventually(async () => (await call(pennon, 'GET', `${ADDONS}/${id}/events`)).body.integrationEvents.length >= 1, 'a failed try')
    const disabled = await call(pennon, 'PUT', `${ADDONS}/${id}`, {
      provider: 'webhook',
      enabled: false,
      parameters: { url: '*****', authorization: '*****', customHeaders: '*****' },
      events: ['feature-created'],
    })
    assert.equal(disabled.status, 200, disabled.text)
    await receiver.answer(200)
    await sleep(2500)
    assert.deepEqual(await receiver.received(), [])
  })

  test('a template, the filters, and an integration enabled again starting from then', async (t) => {
    const receiver = await useReceiver(t)
    const pennon = await useTestApp(t, database, { env })
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' })).status, 201)
    await addWebhook(
      pennon,
      receiver,
      { projects: ['other'] },
      { bodyTemplate: '{"type":"{{event.type}}","flag":"{{event.featureName}}","json":{{{eventJson}}}}' },
    )
    const later = await addWebhook(pennon, receiver, { enabled: false })
    await createFlag(pennon, 'elsewhere')
    await createFlag(pennon, 'here', 'other')
    await eventually(async () => (await receiver.received()).length === 1, 'the delivery for project other')
    const [templated] = await receiver.received()
    const event = await storedEvent(pennon, 'feature-created', 'here')
    assert.deepEqual(JSON.parse(templated!.body), { type: 'feature-created', flag: 'here', json: event.json })

    // Enabled again: the events of while it was off are not sent.
    const enabled = await call(pennon, 'PUT', `${ADDONS}/${later}`, {
      provider: 'webhook',
      enabled: true,
      parameters: { url: '*****', authorization: '*****', customHeaders: '*****' },
      events: ['feature-created'],
    })
    assert.equal(enabled.status, 200, enabled.text)
    await createFlag(pennon, 'after')
    await eventually(async () => (await receiver.received()).length === 2, 'the delivery after it was enabled')
    await sleep(300)
    assert.deepEqual(
      (await receiver.received()).map(
        (delivery) => delivery.path + ' ' + (JSON.parse(delivery.body).featureName ?? JSON.parse(delivery.body).flag),
      ),
      ['/hook here', '/hook after'],
    )
  })
})

onEachDatabase('delivery by the other providers', (database) => {
  test('Teams, Datadog and New Relic get their own requests, as the reference sends them', async (t) => {
    const receiver = await useReceiver(t)
    const pennon = await useTestApp(t, database, { env })
    const add = async (provider: string, parameters: Record<string, unknown>) =>
      assert.equal((await call(pennon, 'POST', ADDONS, { provider, enabled: true, parameters, events: ['feature-created'] })).status, 201)
    await add('teamsworkflow', { url: `${receiver.url}/teams` })
    await add('datadog', { url: `${receiver.url}/datadog`, apiKey: 'dd-key', sourceTypeName: 'pennon' })
    await add('new-relic', { url: `${receiver.url}/new-relic`, licenseKey: 'nr-key', customHeaders: '{"X-Extra":"1"}' })
    await createFlag(pennon, 'observed')
    await eventually(async () => (await receiver.received()).length === 3, 'three deliveries')
    const event = JSON.parse((await storedEvent(pennon, 'feature-created', 'observed')).json)
    const byPath = new Map((await receiver.received()).map((delivery) => [delivery.path, delivery]))
    const line = `*${event.createdBy}* feature-created *observed* (project *default*)`

    const teams = byPath.get('/teams')!
    assert.equal(teams.headers['content-type'], 'application/json')
    const card = JSON.parse(teams.body)
    assert.equal(card.type, 'message')
    assert.equal(card.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive')
    assert.deepEqual(card.attachments[0].content.body[0].items[1], { type: 'TextBlock', text: line, wrap: true })
    assert.deepEqual(card.attachments[0].content.body[0].items[2].facts, [
      { title: 'User:', value: event.createdBy },
      { title: 'Action:', value: 'feature-created' },
    ])

    const datadog = byPath.get('/datadog')!
    assert.equal(datadog.headers['dd-api-key'], 'dd-key')
    assert.deepEqual(JSON.parse(datadog.body), {
      text: `%%% \n ${line} \n %%% `,
      title: 'Feature flag update',
      tags: [],
      source_type_name: 'pennon',
    })

    const newRelic = byPath.get('/new-relic')!
    assert.equal(newRelic.headers['api-key'], 'nr-key')
    assert.equal(newRelic.headers['content-encoding'], 'gzip')
    assert.equal(newRelic.headers['x-extra'], '1')
    assert.deepEqual(JSON.parse(newRelic.body), {
      eventType: 'UnleashServiceEvent',
      unleashEventType: 'feature-created',
      featureName: 'observed',
      environment: null,
      createdBy: event.createdBy,
      createdByUserId: event.createdByUserId,
      createdAt: Date.parse(event.createdAt),
      ...event.data,
    })
    for (const delivery of [teams, datadog, newRelic]) assert.match(delivery.headers['webhook-id']!, /^pennon-\d+-\d+$/)
  })
})
