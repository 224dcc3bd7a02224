import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, apiToken, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { assertEmpty, at, jsonOk, validationError } from '../../../test/helpers/strategies.ts'

const ADDONS = '/api/admin/addons'
const RECEIVER = 'http://127.0.0.1:9/hook'
const allowLoopback = { env: { INTEGRATIONS_ALLOWED_HOSTS: '127.0.0.1' } }

const webhook = (fields: Record<string, unknown> = {}) => ({
  provider: 'webhook',
  enabled: true,
  description: 'to the incident timeline',
  parameters: { url: RECEIVER, authorization: 'Bearer s3cret', customHeaders: '{"X-Team":"flags"}', contentType: 'application/json' },
  events: ['feature-created', 'feature-environment-enabled'],
  projects: ['default'],
  environments: ['production'],
  ...fields,
})

onEachDatabase('addons API', (database) => {
  test('the providers, then create, read, change and delete: secrets never shown back nor in events', async (t) => {
    const pennon = await useTestApp(t, database, allowLoopback)
    const empty = jsonOk(await call(pennon, 'GET', ADDONS))
    assert.deepEqual(empty.addons, [])
    assert.deepEqual(
      empty.providers.map((p: { name: string }) => p.name),
      ['webhook', 'slack-app', 'teamsworkflow', 'datadog', 'new-relic'],
    )
    const webhookProvider = empty.providers[0]
    assert.deepEqual(
      webhookProvider.parameters.map((p: { name: string; required: boolean; sensitive: boolean }) => [p.name, p.required, p.sensitive]),
      [
        ['url', true, true],
        ['contentType', false, false],
        ['authorization', false, true],
        ['customHeaders', false, true],
        ['bodyTemplate', false, false],
        ['signingSecret', false, true],
      ],
    )
    assert.ok(webhookProvider.events.includes('feature-potentially-stale-on'))

    const created = await call(pennon, 'POST', ADDONS, webhook())
    assert.equal(created.status, 201, created.text)
    const { id, createdAt } = created.body
    assert.ok(Number.isInteger(id) && id > 0)
    const shown = {
      id,
      provider: 'webhook',
      description: 'to the incident timeline',
      enabled: true,
      parameters: { url: '*****', authorization: '*****', customHeaders: '*****', contentType: 'application/json' },
      events: ['feature-created', 'feature-environment-enabled'],
      projects: ['default'],
      environments: ['production'],
      createdAt,
    }
    assert.deepEqual(created.body, shown)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${ADDONS}/${id}`)), shown)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', ADDONS)).addons, [shown])

    // `*****` keeps the stored secret; what is left out goes; the description is kept when not sent.
    const { description: _kept, ...change } = webhook({
      parameters: { url: '*****', authorization: '*****', contentType: 'text/plain' },
      events: ['feature-archived'],
      projects: undefined,
      environments: undefined,
      enabled: false,
    })
    const changed = await call(pennon, 'PUT', `${ADDONS}/${id}`, change)
    assert.equal(changed.status, 200, changed.text)
    const after = {
      ...shown,
      enabled: false,
      parameters: { url: '*****', authorization: '*****', contentType: 'text/plain' },
      events: ['feature-archived'],
      projects: [],
      environments: [],
    }
    assert.deepEqual(changed.body, after)
    const stored = await pennon.database.db.selectFrom('addons').select('parameters').where('id', '=', id).executeTakeFirstOrThrow()
    assert.deepEqual(JSON.parse(stored.parameters), { url: RECEIVER, authorization: 'Bearer s3cret', contentType: 'text/plain' })

    assertEmpty(await call(pennon, 'DELETE', `${ADDONS}/${id}`))
    const gone = await call(pennon, 'GET', `${ADDONS}/${id}`)
    assert.equal(gone.status, 404)
    assert.deepEqual(withoutId(gone.body), errorOf('NotFoundError', `Could not find addon ${id}.`))
    assert.equal((await call(pennon, 'DELETE', `${ADDONS}/${id}`)).status, 404)
    assert.equal((await call(pennon, 'PUT', `${ADDONS}/${id}`, webhook())).status, 404)

    const events = (await allEvents(pennon)).filter((event) => event.type.startsWith('addon-config-'))
    const data = ({ parameters: _p, ...rest }: Record<string, unknown>) => rest
    assert.deepEqual(
      events.map((event) => [event.type, event.data, event.preData]),
      [
        ['addon-config-created', data(shown), null],
        ['addon-config-updated', data(after), data(shown)],
        ['addon-config-deleted', null, data(after)],
      ],
    )
    assert.doesNotMatch(JSON.stringify(events), /s3cret|127\.0\.0\.1|X-Team/)
  })

  test('every problem of a body at once, with where it is; an unknown provider first', async (t) => {
    const pennon = await useTestApp(t, database)
    const unknown = await call(pennon, 'POST', ADDONS, webhook({ provider: 'carrier-pigeon' }))
    assert.equal(unknown.status, 400)
    assert.deepEqual(
      withoutId(unknown.body),
      validationError(
        at('/body/provider', 'Unknown provider "carrier-pigeon": it must be one of webhook, slack-app, teamsworkflow, datadog, new-relic.'),
      ),
    )
    const bad = await call(
      pennon,
      'POST',
      ADDONS,
      webhook({ parameters: { url: 'http://127.0.0.1:9/hook', authorization: '', customHeaders: '["x"]' } }),
    )
    assert.equal(bad.status, 400)
    assert.deepEqual(
      withoutId(bad.body),
      validationError(
        at('/body/parameters/authorization', 'The `authorization` parameter must not be empty: leave it out instead.'),
        at(
          '/body/parameters/url',
          'The `url` parameter resolves to a non-public address (127.0.0.1); allow its host with INTEGRATIONS_ALLOWED_HOSTS.',
        ),
        at(
          '/body/parameters/customHeaders',
          'The `customHeaders` parameter must be a JSON object of header names and string values HTTP allows, as text.',
        ),
      ),
    )
    const injected = await call(
      pennon,
      'POST',
      ADDONS,
      webhook({
        parameters: { url: 'https://93.184.216.34/', authorization: 'a\r\nX-Evil: 1', customHeaders: '{"X-Ok":"1\\r\\nX-Evil: 1"}' },
      }),
    )
    assert.deepEqual(
      withoutId(injected.body),
      validationError(
        at('/body/parameters/authorization', 'The `authorization` parameter must hold no control characters: it is sent as a header.'),
        at(
          '/body/parameters/customHeaders',
          'The `customHeaders` parameter must be a JSON object of header names and string values HTTP allows, as text.',
        ),
      ),
    )
    const metadata = await call(pennon, 'POST', ADDONS, webhook({ parameters: { url: 'http://169.254.169.254/latest/meta-data' } }))
    assert.deepEqual(
      withoutId(metadata.body),
      validationError(
        at(
          '/body/parameters/url',
          'The `url` parameter resolves to a non-public address (169.254.169.254); allow its host with INTEGRATIONS_ALLOWED_HOSTS.',
        ),
      ),
    )
    const missing = await call(pennon, 'POST', ADDONS, { provider: 'datadog', enabled: true, parameters: {}, events: [] })
    assert.deepEqual(withoutId(missing.body), validationError(at('/body/parameters', 'The datadog provider needs `apiKey`.')))
    const keepNothing = await call(pennon, 'POST', ADDONS, {
      provider: 'new-relic',
      enabled: true,
      parameters: { url: '*****', licenseKey: 'k' },
      events: [],
    })
    assert.deepEqual(
      withoutId(keepNothing.body),
      validationError(at('/body/parameters/url', 'The `url` parameter has no stored value for `*****` to keep.')),
    )
    assert.equal((await call(pennon, 'POST', ADDONS, { provider: 'webhook', enabled: true, events: [] })).status, 400)
    assert.equal((await call(pennon, 'GET', `${ADDONS}/abc`)).status, 400)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', ADDONS)).addons, [])
    assert.deepEqual(
      (await allEvents(pennon)).filter((event) => event.type.startsWith('addon-')),
      [],
    )
  })

  test('permissions: Viewers read; Editors create, change and delete; client tokens are refused', async (t) => {
    const pennon = await useTestApp(t, database, allowLoopback)
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2)
    const client = await apiToken(pennon, 'client')
    const created = await call(pennon, 'POST', ADDONS, webhook(), { token: editor })
    assert.equal(created.status, 201)
    const path = `${ADDONS}/${created.body.id}`
    assert.equal((await call(pennon, 'GET', ADDONS, undefined, { token: viewer })).status, 200)
    assert.equal((await call(pennon, 'GET', path, undefined, { token: viewer })).status, 200)
    for (const [method, target, permission] of [
      ['POST', ADDONS, 'CREATE_ADDON'],
      ['PUT', path, 'UPDATE_ADDON'],
      ['DELETE', path, 'DELETE_ADDON'],
    ] as const) {
      const refused = await call(pennon, method, target, method === 'DELETE' ? undefined : webhook(), { token: viewer })
      assert.equal(refused.status, 403, `${method} ${target}`)
      assert.deepEqual(refused.body.permissions, [permission])
      assert.equal((await call(pennon, method, target, method === 'DELETE' ? undefined : webhook(), { token: client })).status, 403)
    }
    assert.equal((await call(pennon, 'PUT', path, webhook({ enabled: false }), { token: editor })).status, 200)
    assertEmpty(await call(pennon, 'DELETE', path, undefined, { token: editor }))
  })
})
