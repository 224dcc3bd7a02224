import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isNonPublicAddress, urlProblem } from './url-safety.ts'
import { send } from './senders.ts'
import { startReceiver } from '../../../test/webhook-receiver.ts'

test('loopback, private, link-local, metadata and reserved addresses are not public; others are', () => {
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ]) {
    assert.equal(isNonPublicAddress(address), true, address)
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1']) {
    assert.equal(isNonPublicAddress(address), false, address)
  }
})

test('a URL must be http(s) and resolve to public addresses only, unless its host is allowed', async () => {
  const resolve = async (host: string) =>
    ({ 'public.test': ['93.184.216.34'], 'inside.test': ['93.184.216.34', '10.0.0.7'] })[host] ?? Promise.reject(new Error('ENOTFOUND'))
  assert.equal(await urlProblem('https://public.test/hook', [], resolve), undefined)
  assert.equal(
    await urlProblem('http://inside.test/hook', [], resolve),
    'resolves to a non-public address (10.0.0.7); allow its host with INTEGRATIONS_ALLOWED_HOSTS',
  )
  assert.equal(await urlProblem('http://inside.test/hook', ['inside.test'], resolve), undefined)
  assert.equal(
    await urlProblem('http://127.0.0.1:8080/', [], resolve),
    'resolves to a non-public address (127.0.0.1); allow its host with INTEGRATIONS_ALLOWED_HOSTS',
  )
  assert.equal(
    await urlProblem('http://[::1]/', [], resolve),
    'resolves to a non-public address (::1); allow its host with INTEGRATIONS_ALLOWED_HOSTS',
  )
  assert.equal(await urlProblem('http://127.0.0.1:8080/', ['127.0.0.1'], resolve), undefined)
  assert.equal(await urlProblem('http://nowhere.test/', [], resolve), 'has a host that does not resolve (nowhere.test)')
  assert.equal(await urlProblem('ftp://public.test/', [], resolve), 'must be an http or https URL, not ftp')
  assert.equal(await urlProblem('not a url', [], resolve), 'must be an absolute URL')
})

test('a send by host name goes through the checked lookup: allowed by name it arrives, otherwise it is refused before connecting', async (t) => {
  const receiver = await startReceiver()
  t.after(() => receiver.stop())
  const url = receiver.url.replace('127.0.0.1', 'localhost')
  const eventJson = JSON.stringify({
    id: 1,
    type: 'feature-created',
    createdBy: 'admin',
    createdAt: new Date().toISOString(),
    featureName: 'f',
  })
  // Refused first: a connection kept alive from an allowed send would be reused without a lookup
  // (the allow-list is fixed for a process, so in service a reused connection was checked under the same list).
  const refused = await send('webhook', { url: `${url}/hook` }, eventJson, 'pennon-1-1', {
    allowedHosts: [],
    slackApiUrl: 'https://slack.com/api',
    publicUrl: undefined,
  })
  assert.equal(refused.state, 'failed')
  assert.match(
    refused.stateDetails,
    /^The URL resolves to a non-public address \((127\.0\.0\.1|::1)\); allow its host with INTEGRATIONS_ALLOWED_HOSTS\.\nWebhook request failed with status code: 500\.$/,
  )
  assert.equal((await receiver.received()).length, 0)
  const sent = await send('webhook', { url: `${url}/hook` }, eventJson, 'pennon-1-1', {
    allowedHosts: ['localhost'],
    slackApiUrl: 'https://slack.com/api',
    publicUrl: undefined,
  })
  assert.deepEqual([sent.state, sent.stateDetails], ['success', 'Webhook request was successful with status code: 200.'])
  assert.deepEqual(
    (await receiver.received()).map((delivery) => [delivery.path, delivery.body]),
    [['/hook', eventJson]],
  )
})

test('a send to a literal address is checked without a lookup, and a host that does not resolve is named as such', async (t) => {
  const receiver = await startReceiver()
  t.after(() => receiver.stop())
  const eventJson = JSON.stringify({ id: 1, type: 'feature-created', createdBy: 'admin', createdAt: new Date().toISOString() })
  const options = { allowedHosts: [], slackApiUrl: 'https://slack.com/api', publicUrl: undefined }
  const literal = await send('webhook', { url: `${receiver.url}/hook` }, eventJson, 'pennon-1-1', options)
  assert.deepEqual(
    [literal.state, literal.stateDetails],
    [
      'failed',
      'The URL resolves to a non-public address (127.0.0.1); allow its host with INTEGRATIONS_ALLOWED_HOSTS.\nWebhook request failed with status code: 500.',
    ],
  )
  const nowhere = await send('webhook', { url: 'http://nowhere.invalid/hook' }, eventJson, 'pennon-1-1', options)
  assert.deepEqual(
    [nowhere.state, nowhere.stateDetails],
    ['failed', 'The URL has a host that does not resolve (nowhere.invalid).\nWebhook request failed with status code: 500.'],
  )
  assert.equal((await receiver.received()).length, 0)
})
