/**
 * Frontend tokens are public: a stream of junk posted with one — random application names,
 * instance ids, SDK versions, variant names, unknown flags, dates anywhere — stays within the
 * documented limits (docs/metrics.md, "Limits"): in memory, in every metrics table and in the
 * admin read; nothing is refused with 429, and legitimate reports afterwards are stored. The
 * limits are smaller here than by default (configurable), the defaults checked against the doc.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { loadConfig } from '../../config.ts'
import { apiToken, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { hourOf, OTHER_VARIANTS } from './metrics-aggregate.ts'
import { METRICS_BODY_LIMIT } from './metrics-routes.ts'
import { MAX_HELD, MAX_HELD_PER_TOKEN } from './metrics-ingestion-service.ts'

const LIMITS = { METRICS_MAX_APPLICATIONS: '10', METRICS_APPLICATIONS_PER_TOKEN: '4', METRICS_INSTANCES_PER_APPLICATION: '3' }
const MAX_APPLICATIONS = 10
const PER_TOKEN = 4
const INSTANCES = 3
// Flushed by the test (pennon.metrics.flush), so that what is held can be seen between flushes.
const ENV = { ...LIMITS, METRICS_FLUSH_MS: '3600000' }

const FLAGS = ['checkout', 'search', 'banner']
/** Each flag's own variant names (checkout: blue and green) and `disabled`. */
const OWN: Record<string, number> = { checkout: 3, search: 1, banner: 1 }
const HOUR_MS = 3_600_000

const random = (length = 16) => randomBytes(length).toString('hex').slice(0, length)

async function ok(response: Promise<{ status: number; text: string }>, status = 200): Promise<void> {
  const answer = await response
  assert.equal(answer.status, status, answer.text)
}

async function setUp(pennon: TestApp): Promise<void> {
  for (const flag of FLAGS) await ok(call(pennon, 'POST', '/api/admin/projects/default/features', { name: flag }), 201)
  await ok(
    call(pennon, 'PUT', '/api/admin/projects/default/features/checkout/environments/development/variants', [
      { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
      { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default' },
    ]),
  )
}

/** A junk report: 1 in 5 impersonates `web-shop`, whose name any page using it shows. */
function hostileMetrics(): unknown {
  const toggles: Record<string, unknown> = {}
  for (const flag of FLAGS)
    toggles[flag] = {
      yes: 1,
      no: 1,
      variants: { blue: 1, ...Object.fromEntries(Array.from({ length: 2 * OTHER_VARIANTS }, () => [random(), 1])) },
    }
  for (let i = 0; i < 20; i++) toggles[`ghost-${random()}`] = { yes: 1 }
  const stop = new Date(Date.now() + (Math.random() * 10 - 5) * 24 * HOUR_MS).toISOString()
  return {
    appName: Math.random() < 0.2 ? 'web-shop' : `junk-${random()}`,
    instanceId: random(32),
    sdkVersion: random(255),
    bucket: { start: stop, stop, toggles },
  }
}

function hostileRegistration(): unknown {
  return {
    appName: Math.random() < 0.2 ? 'web-shop' : `junk-${random()}`,
    instanceId: random(32),
    sdkVersion: random(255),
    strategies: Array.from({ length: 50 }, () => random(100)),
    started: new Date().toISOString(),
    interval: 1,
  }
}

function hostileBulk(): unknown {
  const apps = Array.from({ length: 20 }, () => `edge-junk-${random()}`)
  // Half of them only send counts (no registration).
  return {
    applications: apps.slice(10).map((appName) => ({ appName, instanceId: random(), environment: 'development' })),
    metrics: apps.flatMap((appName) => [
      {
        featureName: 'search',
        appName,
        environment: 'development',
        yes: 1,
        variants: Object.fromEntries(Array.from({ length: 2 * OTHER_VARIANTS }, () => [random(), 1])),
      },
      { featureName: `ghost-${random()}`, appName, environment: 'development', yes: 1 },
      { featureName: 'banner', appName, environment: `no-such-${random()}`, yes: 1 },
    ]),
  }
}

const count = async (
  pennon: TestApp,
  table:
    | 'client_applications'
    | 'client_instances'
    | 'client_metrics_env'
    | 'client_metrics_env_variants'
    | 'client_applications_usage'
    | 'last_seen_at_metrics',
) =>
  Number(
    (
      await pennon.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

const yesOf = async (pennon: TestApp, app: string, flag: string) =>
  Number(
    (
      await pennon.database.db
        .selectFrom('client_metrics_env')
        .select((eb) => eb.fn.sum<number>('yes').as('yes'))
        .where('app_name', '=', app)
        .where('feature_name', '=', flag)
        .executeTakeFirst()
    )?.yes ?? 0,
  )

const variantCount = async (pennon: TestApp, app: string, variant: string) =>
  Number(
    (
      await pennon.database.db
        .selectFrom('client_metrics_env_variants')
        .select((eb) => eb.fn.sum<number>('count').as('n'))
        .where('app_name', '=', app)
        .where('feature_name', '=', 'checkout')
        .where('variant', '=', variant)
        .executeTakeFirst()
    )?.n ?? 0,
  )

onEachDatabase('SDK metrics under hostile input', (database) => {
  test('a stream of junk with a frontend token stays within the limits, and legitimate reports go on being stored', async (t) => {
    const pennon = await useTestApp(t, database, { env: ENV })
    await setUp(pennon)
    const web = await apiToken(pennon, 'frontend', 'web')
    const edge = await apiToken(pennon, 'client', 'edge')
    const mobile = await apiToken(pennon, 'frontend', 'mobile')
    const legit = (app: string, toggles: Record<string, unknown>) => ({
      appName: app,
      instanceId: 'browser',
      bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles },
    })
    await ok(
      call(
        pennon,
        'POST',
        '/api/frontend/client/register',
        {
          appName: 'web-shop',
          instanceId: 'browser',
          sdkVersion: 'unleash-js-sdk:3.8.2',
          strategies: [],
          started: new Date().toISOString(),
          interval: 30000,
        },
        { token: web },
      ),
    )
    await pennon.metrics.flush()
    const started = Date.now()

    // Held between two flushes, at most: per application known, two hours of each flag with its own
    // variant names and OTHER_VARIANTS others, and its instances (plus one sighting past them).
    const perApplication = 2 * FLAGS.reduce((sum, flag) => sum + 1 + OWN[flag]! + OTHER_VARIANTS, 0) + INSTANCES + 1
    const heldBound = MAX_APPLICATIONS * perApplication
    const statuses = new Map<number, number>()
    for (let round = 0; round < 8; round++) {
      const posts = [
        ...Array.from({ length: 25 }, () => call(pennon, 'POST', '/api/frontend/client/metrics', hostileMetrics(), { token: web })),
        ...Array.from({ length: 10 }, () => call(pennon, 'POST', '/api/frontend/client/register', hostileRegistration(), { token: web })),
        ...Array.from({ length: 2 }, () => call(pennon, 'POST', '/api/client/metrics/bulk', hostileBulk(), { token: edge })),
      ]
      for (const { status } of await Promise.all(posts)) statuses.set(status, (statuses.get(status) ?? 0) + 1)
      assert.ok(pennon.metrics.held <= heldBound, `${pennon.metrics.held} entries held, at most ${heldBound}`)
      await pennon.metrics.flush()
    }
    assert.deepEqual(
      [...statuses],
      [
        [200, 8 * 35],
        [202, 8 * 2],
      ],
      'every junk report answered as accepted, none refused with 429',
    )

    // The tables: web-shop and what each token could introduce; within the limits per application.
    const applications = await pennon.database.db
      .selectFrom('client_applications')
      .select(['app_name', 'token_name'])
      .orderBy('app_name')
      .execute()
    const byToken = (token: string) => applications.filter((row) => row.token_name === token).length
    assert.equal(byToken('web'), PER_TOKEN, 'web-shop and 3 junk applications')
    assert.equal(byToken('edge'), PER_TOKEN)
    assert.equal(applications.length, 2 * PER_TOKEN)
    assert.ok(applications.some((row) => row.app_name === 'web-shop'))
    const counted = await pennon.database.db.selectFrom('client_metrics_env').select('app_name').distinct().execute()
    assert.ok(
      counted.every((row) => applications.some((application) => application.app_name === row.app_name)),
      'every application counted is recorded',
    )
    assert.ok((await count(pennon, 'client_instances')) <= applications.length * INSTANCES)
    assert.ok((await count(pennon, 'client_applications_usage')) <= applications.length)
    assert.ok((await count(pennon, 'client_metrics_env')) <= applications.length * FLAGS.length * 2)
    assert.equal(await count(pennon, 'last_seen_at_metrics'), FLAGS.length, 'no unknown flag, no unknown environment')
    const hours = new Set(
      (await pennon.database.db.selectFrom('client_metrics_env').select('timestamp').distinct().execute()).map((row) => row.timestamp),
    )
    const near = new Set([hourOf(started - HOUR_MS), hourOf(started), hourOf(Date.now())])
    assert.ok(
      [...hours].every((hour) => near.has(hour)),
      `counts only in the hours near now: ${[...hours]}`,
    )
    const perHour = await pennon.database.db
      .selectFrom('client_metrics_env_variants')
      .select(['feature_name', 'environment', 'timestamp', (eb) => eb.fn.count<number>('variant').distinct().as('names')])
      .groupBy(['feature_name', 'environment', 'timestamp'])
      .execute()
    for (const row of perHour)
      assert.ok(
        Number(row.names) <= OWN[row.feature_name]! + OTHER_VARIANTS,
        `${row.feature_name} ${row.timestamp}: ${row.names} variant names`,
      )
    const variantRows = await count(pennon, 'client_metrics_env_variants')
    assert.ok(
      variantRows <= applications.length * 2 * FLAGS.reduce((sum, flag) => sum + OWN[flag]! + OTHER_VARIANTS, 0),
      `${variantRows} variant rows`,
    )

    // The admin read: a few variant names per environment, the applications that reported the flag.
    const usage = await call(pennon, 'GET', '/api/admin/client-metrics/features/checkout')
    assert.equal(usage.status, 200, usage.text)
    assert.equal(usage.body.lastHourUsage.length, 1)
    assert.ok(Object.keys(usage.body.lastHourUsage[0].variants).length <= OWN.checkout! + 2 * OTHER_VARIANTS)
    assert.ok(usage.body.seenApplications.length <= PER_TOKEN)
    assert.ok(usage.text.length < 3_000, `${usage.text.length} bytes`)

    // Afterwards: web-shop's own variants and counts are stored in full; a new application of
    // another frontend token is recorded; a new one of the junk's token is not.
    const [banner, green] = [await yesOf(pennon, 'web-shop', 'banner'), await variantCount(pennon, 'web-shop', 'green')]
    await ok(
      call(
        pennon,
        'POST',
        '/api/frontend/client/metrics',
        legit('web-shop', { banner: { yes: 7 }, checkout: { yes: 3, variants: { green: 2, disabled: 1 } } }),
        { token: web },
      ),
    )
    await ok(call(pennon, 'POST', '/api/frontend/client/metrics', legit('newcomer', { banner: { yes: 5 } }), { token: mobile }))
    await ok(call(pennon, 'POST', '/api/frontend/client/metrics', legit('late-junk', { banner: { yes: 5 } }), { token: web }))
    await pennon.metrics.flush()
    assert.equal(await yesOf(pennon, 'web-shop', 'banner'), banner + 7)
    assert.equal(await variantCount(pennon, 'web-shop', 'green'), green + 2)
    assert.equal(await yesOf(pennon, 'newcomer', 'banner'), 5)
    assert.equal(await yesOf(pennon, 'late-junk', 'banner'), 0)
    assert.deepEqual(
      (
        await pennon.database.db
          .selectFrom('client_applications')
          .select('app_name')
          .where('app_name', 'in', ['newcomer', 'late-junk'])
          .execute()
      ).map((row) => row.app_name),
      ['newcomer'],
    )
    // Each limit reached is logged once (not once per report, nor per token): by whichever of the
    // two tokens sent together reached it first.
    const warnings = pennon.logs.filter((line) => line.includes('METRICS_APPLICATIONS_PER_TOKEN'))
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /the token \\"(web|edge)\\" introduced 4 applications/)
  })

  test(`a metrics body over ${METRICS_BODY_LIMIT / 1024} KiB is refused with 413 on every SDK route; one of the limit is read (then judged by its schema)`, async (t) => {
    const pennon = await useTestApp(t, database, { env: ENV })
    await setUp(pennon)
    const [frontend, client] = [await apiToken(pennon, 'frontend'), await apiToken(pennon, 'client')]
    const sized = (bytes: number) => {
      const body = {
        appName: 'sized',
        instanceId: '',
        bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: { banner: { yes: 1 } } },
      }
      body.instanceId = 'x'.repeat(bytes - JSON.stringify(body).length)
      return body
    }
    for (const [url, token] of [
      ['/api/frontend/client/metrics', frontend],
      ['/api/frontend/client/register', frontend],
      ['/api/client/metrics', client],
      ['/api/client/metrics/bulk', client],
      ['/api/client/register', client],
    ] as const) {
      const tooLarge = await call(pennon, 'POST', url, sized(METRICS_BODY_LIMIT + 1), { token })
      assert.equal(tooLarge.status, 413, url)
      assert.deepEqual(withoutId(tooLarge.body), errorOf('PayloadTooLargeError', 'The request body is larger than this server accepts.'))
      // Of the limit: past the size check, on to the schema (255 characters at most in an instance id).
      assert.equal((await call(pennon, 'POST', url, sized(METRICS_BODY_LIMIT), { token })).status, 400, url)
    }
    await ok(
      call(
        pennon,
        'POST',
        '/api/frontend/client/metrics',
        {
          appName: 'sized',
          bucket: {
            start: new Date().toISOString(),
            stop: new Date().toISOString(),
            toggles: {
              banner: {
                yes: 1,
                variants: Object.fromEntries(Array.from({ length: 14_000 }, (_, i) => [`v-${String(i).padStart(9, '0')}`, 1])),
              },
            },
          },
        },
        { token: frontend },
      ),
      200,
    )
  })

  test('past METRICS_MAX_APPLICATIONS no token records a new application; those recorded go on', async (t) => {
    const pennon = await useTestApp(t, database, { env: { ...ENV, METRICS_MAX_APPLICATIONS: '3', METRICS_APPLICATIONS_PER_TOKEN: '2' } })
    await setUp(pennon)
    const [one, two] = [await apiToken(pennon, 'frontend', 'one'), await apiToken(pennon, 'frontend', 'two')]
    const report = (app: string, token: string) =>
      ok(
        call(
          pennon,
          'POST',
          '/api/frontend/client/metrics',
          { appName: app, bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: { banner: { yes: 1 } } } },
          { token },
        ),
      )
    for (const [app, token] of [
      ['a', one],
      ['b', one],
      ['c', one],
      ['d', two],
      ['e', two],
      ['a', two],
    ] as const)
      await report(app, token)
    await pennon.metrics.flush()
    const rows = await pennon.database.db.selectFrom('client_metrics_env').select(['app_name', 'yes']).orderBy('app_name').execute()
    assert.deepEqual(
      rows.map((row) => [row.app_name, Number(row.yes)]),
      [
        ['a', 2],
        ['b', 1],
        ['d', 1],
      ],
      "c: past token one's 2; e: past the 3 in all",
    )
  })
})

test('the defaults are those docs/metrics.md states', () => {
  const config = loadConfig({})
  const doc = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8')
  const limits = doc.slice(doc.indexOf('## Limits'), doc.indexOf('\n## ', doc.indexOf('## Limits') + 1))
  for (const [setting, value] of [
    ['METRICS_MAX_APPLICATIONS', config.metricsMaxApplications],
    ['METRICS_APPLICATIONS_PER_TOKEN', config.metricsApplicationsPerToken],
    ['METRICS_INSTANCES_PER_APPLICATION', config.metricsInstancesPerApplication],
  ] as const) {
    assert.ok(limits.includes(`${value.toLocaleString('en-US')} (\`${setting}\`)`), `${setting} ${value}`)
  }
  assert.deepEqual(
    [config.metricsMaxApplications, config.metricsApplicationsPerToken, config.metricsInstancesPerApplication],
    [1000, 100, 100],
  )
  assert.ok(limits.includes(`${OTHER_VARIANTS} other names`), 'OTHER_VARIANTS')
  assert.ok(
    limits.includes(
      `${MAX_HELD.toLocaleString('en-US')} entries; ${MAX_HELD_PER_TOKEN.toLocaleString('en-US')} of them for one client or frontend token`,
    ),
    'MAX_HELD',
  )
})
