/**
 * slack-app integrations delivered to a real receiver in its own process, answering as Slack's
 * chat.postMessage (INTEGRATIONS_SLACK_API_URL points at it): one message per channel, the flag's
 * `slack` tags and the default channels; `ok: false` is a failed call; all calls failed is a
 * failed try, tried again; some is successWithErrors; no channel is a failure not tried again.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { call, eventually, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { createFlag } from '../../../test/helpers/flags.ts'
import { createTagType, tagFlag } from '../../../test/helpers/tags.ts'
import { startReceiver, type Receiver } from '../../../test/webhook-receiver.ts'

const ADDONS = '/api/admin/addons'
const PUBLIC_URL = 'https://flags.example.com'
const REFUSED = 'A platform error occurred: {"ok":false,"error":"channel_not_found"}'

async function useSlack(t: { after(fn: () => Promise<void>): void }, refused: string[] = []): Promise<Receiver> {
  const receiver = await startReceiver()
  t.after(() => receiver.stop())
  await receiver.answerAsSlack(refused)
  return receiver
}

const slackEnv = (receiver: Receiver, allowed = '127.0.0.1') => ({
  INTEGRATIONS_ALLOWED_HOSTS: allowed,
  INTEGRATIONS_POLL_MS: '50',
  INTEGRATIONS_RETRY_MAX_SECONDS: '1',
  INTEGRATIONS_SLACK_API_URL: `${receiver.url}/api`,
  PUBLIC_URL,
})

/** `defaultChannels` undefined: none (the parameter left out). */
async function addSlackApp(pennon: TestApp, defaultChannels: string | undefined, events: string[], enabled = true): Promise<number> {
  const created = await call(pennon, 'POST', ADDONS, {
    provider: 'slack-app',
    enabled,
    parameters: { accessToken: 'xoxb-test', ...(defaultChannels === undefined ? {} : { defaultChannels }) },
    events,
  })
  assert.equal(created.status, 201, created.text)
  return created.body.id
}

/** The id of a flag's `feature-created` event. */
const createdEvent = async (pennon: TestApp, flag: string) =>
  await pennon.database.db
    .selectFrom('events')
    .select('id')
    .where('type', '=', 'feature-created')
    .where('feature_name', '=', flag)
    .executeTakeFirstOrThrow()

const deliveryLog = async (pennon: TestApp, id: number) => {
  const response = await call(pennon, 'GET', `${ADDONS}/${id}/events?limit=100`)
  assert.equal(response.status, 200)
  return response.body.integrationEvents.map((row: Record<string, unknown>) => [row.state, row.stateDetails, row.details])
}

/** What Pennon posts to one channel about a flag's event. */
const message = (channel: string, line: string, flag: string) => ({
  channel,
  text: line,
  blocks: [
    { type: 'section', text: { type: 'mrkdwn', text: line } },
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          url: `${PUBLIC_URL}/#/projects/default/features/${flag}`,
          text: { type: 'plain_text', text: 'Open in Pennon' },
          value: 'featureToggle',
          style: 'primary',
        },
      ],
    },
  ],
  unfurl_links: false,
})

onEachDatabase('slack-app delivery', (database) => {
  test("one message per channel, the flag's slack tags then the default channels: the exact request, and the delivery log", async (t) => {
    const receiver = await useSlack(t)
    const pennon = await useTestApp(t, database, { env: slackEnv(receiver) })
    await createTagType(pennon, 'slack')
    const id = await addSlackApp(pennon, 'general, releases ,general', ['feature-created', 'feature-tagged'])
    await createFlag(pennon, 'checkout')
    await tagFlag(pennon, 'checkout', 'slack', 'checkout-team')
    await eventually(async () => (await receiver.received()).length === 5, 'five messages')
    await sleep(300)
    const received = await receiver.received()
    assert.equal(received.length, 5, 'nothing more')

    const created = `*admin* feature-created *checkout* (project *default*)`
    const tagged = `*admin* feature-tagged *checkout* (project *default*)`
    const [first, second, ...rest] = received
    // Each event's messages go side by side; the events in order.
    const byChannel = (deliveries: typeof received) =>
      deliveries.map((delivery) => delivery.body).sort((a, b) => (JSON.parse(a).channel < JSON.parse(b).channel ? -1 : 1))
    assert.deepEqual(byChannel([first!, second!]), [
      JSON.stringify(message('general', created, 'checkout')),
      JSON.stringify(message('releases', created, 'checkout')),
    ])
    assert.deepEqual(byChannel(rest), [
      JSON.stringify(message('checkout-team', tagged, 'checkout')),
      JSON.stringify(message('general', tagged, 'checkout')),
      JSON.stringify(message('releases', tagged, 'checkout')),
    ])
    for (const delivery of received) {
      assert.equal(delivery.path, '/api/chat.postMessage')
      assert.equal(delivery.headers.authorization, 'Bearer xoxb-test')
      assert.equal(delivery.headers['content-type'], 'application/json; charset=utf-8')
      assert.match(delivery.headers['webhook-id']!, new RegExp(`^pennon-${id}-\\d+$`))
    }

    assert.deepEqual(await deliveryLog(pennon, id), [
      ['success', 'All (3) Slack client calls were successful.', { channels: ['checkout-team', 'general', 'releases'], message: tagged }],
      ['success', 'All (2) Slack client calls were successful.', { channels: ['general', 'releases'], message: created }],
    ])
  })

  test('Slack refusing every channel (ok: false) is a failed try, tried again until it takes the message', async (t) => {
    const receiver = await useSlack(t, ['general'])
    const pennon = await useTestApp(t, database, { env: slackEnv(receiver) })
    const id = await addSlackApp(pennon, 'general', ['feature-created'])
    await createFlag(pennon, 'retried')
    await eventually(async () => (await deliveryLog(pennon, id)).length >= 2, 'two failed tries')
    await receiver.answerAsSlack([])
    await eventually(async () => (await deliveryLog(pennon, id))[0][0] === 'success', 'the message taken', 10_000)
    await sleep(1_500)
    const log = await deliveryLog(pennon, id)
    const line = '*admin* feature-created *retried* (project *default*)'
    const details = { channels: ['general'], message: line }
    assert.deepEqual(log[0], ['success', 'All (1) Slack client calls were successful.', details])
    assert.deepEqual(
      log.slice(1),
      log.slice(1).map(() => ['failed', `All (1) Slack client calls failed with the following errors: ${REFUSED}`, details]),
    )
    const bodies = (await receiver.received()).map((delivery) => delivery.body)
    assert.equal(bodies.length, log.length, 'one post per try, none after the one taken')
    assert.deepEqual(new Set(bodies), new Set([JSON.stringify(message('general', line, 'retried'))]))
  })

  test('some channels refused: successWithErrors, not tried again (the others have it)', async (t) => {
    const receiver = await useSlack(t, ['nowhere'])
    const pennon = await useTestApp(t, database, { env: slackEnv(receiver) })
    const id = await addSlackApp(pennon, 'general, nowhere', ['feature-created'])
    await createFlag(pennon, 'partly')
    await eventually(async () => (await deliveryLog(pennon, id)).length === 1, 'the try')
    await sleep(1_500)
    assert.deepEqual(await deliveryLog(pennon, id), [
      [
        'successWithErrors',
        `Some (1 of 2) Slack client calls failed. Errors: ${REFUSED}`,
        { channels: ['general', 'nowhere'], message: '*admin* feature-created *partly* (project *default*)' },
      ],
    ])
    assert.equal((await receiver.received()).length, 2)
  })

  test('an event with no channel is recorded failed and passed, not tried again; the next one goes', async (t) => {
    const receiver = await useSlack(t)
    const pennon = await useTestApp(t, database, { env: slackEnv(receiver) })
    await createTagType(pennon, 'slack')
    const id = await addSlackApp(pennon, undefined, ['feature-created', 'feature-tagged'])
    await createFlag(pennon, 'quiet')
    await tagFlag(pennon, 'quiet', 'slack', 'loud')
    await eventually(async () => (await receiver.received()).length === 1, 'the tagged event')
    await sleep(1_500)
    const line = '*admin* feature-tagged *quiet* (project *default*)'
    assert.deepEqual(await deliveryLog(pennon, id), [
      ['success', 'All (1) Slack client calls were successful.', { channels: ['loud'], message: line }],
      ['failed', 'No Slack channels found for event feature-created.', { channels: [], message: '' }],
    ])
    assert.deepEqual(
      (await receiver.received()).map((delivery) => delivery.body),
      [JSON.stringify(message('loud', line, 'quiet'))],
    )
  })

  test('no answer from the Slack API is a failed call (port 9 of this host: refused)', async (t) => {
    const receiver = await useSlack(t)
    const env = { ...slackEnv(receiver), INTEGRATIONS_SLACK_API_URL: 'http://127.0.0.1:9/api' }
    const pennon = await useTestApp(t, database, { env })
    const id = await addSlackApp(pennon, 'general', ['feature-created'], false)
    await createFlag(pennon, 'unheard')
    const event = await createdEvent(pennon, 'unheard')
    const tried = await call(pennon, 'POST', `${ADDONS}/${id}/events/${event.id}/redeliver`)
    assert.deepEqual(
      [tried.status, tried.body.state, tried.body.stateDetails],
      [
        200,
        'failed',
        'All (1) Slack client calls failed with the following errors: A request error occurred: no answer (refused, unreachable or too slow)',
      ],
    )
  })

  test('a Slack API address that is not public is refused unless its host is allowed; without PUBLIC_URL, no button', async (t) => {
    const receiver = await useSlack(t)
    const env = { ...slackEnv(receiver, ''), PUBLIC_URL: '' }
    const pennon = await useTestApp(t, database, { env })
    const id = await addSlackApp(pennon, 'general', ['feature-created'], false)
    await createFlag(pennon, 'guarded')
    const event = await createdEvent(pennon, 'guarded')
    const refused = await call(pennon, 'POST', `${ADDONS}/${id}/events/${event.id}/redeliver`)
    assert.equal(refused.status, 200, refused.text)
    assert.equal(refused.body.state, 'failed')
    assert.match(
      refused.body.stateDetails,
      /^All \(1\) Slack client calls failed with the following errors: The Slack API URL resolves to a non-public address \(127\.0\.0\.1\); allow its host with INTEGRATIONS_ALLOWED_HOSTS\.$/,
    )
    assert.deepEqual(await receiver.received(), [])

    const allowed = await useTestApp(t, database, { env: { ...slackEnv(receiver), PUBLIC_URL: '' } })
    const sentId = await addSlackApp(allowed, 'general', ['feature-created'], false)
    await createFlag(allowed, 'unlinked')
    const sentEvent = await createdEvent(allowed, 'unlinked')
    const sent = await call(allowed, 'POST', `${ADDONS}/${sentId}/events/${sentEvent.id}/redeliver`)
    assert.deepEqual([sent.status, sent.body.state], [200, 'success'])
    const line = '*admin* feature-created *unlinked* (project *default*)'
    assert.deepEqual(
      (await receiver.received()).map((delivery) => JSON.parse(delivery.body)),
      [{ channel: 'general', text: line, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: line } }], unfurl_links: false }],
    )
  })
})
