/**
 * POST /api/admin/auth/oidc/test against a real provider (test/oidc-issuer.ts): discovery and the
 * client's id and secret, each said ok or not with why, the stored settings used for what is left out.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { closedPort } from '../../../test/helpers/ports.ts'
import { createUser, PASSWORD } from '../../../test/people.ts'
import { PENNON, pennonWith, SECRET, ssoSettings, useIssuers } from '../../../test/single-sign-on.ts'
import { allEvents, call, onEachDatabase, useTestApp } from '../../../test/test-app.ts'

const issuers = useIssuers()
const TEST = '/api/admin/auth/oidc/test'

onEachDatabase('single sign-on: testing the connection', (database) => {
  test('good settings: both checks ok; a wrong secret or client id: the client is refused, saying so', async (t) => {
    const pennon = await useTestApp(t, database)
    const { url } = issuers.issuer
    const good = await call(pennon, 'POST', TEST, { discoverUrl: url, clientId: 'pennon', secret: SECRET })
    assert.equal(good.status, 200, good.text)
    assert.deepEqual(good.body, {
      discovery: { ok: true, issuer: url },
      client: { ok: true, message: 'The provider accepted the client id and secret.' },
    })
    // The discovery document's own URL works as well as the issuer's.
    const documentUrl = await call(pennon, 'POST', TEST, ssoSettings(issuers.issuer, { enabled: undefined }))
    assert.deepEqual(documentUrl.body, good.body)

    const wrongSecret = await call(pennon, 'POST', TEST, { discoverUrl: url, clientId: 'pennon', secret: 'not the secret' })
    assert.equal(wrongSecret.status, 200)
    assert.deepEqual(wrongSecret.body.discovery, { ok: true, issuer: url })
    assert.equal(wrongSecret.body.client.ok, false)
    assert.match(
      wrongSecret.body.client.message,
      /^The provider refused the client: the client id or the secret is wrong \(invalid_client\)\.$/,
    )
    assert.ok(!wrongSecret.text.includes('not the secret'), 'the secret is not answered')
    assert.ok(!pennon.logs.some((line) => line.includes('not the secret') || line.includes(SECRET)), 'nor logged')
    const wrongClient = await call(pennon, 'POST', TEST, { discoverUrl: url, clientId: 'nobody', secret: SECRET })
    assert.equal(wrongClient.body.client.ok, false)
    assert.match(wrongClient.body.client.message, /^The provider refused the client: the client id or the secret is wrong/)
    const noSecret = await call(pennon, 'POST', TEST, { discoverUrl: url, clientId: 'pennon' })
    assert.deepEqual(noSecret.body, { discovery: { ok: true, issuer: url }, client: { ok: false, message: 'No client secret is set.' } })
    // Testing stores nothing, and writes no event.
    const stored = await call(pennon, 'GET', '/api/admin/auth/oidc/settings')
    assert.equal(stored.body.discoverUrl, '')
    assert.deepEqual(
      (await allEvents(pennon)).filter((event) => event.type.startsWith('setting-')),
      [],
    )
  })

  test('what is left out is the stored setting (the secret too, or when empty)', async (t) => {
    const pennon = await pennonWith(t, database, ssoSettings(issuers.issuer))
    const stored = await call(pennon, 'POST', TEST, {})
    assert.equal(stored.status, 200, stored.text)
    assert.deepEqual(stored.body, {
      discovery: { ok: true, issuer: issuers.issuer.url },
      client: { ok: true, message: 'The provider accepted the client id and secret.' },
    })
    assert.deepEqual((await call(pennon, 'POST', TEST, { secret: '' })).body, stored.body)
    // Another provider, the stored client: discovery ok, and this provider accepts the same client.
    const other = await call(pennon, 'POST', TEST, { discoverUrl: issuers.other.url })
    assert.deepEqual(other.body.discovery, { ok: true, issuer: issuers.other.url })
    const wrong = await call(pennon, 'POST', TEST, { secret: 'wrong' })
    assert.equal(wrong.body.client.ok, false)
  })

  test('discovery: unreachable, plain http elsewhere than this machine, not a URL, not set', async (t) => {
    const pennon = await useTestApp(t, database)
    const port = await closedPort()
    const unreachable = await call(pennon, 'POST', TEST, { discoverUrl: `http://127.0.0.1:${port}`, clientId: 'pennon', secret: SECRET })
    assert.equal(unreachable.status, 200)
    assert.equal(unreachable.body.discovery.ok, false)
    assert.match(
      unreachable.body.discovery.message,
      new RegExp(
        `^The provider's discovery document at http://127\\.0\\.0\\.1:${port}/\\.well-known/openid-configuration could not be used: fetch failed`,
      ),
    )
    assert.deepEqual(unreachable.body.client, { ok: false, message: 'Not tried: discovery failed.' })

    const plain = await call(pennon, 'POST', TEST, { discoverUrl: 'http://login.example.com', clientId: 'pennon', secret: SECRET })
    assert.deepEqual(plain.body, {
      discovery: {
        ok: false,
        message: 'The discovery URL must be an https:// URL (http:// only on a loopback address: 127.0.0.1, ::1 or localhost).',
      },
      client: { ok: false, message: 'Not tried: discovery failed.' },
    })
    const notUrl = await call(pennon, 'POST', TEST, { discoverUrl: 'login' })
    assert.match(notUrl.body.discovery.message, /^The discovery URL must be a URL like https:/)
    const none = await call(pennon, 'POST', TEST, {})
    assert.deepEqual(none.body.discovery, { ok: false, message: 'No discovery URL is set.' })
    // No document there: the HTTP status.
    const { url } = issuers.issuer
    const elsewhere = await call(pennon, 'POST', TEST, { discoverUrl: `${url}/other`, clientId: 'pennon', secret: SECRET })
    assert.deepEqual(elsewhere.body.discovery, {
      ok: false,
      message: `The provider's discovery document at ${url}/other/.well-known/openid-configuration could not be used: unexpected HTTP response status code (HTTP 404)`,
    })
    // Reached by another name than its issuer's: the document names another issuer.
    const localhost = url.replace('127.0.0.1', 'localhost')
    const renamed = await call(pennon, 'POST', TEST, { discoverUrl: localhost, clientId: 'pennon', secret: SECRET })
    assert.deepEqual(renamed.body.discovery, {
      ok: false,
      message: `The provider's discovery document at ${localhost}/.well-known/openid-configuration could not be used: it names the issuer ${url}, not ${localhost}/`,
    })
  })

  test('Admins only; the body checked', async (t) => {
    const pennon = await useTestApp(t, database)
    await createUser(pennon, 'ed@example.com', 2)
    const editor = await call(pennon, 'POST', '/auth/simple/login', { username: 'ed@example.com', password: PASSWORD }, { token: null })
    const cookie = String(editor.headers['set-cookie']).split(';')[0]!
    const refused = await call(pennon, 'POST', TEST, {}, { token: null, headers: { cookie, origin: PENNON } })
    assert.equal(refused.status, 403, refused.text)
    const unknown = await call(pennon, 'POST', TEST, { issuer: 'x' })
    assert.equal(unknown.status, 400, unknown.text)
  })
})
