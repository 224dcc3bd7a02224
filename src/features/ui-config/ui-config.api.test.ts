/**
 * GET /ui-config and POST /ui-config/cors through the real app on each database: the answer's
 * exact body, the origins stored and applied to the frontend API over real HTTP (a preflight and a
 * GET with Origin, before and after), on a second instance too; permissions, bad input, events.
 */
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadConfig } from '../../config.ts'
import { test } from 'node:test'
import {
  allEvents,
  apiToken,
  call,
  eventually,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  useTwoInstances,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'

const UI = '/api/admin/ui-config'
const CORS = '/api/admin/ui-config/cors'

/** A real HTTP request to a listening app: status and headers. */
async function send(base: string, method: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }))
    })
    req.on('error', reject)
    req.end()
  })
}

async function listen(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(pennon.app.server.address() as AddressInfo).port}`
}

onEachDatabase('ui-config', (database) => {
  test('GET /ui-config: what is true of this Pennon', async (t) => {
    const pennon = await useTestApp(t, database)
    const answer = await call(pennon, 'GET', UI)
    assert.equal(answer.status, 200)
    const { instanceId } = answer.body.versionInfo
    assert.match(instanceId, /^[0-9a-f-]{36}$/)
    assert.deepEqual(answer.body, {
      name: 'Pennon',
      version: '0.1.0',
      unleashUrl: 'http://localhost:80',
      baseUriPath: '',
      authenticationType: 'open-source',
      disablePasswordAuth: false,
      emailEnabled: false,
      maintenanceMode: false,
      prometheusAPIAvailable: false,
      frontendApiOrigins: ['*'],
      flags: {},
      versionInfo: { current: { oss: '0.1.0', enterprise: '' }, latest: {}, isLatest: true, instanceId },
    })
    assert.equal((await call(pennon, 'POST', '/api/admin/maintenance', { enabled: true })).status, 204)
    const viewer = await serviceAccountToken(pennon, 3).catch(() => undefined)
    assert.equal(viewer, undefined) // refused in maintenance: a change
    assert.equal((await call(pennon, 'GET', UI)).body.maintenanceMode, true)
    assert.equal((await call(pennon, 'GET', UI, undefined, { token: null })).status, 401)

    const open = await useTestApp(t, database, {
      env: { AUTH_TYPE: 'none', PUBLIC_URL: 'https://flags.example.com', FRONTEND_API_ORIGINS: 'https://a.example, https://b.example' },
    })
    const openAnswer = await call(open, 'GET', UI, undefined, { token: null, headers: { host: '127.0.0.1' } })
    assert.equal(openAnswer.status, 200, openAnswer.text)
    assert.equal(openAnswer.body.authenticationType, 'none')
    assert.equal(openAnswer.body.disablePasswordAuth, true)
    assert.equal(openAnswer.body.unleashUrl, 'https://flags.example.com')
    assert.deepEqual(openAnswer.body.frontendApiOrigins, ['https://a.example', 'https://b.example'])
  })

  test('POST /ui-config/cors: stored, shown, applied to the frontend API over HTTP; events', async (t) => {
    const pennon = await useTestApp(t, database)
    const frontend = await apiToken(pennon, 'frontend')
    const base = await listen(pennon)
    const preflight = (origin: string) =>
      send(base, 'OPTIONS', '/api/frontend', {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      })
    const get = (origin: string) => send(base, 'GET', '/api/frontend', { origin, authorization: frontend })

    // Before: any origin.
    for (const response of [await preflight('https://shop.example'), await get('https://shop.example')]) {
      assert.equal(response.headers['access-control-allow-origin'], '*')
      assert.equal(response.headers.vary, undefined)
    }
    assert.equal((await preflight('https://shop.example')).status, 204)
    assert.equal((await get('https://shop.example')).status, 200)

    const set = await call(pennon, 'POST', CORS, { frontendApiOrigins: ['https://shop.example', 'http://localhost:3000'] })
    assert.equal(set.status, 204)
    assert.equal(set.text, '')
    assert.deepEqual((await call(pennon, 'GET', UI)).body.frontendApiOrigins, ['https://shop.example', 'http://localhost:3000'])
    const allowedPreflight = await preflight('https://shop.example')
    assert.equal(allowedPreflight.status, 204)
    assert.equal(allowedPreflight.headers['access-control-allow-origin'], 'https://shop.example')
    assert.equal(allowedPreflight.headers.vary, 'Origin')
    const allowedGet = await get('http://localhost:3000')
    assert.equal(allowedGet.status, 200)
    assert.equal(allowedGet.headers['access-control-allow-origin'], 'http://localhost:3000')
    assert.equal(allowedGet.headers.vary, 'Origin')
    // Another origin: answered, but without the header its browser needs.
    const otherPreflight = await preflight('https://evil.example')
    assert.equal(otherPreflight.status, 204)
    assert.equal(otherPreflight.headers['access-control-allow-origin'], undefined)
    const otherGet = await get('https://evil.example')
    assert.equal(otherGet.status, 200)
    assert.equal(otherGet.headers['access-control-allow-origin'], undefined)
    // OFREP follows the same origins.
    const ofrep = await send(base, 'OPTIONS', '/ofrep/v1/evaluate/flags', {
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
    })
    assert.equal(ofrep.headers['access-control-allow-origin'], undefined)

    // The same again changes nothing (no event); an empty list is any origin again.
    assert.equal((await call(pennon, 'POST', CORS, { frontendApiOrigins: ['https://shop.example', 'http://localhost:3000'] })).status, 204)
    assert.equal((await call(pennon, 'POST', CORS, { frontendApiOrigins: [] })).status, 204)
    assert.equal((await get('https://evil.example')).headers['access-control-allow-origin'], '*')

    const events = (await allEvents(pennon)).filter((event) => event.type.startsWith('setting-'))
    assert.deepEqual(
      events.map((event) => [event.type, event.data, event.preData]),
      [
        ['setting-created', { id: 'unleash.frontend', frontendApiOrigins: ['https://shop.example', 'http://localhost:3000'] }, null],
        [
          'setting-updated',
          { id: 'unleash.frontend', frontendApiOrigins: [] },
          { frontendApiOrigins: ['https://shop.example', 'http://localhost:3000'] },
        ],
      ],
    )
  })

  test('the stored origins hold on every instance of the deployment', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    const frontend = await apiToken(first, 'frontend')
    const get = (pennon: TestApp) =>
      call(pennon, 'GET', '/api/frontend', undefined, { token: frontend, headers: { origin: 'https://evil.example' } })
    assert.equal((await get(second)).headers['access-control-allow-origin'], '*')
    assert.equal((await call(first, 'POST', CORS, { frontendApiOrigins: ['https://shop.example'] })).status, 204)
    await eventually(async () => (await get(second)).headers['access-control-allow-origin'] === undefined, 'the second instance to follow')
    assert.deepEqual((await call(second, 'GET', UI)).body.frontendApiOrigins, ['https://shop.example'])
  })

  test('POST /ui-config/cors: ADMIN only; no origins is a 404; a bad origin a 400', async (t) => {
    const pennon = await useTestApp(t, database)
    const editor = await serviceAccountToken(pennon, 2)
    const refused = await call(pennon, 'POST', CORS, { frontendApiOrigins: ['*'] }, { token: editor })
    assert.equal(refused.status, 403)
    assert.deepEqual(refused.body.permissions, ['ADMIN'])
    const none = await call(pennon, 'POST', CORS, {})
    assert.equal(none.status, 404)
    assert.equal(none.body.name, 'NotFoundError')
    for (const bad of ['https://shop.example/', 'https://*.example', 'shop.example', '']) {
      const answer = await call(pennon, 'POST', CORS, { frontendApiOrigins: ['*', bad] })
      assert.equal(answer.status, 400, bad)
      assert.deepEqual(withoutId(answer.body), {
        name: 'ValidationError',
        message: `Invalid origin: ${bad}`,
        details: [{ message: `Invalid origin: ${bad}` }],
      })
    }
    assert.equal((await call(pennon, 'POST', CORS, { frontendApiOrigins: 'https://shop.example' })).status, 400)
    assert.equal((await call(pennon, 'POST', CORS, { frontendApiOrigins: ['*'], other: 1 })).status, 400)
    assert.deepEqual((await call(pennon, 'GET', UI)).body.frontendApiOrigins, ['*'])
    assert.equal((await allEvents(pennon)).filter((event) => event.type.startsWith('setting-')).length, 0)
  })
})

test('FRONTEND_API_ORIGINS: `*` by default; an entry that is neither `*` nor an origin stops the start', () => {
  assert.deepEqual(loadConfig({}).frontendApiOrigins, ['*'])
  assert.deepEqual(loadConfig({ FRONTEND_API_ORIGINS: ' https://a.example ,http://localhost:3000' }).frontendApiOrigins, [
    'https://a.example',
    'http://localhost:3000',
  ])
  for (const bad of ['https://a.example/', 'https://*.example', 'a.example'])
    assert.throws(() => loadConfig({ FRONTEND_API_ORIGINS: bad }), /FRONTEND_API_ORIGINS entries must be \* or origins/)
  assert.equal(loadConfig({}).userInactivityDays, 180)
})
