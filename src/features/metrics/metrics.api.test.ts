import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, eventually, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { hourOf } from './metrics-aggregate.ts'

// Flushes every 10 ms: a test waits for its rows with `eventually`.
const FAST = { env: { METRICS_FLUSH_MS: '10' } }

let unique = 0
const name = (prefix: string) => `${prefix}-${process.pid}-${++unique}`

async function createFlag(pennon: TestApp, flag: string, project = 'default'): Promise<void> {
  const response = await call(pennon, 'POST', `/api/admin/projects/${project}/features`, { name: flag })
  assert.equal(response.status, 201, response.text)
}

async function createProject(pennon: TestApp, id: string): Promise<void> {
  const response = await call(pennon, 'POST', '/api/admin/projects', { id, name: id })
  assert.equal(response.status, 201, response.text)
}

async function scopedToken(pennon: TestApp, type: 'client' | 'frontend', environment: string, projects: string[]): Promise<string> {
  const response = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: name(type), type, environment, projects })
  assert.equal(response.status, 201, response.text)
  return response.body.secret
}

const metricsBody = (appName: string, toggles: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  appName,
  instanceId: 'instance-1',
  bucket: { start: new Date(Date.now() - 1000).toISOString(), stop: new Date().toISOString(), toggles },
  ...extra,
})

/** Posts and checks the empty answer the reference gives: the status, no body, no content type. */
async function post(pennon: TestApp, url: string, body: unknown, token: string, status = 202): Promise<void> {
  const response = await call(pennon, 'POST', url, body, { token })
  assert.equal(response.status, status, response.text)
  if (status < 300) {
    assert.equal(response.text, '')
    assert.equal(response.headers['content-type'], undefined)
  }
}

const metricRows = (pennon: TestApp, feature: string) =>
  pennon.database.db
    .selectFrom('client_metrics_env')
    .selectAll()
    .where('feature_name', '=', feature)
    .orderBy('environment')
    .orderBy('app_name')
    .execute()

const hasRows =
  (pennon: TestApp, feature: string, count = 1) =>
  async () =>
    (await metricRows(pennon, feature)).length >= count

onEachDatabase('SDK metrics', (database) => {
  test('metrics and a registration answer 202 with no body; the admin reads show them once written', async (t) => {
    const pennon = await useTestApp(t, database, FAST)
    const client = await apiToken(pennon, 'client')
    const flag = name('seen')
    const app = name('app')
    await createFlag(pennon, flag)
    const started = new Date().toISOString()
    await post(
      pennon,
      '/api/client/register',
      {
        appName: app,
        instanceId: 'i-1',
        sdkVersion: 'unleash-node-sdk:6.12.1',
        strategies: ['default', 'flexibleRollout'],
        started,
        interval: 60000,
        connectionId: 'c',
        platformName: 'node',
        yggdrasilVersion: null,
      },
      client,
    )
    await post(
      pennon,
      '/api/client/metrics',
      metricsBody(app, { [flag]: { yes: 3, no: 1, variants: { blue: 2 } } }, { instanceId: 'i-1' }),
      client,
    )
    await eventually(hasRows(pennon, flag), 'metrics written')

    const applications = await call(pennon, 'GET', '/api/admin/metrics/applications')
    assert.equal(applications.status, 200, applications.text)
    assert.deepEqual(applications.body, {
      total: 1,
      applications: [
        {
          appName: app,
          sdkVersion: 'unleash-node-sdk:6.12.1',
          strategies: ['default', 'flexibleRollout'],
          usage: [{ project: '*', environments: ['development'] }],
        },
      ],
    })
    const usage = await call(pennon, 'GET', `/api/admin/client-metrics/features/${flag}`)
    assert.equal(usage.status, 200, usage.text)
    assert.deepEqual(usage.body, {
      version: 1,
      maturity: 'stable',
      featureName: flag,
      lastHourUsage: [{ environment: 'development', timestamp: hourOf(Date.now()), yes: 3, no: 1, variants: { blue: 2 } }],
      seenApplications: [app],
    })
    const instances = await pennon.database.db.selectFrom('client_instances').selectAll().execute()
    assert.equal(instances.length, 1)
    assert.deepEqual(
      { ...instances[0], created_at: undefined, last_seen_at: undefined, client_ip: undefined },
      {
        app_name: app,
        instance_id: 'i-1',
        environment: 'development',
        sdk_version: 'unleash-node-sdk:6.12.1',
        started_at: started,
        interval: 60000,
        created_at: undefined,
        last_seen_at: undefined,
        client_ip: undefined,
        sdk_type: 'backend',
      },
    )
    assert.equal(instances[0]!.client_ip, '127.0.0.1')

    // A flag never reported: empty lists, as the reference answers.
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/client-metrics/features/nothing-here')).body, {
      version: 1,
      maturity: 'stable',
      featureName: 'nothing-here',
      lastHourUsage: [],
      seenApplications: [],
    })
  })

  test('many reports become one row per hour, flag, environment and application, with the counts summed', async (t) => {
    const pennon = await useTestApp(t, database, FAST)
    const client = await apiToken(pennon, 'client')
    const [a, b] = [name('sum-a'), name('sum-b')]
    await createFlag(pennon, a)
    await createFlag(pennon, b)
    const app = name('app')
    const reports = Array.from({ length: 60 }, (_, i) =>
      post(
        pennon,
        '/api/client/metrics',
        metricsBody(app, { [a]: { yes: 2, no: 1, variants: { red: 1, blue: 1 } }, [b]: { yes: 0, no: 5 } }, { instanceId: `i-${i % 6}` }),
        client,
      ),
    )
    await Promise.all(reports)
    await eventually(
      async () => (await metricRows(pennon, a))[0]?.yes === 120 && (await metricRows(pennon, b))[0]?.no === 300,
      'all counted',
    )
    const hour = hourOf(Date.now())
    assert.deepEqual(await metricRows(pennon, a), [
      { feature_name: a, app_name: app, environment: 'development', timestamp: hour, yes: 120, no: 60 },
    ])
    assert.deepEqual(await metricRows(pennon, b), [
      { feature_name: b, app_name: app, environment: 'development', timestamp: hour, yes: 0, no: 300 },
    ])
    const variants = await pennon.database.db
      .selectFrom('client_metrics_env_variants')
      .select(['variant', 'count'])
      .where('feature_name', '=', a)
      .orderBy('variant')
      .execute()
    assert.deepEqual(variants, [
      { variant: 'blue', count: 60 },
      { variant: 'red', count: 60 },
    ])
    assert.equal((await pennon.database.db.selectFrom('client_instances').select('instance_id').execute()).length, 6)
    assert.equal((await pennon.database.db.selectFrom('client_applications').select('app_name').execute()).length, 1)
  })

  test("the environment is the token's; flags outside its projects, unknown names and empty counts are not stored", async (t) => {
    const pennon = await useTestApp(t, database, FAST)
    const project = name('metrics-project')
    await createProject(pennon, project)
    const [ours, theirs] = [name('ours'), name('theirs')]
    await createFlag(pennon, ours, project)
    await createFlag(pennon, theirs)
    const token = await scopedToken(pennon, 'client', 'production', [project])
    const app = name('app')
    // Even an `environment` in the body does not change a scoped token's environment.
    await post(
      pennon,
      '/api/client/metrics',
      metricsBody(
        app,
        {
          [ours]: { yes: 1, no: 0 },
          [theirs]: { yes: 5, no: 5 },
          'no-such-flag': { yes: 1 },
          [`${'x'.repeat(101)}`]: { yes: 1 },
        },
        { environment: 'development' },
      ),
      token,
    )
    await eventually(hasRows(pennon, ours), 'metrics written')
    assert.deepEqual(
      (await metricRows(pennon, ours)).map((row) => [row.environment, row.yes, row.no]),
      [['production', 1, 0]],
    )
    assert.deepEqual(
      await pennon.database.db.selectFrom('client_metrics_env').select('feature_name').where('feature_name', '!=', ours).execute(),
      [],
    )
    assert.deepEqual(await pennon.database.db.selectFrom('client_applications_usage').select(['project', 'environment']).execute(), [
      { project, environment: 'production' },
    ])

    // An admin token says the environment in the body; without one, development.
    const zero = name('zero')
    await createFlag(pennon, zero)
    await post(
      pennon,
      '/api/client/metrics',
      metricsBody(app, { [theirs]: { yes: 2 }, [zero]: { yes: 0, no: 0 } }, { environment: 'production' }),
      pennon.adminToken,
    )
    await post(pennon, '/api/client/metrics', metricsBody(app, { [theirs]: { no: 4 } }), pennon.adminToken)
    await eventually(hasRows(pennon, theirs, 2), 'admin metrics written')
    assert.deepEqual(
      (await metricRows(pennon, theirs)).map((row) => [row.environment, row.yes, row.no]),
      [
        ['development', 0, 4],
        ['production', 2, 0],
      ],
    )
    assert.deepEqual(await metricRows(pennon, zero), [])
  })

  test("a flag's lastSeenAt in each environment comes from the metrics counting it there", async (t) => {
    const pennon = await useTestApp(t, database, FAST)
    const flag = name('last-seen')
    await createFlag(pennon, flag)
    const environments = async () => {
      const response = await call(pennon, 'GET', `/api/admin/projects/default/features/${flag}`)
      assert.equal(response.status, 200, response.text)
      return Object.fromEntries(
        (response.body.environments as Array<{ name: string; lastSeenAt: string | null }>).map((e) => [e.name, e.lastSeenAt]),
      )
    }
    assert.deepEqual(await environments(), { development: null, production: null })
    const before = new Date().toISOString()
    await post(pennon, '/api/client/metrics', metricsBody(name('app'), { [flag]: { yes: 1 } }), await apiToken(pennon, 'client'))
    await eventually(async () => (await environments()).development !== null, 'lastSeenAt shown')
    const seen = await environments()
    assert.equal(seen.production, null)
    assert.ok(seen.development! >= before && seen.development! <= new Date().toISOString(), seen.development!)
    const one = await call(pennon, 'GET', `/api/admin/projects/default/features/${flag}/environments/development`)
    assert.equal(one.body.lastSeenAt, seen.development)

    // A flag deleted and created again under the same name starts unseen.
    assert.equal((await call(pennon, 'DELETE', `/api/admin/projects/default/features/${flag}`)).status, 202)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/delete', { features: [flag] })).status, 200)
    await createFlag(pennon, flag)
    assert.deepEqual(await environments(), { development: null, production: null })
  })

  test('frontend tokens post to /api/frontend/client/*, client tokens to /api/client/*: each is refused on the other', async (t) => {
    const pennon = await useTestApp(t, database, FAST)
    const flag = name('front')
    await createFlag(pennon, flag)
    const frontend = await scopedToken(pennon, 'frontend', 'production', ['*'])
    const client = await apiToken(pennon, 'client')
    const app = name('browser-app')
    // The body unleash-proxy-client sends.
    const body = {
      bucket: {
        start: new Date().toISOString(),
        stop: new Date().toISOString(),
        toggles: { [flag]: { yes: 1, no: 2, variants: { disabled: 3 } } },
      },
      appName: app,
      instanceId: 'browser',
      impactMetrics: [],
    }
    await post(pennon, '/api/frontend/client/metrics', body, frontend, 200)
    await post(
      pennon,
      '/api/frontend/client/register',
      {
        appName: app,
        instanceId: 'browser',
        sdkVersion: 'unleash-js-sdk:3.8.2',
        strategies: [],
        started: new Date().toISOString(),
        interval: 30000,
      },
      frontend,
      200,
    )
    await eventually(hasRows(pennon, flag), 'frontend metrics written')
    assert.deepEqual(
      (await metricRows(pennon, flag)).map((row) => [row.environment, row.app_name, row.yes, row.no]),
      [['production', app, 1, 2]],
    )

    for (const [url, token, needs] of [
      ['/api/frontend/client/metrics', client, 'a frontend or admin API token'],
      ['/api/frontend/client/register', client, 'a frontend or admin API token'],
      ['/api/client/metrics', frontend, 'a client (backend) or admin API token'],
      ['/api/client/metrics/bulk', frontend, 'a client (backend) or admin API token'],
      ['/api/client/register', frontend, 'a client (backend) or admin API token'],
    ] as const) {
      const response = await call(pennon, 'POST', url, body, { token })
      assert.equal(response.status, 403, url)
      assert.deepEqual(withoutId(response.body), {
        name: 'NoAccessError',
        message: `This endpoint needs ${needs}.`,
        details: [{ message: `This endpoint needs ${needs}.` }],
        permissions: [url.startsWith('/api/frontend') ? 'FRONTEND' : 'CLIENT'],
      })
    }
    assert.equal((await call(pennon, 'POST', '/api/client/metrics', body, { token: null })).status, 401)
    // Browsers may post from any origin: the frontend API answers CORS.
    const preflight = await pennon.app.inject({
      method: 'OPTIONS',
      url: '/api/frontend/client/metrics',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], '*')
  })

  test("bulk metrics (Edge): registrations and counts, only of the token's environment", async (t) => {
    const pennon = await useTestApp(t, database, FAST)
    const flag = name('bulk')
    await createFlag(pennon, flag)
    const client = await apiToken(pennon, 'client')
    const [app, other] = [name('edge-app'), name('other-env-app')]
    const timestamp = new Date().toISOString()
    await post(
      pennon,
      '/api/client/metrics/bulk',
      {
        applications: [
          {
            appName: app,
            instanceId: 'pod-1',
            environment: 'development',
            sdkVersion: 'unleash-client-java:9.0.0',
            strategies: ['default'],
            started: timestamp,
            interval: 15,
            connectVia: [{ appName: 'edge', instanceId: 'e' }],
          },
          { appName: other, instanceId: 'pod-2', environment: 'production' },
        ],
        metrics: [
          { featureName: flag, appName: app, environment: 'development', timestamp, yes: 7, no: 1, variants: { v: 7 } },
          { featureName: flag, appName: app, environment: 'development', timestamp, yes: 3, no: 0 },
          { featureName: flag, appName: app, environment: 'production', timestamp, yes: 100, no: 100 },
        ],
        impactMetrics: [],
        seenTokens: [],
      },
      client,
    )
    await eventually(hasRows(pennon, flag), 'bulk written')
    assert.deepEqual(
      (await metricRows(pennon, flag)).map((row) => [row.environment, row.yes, row.no]),
      [['development', 10, 1]],
    )
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/metrics/applications')).body, {
      total: 1,
      applications: [
        {
          appName: app,
          sdkVersion: 'unleash-client-java:9.0.0',
          strategies: ['default'],
          usage: [{ project: '*', environments: ['development'] }],
        },
      ],
    })
  })

  test('the applications list filters by name, pages and sorts', async (t) => {
    const pennon = await useTestApp(t, database, FAST)
    const client = await apiToken(pennon, 'client')
    for (const app of ['billing', 'Booking', 'accounting']) {
      await post(pennon, '/api/client/register', { appName: app, strategies: [], started: 1_700_000_000, interval: 10 }, client)
    }
    await eventually(
      async () => (await pennon.database.db.selectFrom('client_applications').select('app_name').execute()).length === 3,
      'registrations written',
    )
    const names = async (query: string) => {
      const response = await call(pennon, 'GET', `/api/admin/metrics/applications${query}`)
      assert.equal(response.status, 200, response.text)
      return [response.body.total, response.body.applications.map((a: { appName: string }) => a.appName)]
    }
    assert.deepEqual(await names(''), [3, ['Booking', 'accounting', 'billing']])
    assert.deepEqual(await names('?query=b'), [2, ['Booking', 'billing']])
    assert.deepEqual(await names('?query=BOO'), [1, ['Booking']])
    assert.deepEqual(await names('?sortOrder=desc&limit=2'), [3, ['billing', 'accounting']])
    assert.deepEqual(await names('?offset=2&sortBy=anything'), [3, ['billing']])
    const bad = await call(pennon, 'GET', '/api/admin/metrics/applications?limit=ten')
    assert.equal(bad.status, 400)
    assert.deepEqual(withoutId(bad.body), {
      name: 'ValidationError',
      message: 'The `/query/limit` parameter must be a whole number of at least 1. You sent "ten".',
      details: [{ path: '/query/limit', message: 'The `/query/limit` parameter must be a whole number of at least 1. You sent "ten".' }],
    })
    const instance = await pennon.database.db
      .selectFrom('client_instances')
      .select(['instance_id', 'started_at'])
      .where('app_name', '=', 'billing')
      .executeTakeFirstOrThrow()
    assert.deepEqual(instance, { instance_id: 'default', started_at: new Date(1_700_000_000_000).toISOString() })
  })

  test('a malformed body gets the one error shape, listing every fault, and stores nothing', async (t) => {
    const pennon = await useTestApp(t, database, FAST)
    const client = await apiToken(pennon, 'client')
    const everythingWrong = await call(
      pennon,
      'POST',
      '/api/client/metrics',
      {
        appName: 5,
        instanceId: [],
        sdkVersion: 7,
        bucket: { start: 'yesterday', stop: true, toggles: { a: { yes: -1, no: 'x', variants: { v: 1.5 } }, b: 'lots' } },
      },
      { token: client },
    )
    assert.equal(everythingWrong.status, 400, everythingWrong.text)
    const body = withoutId(everythingWrong.body) as { name: string; details: Array<{ path: string }> }
    assert.equal(body.name, 'ValidationError')
    assert.deepEqual(
      body.details.map((d) => d.path),
      [
        '/body/appName',
        '/body/instanceId',
        '/body/sdkVersion',
        '/body/bucket/start',
        '/body/bucket/stop',
        '/body/bucket/toggles/a/yes',
        '/body/bucket/toggles/a/no',
        '/body/bucket/toggles/a/variants/v',
        '/body/bucket/toggles/b',
      ],
    )

    const register = await call(
      pennon,
      'POST',
      '/api/client/register',
      { appName: '', strategies: 'all', started: 'now', interval: -1 },
      { token: client },
    )
    assert.equal(register.status, 400)
    assert.deepEqual(
      (register.body.details as Array<{ path: string }>).map((d) => d.path),
      ['/body/appName', '/body/interval', '/body/started', '/body/strategies'],
    )

    const leapSecond = await call(
      pennon,
      'POST',
      '/api/client/metrics',
      metricsBody('app', {}, { bucket: { start: '2016-12-31T23:59:60Z', stop: '2016-12-31T23:59:60Z', toggles: {} } }),
      { token: client },
    )
    assert.equal(leapSecond.status, 400, leapSecond.text)
    assert.deepEqual(withoutId(leapSecond.body), {
      name: 'ValidationError',
      message: 'The `/body/bucket/start` property must be a date-time that exists. You sent "2016-12-31T23:59:60Z".',
      details: [
        {
          path: '/body/bucket/start',
          message: 'The `/body/bucket/start` property must be a date-time that exists. You sent "2016-12-31T23:59:60Z".',
        },
      ],
    })

    for (const [url, raw, status] of [
      ['/api/client/metrics', 'null', 400],
      ['/api/client/metrics', '[]', 400],
      ['/api/client/metrics', '"metrics"', 400],
      ['/api/client/metrics', '{}', 400],
      ['/api/client/metrics', '{"appName":"a","bucket":{"start":0,"stop":0,"toggles":[]}}', 400],
      ['/api/client/metrics', '{"appName":', 400],
      ['/api/client/metrics/bulk', '{"applications":{},"metrics":[{"featureName":1}]}', 400],
      ['/api/client/register', '{"appName":"a"}', 400],
      ['/api/frontend/client/metrics', '{"appName":null}', 400],
      ['/api/frontend/client/register', '[]', 400],
    ] as const) {
      const token = url.startsWith('/api/frontend') ? pennon.adminToken : client
      const response = await call(pennon, 'POST', url, undefined, { token, raw, headers: { 'content-type': 'application/json' } })
      assert.equal(response.status, status, `${url} ${raw}: ${response.text}`)
      assert.deepEqual(Object.keys(response.body), ['id', 'name', 'message', 'details'])
    }
    const xml = await call(pennon, 'POST', '/api/client/metrics', undefined, {
      token: client,
      raw: '<metrics/>',
      headers: { 'content-type': 'application/xml' },
    })
    assert.equal(xml.status, 415)
    // A bucket of nothing but a valid application is accepted (the SDKs send impact metrics alone so).
    await post(pennon, '/api/client/metrics', { appName: 'quiet', bucket: null, impactMetrics: [{ name: 'x' }] }, client)
    await pennon.app.close()
    assert.deepEqual(await pennon.database.db.selectFrom('client_metrics_env').selectAll().execute(), [])
    assert.deepEqual(
      (await pennon.database.db.selectFrom('client_applications').select('app_name').execute()).map((r) => r.app_name),
      ['quiet'],
    )
  })

  test('closing the app writes what is held; metrics writes leave the flags version alone', async (t) => {
    const pennon = await useTestApp(t, database, { env: { METRICS_FLUSH_MS: '3600000' } })
    const flag = name('closing')
    await createFlag(pennon, flag)
    const client = await apiToken(pennon, 'client')
    const watch = pennon.database.watchChanges()
    // Until the notifications of the writes above have arrived (PostgreSQL), the version moves.
    let flagsVersion: number | undefined
    await eventually(async () => {
      const before = watch.version('flags')
      await new Promise((resolve) => setTimeout(resolve, 200))
      flagsVersion = watch.version('flags')
      return before !== undefined && before === flagsVersion
    }, 'change watch settled')
    await post(pennon, '/api/client/metrics', metricsBody(name('app'), { [flag]: { yes: 4, no: 2 } }), client)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(await metricRows(pennon, flag), [], 'nothing written before the interval')
    await pennon.app.close()
    assert.deepEqual(
      (await metricRows(pennon, flag)).map((row) => [row.yes, row.no]),
      [[4, 2]],
    )
    // Past PostgreSQL's notification and SQLite's next data_version read: still the flags version of before.
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(watch.version('flags'), flagsVersion)
  })
})
