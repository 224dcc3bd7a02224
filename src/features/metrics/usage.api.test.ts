/**
 * The admin reads of stored usage, fed by direct posts: a flag's hourly counts (…/raw) with its
 * `hoursBack` bounds, and the names SDKs asked for that are no flags.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { hourOf } from './metrics-aggregate.ts'

let unique = 0
const name = (prefix: string) => `${prefix}-${process.pid}-${++unique}`
const HOUR = 3_600_000

async function createFlag(pennon: TestApp, flag: string, project = 'default'): Promise<void> {
  const response = await call(pennon, 'POST', `/api/admin/projects/${project}/features`, { name: flag })
  assert.equal(response.status, 201, response.text)
}

async function report(
  pennon: TestApp,
  token: string,
  appName: string,
  toggles: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const body = {
    appName,
    instanceId: 'i-1',
    bucket: { start: new Date(Date.now() - 1000).toISOString(), stop: new Date().toISOString(), toggles },
    ...extra,
  }
  const response = await call(pennon, 'POST', '/api/client/metrics', body, { token })
  assert.equal(response.status, 202, response.text)
}

async function get(pennon: TestApp, url: string, status = 200): Promise<any> {
  const response = await call(pennon, 'GET', url)
  assert.equal(response.status, status, response.text)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  return status < 300 ? response.body : withoutId(response.body)
}

/** The hours a read of `hoursBack` covers, oldest first. */
const hoursBack = (count: number) =>
  Array.from({ length: count }, (_, i) => new Date(Date.parse(hourOf(Date.now())) - (count - 1 - i) * HOUR).toISOString())

onEachDatabase('usage reads', (database) => {
  test('raw feature metrics: an entry per hour, environment and application, zeros where nothing was counted', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    const flag = name('raw')
    await createFlag(pennon, flag)
    await report(pennon, client, 'shop', { [flag]: { yes: 3, no: 1, variants: { blue: 2 } } })
    await report(pennon, pennon.adminToken, 'api', { [flag]: { yes: 0, no: 5 } }, { environment: 'production' })
    await pennon.metrics.flush()
    // An hour 3 hours ago and one 30 hours ago (SDK posts only reach this hour and the last one).
    const old = (hours: number) => new Date(Date.parse(hourOf(Date.now())) - hours * HOUR).toISOString()
    await pennon.database.db
      .insertInto('client_metrics_env')
      .values([
        { feature_name: flag, app_name: 'shop', environment: 'development', timestamp: old(3), yes: 7, no: 0 },
        { feature_name: flag, app_name: 'shop', environment: 'development', timestamp: old(30), yes: 9, no: 9 },
      ])
      .execute()

    const expected = (count: number) => {
      const now = hourOf(Date.now())
      return hoursBack(count).flatMap((timestamp) =>
        ['development', 'production'].flatMap((environment) =>
          ['api', 'shop'].map((appName) => {
            const zero = { featureName: flag, appName, environment, timestamp, yes: 0, no: 0 }
            if (timestamp === now && environment === 'development' && appName === 'shop')
              return { ...zero, yes: 3, no: 1, variants: { blue: 2 } }
            if (timestamp === now && environment === 'production' && appName === 'api') return { ...zero, no: 5, variants: {} }
            if (timestamp === old(3) && environment === 'development' && appName === 'shop') return { ...zero, yes: 7, variants: {} }
            if (timestamp === old(30) && environment === 'development' && appName === 'shop')
              return { ...zero, yes: 9, no: 9, variants: {} }
            return zero
          }),
        ),
      )
    }
    const byDefault = await get(pennon, `/api/admin/client-metrics/features/${flag}/raw`)
    assert.deepEqual(byDefault, { version: 1, maturity: 'stable', data: expected(24) })
    assert.equal(byDefault.data.length, 24 * 2 * 2)
    assert.deepEqual(await get(pennon, `/api/admin/client-metrics/features/${flag}/raw?hoursBack=1`), {
      version: 1,
      maturity: 'stable',
      data: expected(1),
    })
    const all = await get(pennon, `/api/admin/client-metrics/features/${flag}/raw?hoursBack=48`)
    assert.deepEqual(all, { version: 1, maturity: 'stable', data: expected(48) })
    assert.equal(all.data.filter((entry: { yes: number }) => entry.yes === 9).length, 1)
    // Keys in the reference's order.
    assert.deepEqual(Object.keys(all.data.find((entry: { yes: number }) => entry.yes === 3) ?? {}), [
      'featureName',
      'appName',
      'environment',
      'timestamp',
      'yes',
      'no',
      'variants',
    ])

    // A flag never reported, or that does not exist: an empty list, as the reference.
    assert.deepEqual(await get(pennon, '/api/admin/client-metrics/features/never-reported/raw'), {
      version: 1,
      maturity: 'stable',
      data: [],
    })
  })

  test('raw feature metrics: hoursBack is a whole number from 1 to 48, anything else is a 400', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const value of ['0', '49', '1000', '-1', '1.5', 'abc', '', '24h']) {
      const message = `The \`/query/hoursBack\` parameter must be a whole number from 1 to 48. You sent ${JSON.stringify(value)}.`
      assert.deepEqual(
        await get(pennon, `/api/admin/client-metrics/features/x/raw?hoursBack=${encodeURIComponent(value)}`, 400),
        errorOf('ValidationError', message, { details: [{ path: '/query/hoursBack', message }] }),
      )
    }
    const unauthenticated = await call(pennon, 'GET', '/api/admin/client-metrics/features/x/raw', undefined, { token: null })
    assert.equal(unauthenticated.status, 401)
    const client = await call(pennon, 'GET', '/api/admin/client-metrics/features/x/raw', undefined, {
      token: await apiToken(pennon, 'client'),
    })
    assert.equal(client.status, 403)
  })

  test('unknown flags: names SDKs counted that are no flags, per application and environment; gone once a flag has the name', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    const known = name('known')
    const gone = name('gone')
    await createFlag(pennon, known)
    await createFlag(pennon, gone)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/archive', { features: [gone] })).status, 202)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/delete', { features: [gone] })).status, 200)
    const lastEvent = await pennon.database.db
      .selectFrom('events')
      .select('created_at')
      .where('feature_name', '=', gone)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    // A report older than 24 hours: removed by the first flush's clean-up (and never listed).
    await pennon.database.db
      .insertInto('unknown_flags')
      .values({
        name: 'stale-name',
        app_name: 'shop',
        environment: 'development',
        last_seen_at: new Date(Date.now() - 25 * HOUR).toISOString(),
      })
      .execute()

    await report(pennon, client, 'shop', { [known]: { yes: 1 }, ghost: { yes: 1 }, [gone]: { no: 2 } })
    await report(pennon, pennon.adminToken, 'api', { ghost: { no: 1 } }, { environment: 'production' })
    await report(pennon, pennon.adminToken, 'api', { ghost: { no: 1 } }, { environment: 'development' })
    await pennon.metrics.flush()
    const body = await get(pennon, '/api/admin/metrics/unknown-flags')
    const seen = await pennon.database.db
      .selectFrom('unknown_flags')
      .select(['name', 'app_name', 'environment', 'last_seen_at'])
      .orderBy('name')
      .orderBy('app_name')
      .orderBy('environment')
      .execute()
    const at = (flag: string, app: string, environment: string) =>
      new Date(seen.find((row) => row.name === flag && row.app_name === app && row.environment === environment)!.last_seen_at).toISOString()
    const latest = (...values: string[]) => values.sort().at(-1)!
    assert.deepEqual(body, {
      unknownFlags: [
        {
          name: gone,
          lastSeenAt: at(gone, 'shop', 'development'),
          lastEventAt: new Date(lastEvent.created_at).toISOString(),
          reports: [{ appName: 'shop', environments: [{ environment: 'development', seenAt: at(gone, 'shop', 'development') }] }],
        },
        {
          name: 'ghost',
          lastSeenAt: latest(at('ghost', 'api', 'development'), at('ghost', 'api', 'production'), at('ghost', 'shop', 'development')),
          lastEventAt: null,
          reports: [
            {
              appName: 'api',
              environments: [
                { environment: 'development', seenAt: at('ghost', 'api', 'development') },
                { environment: 'production', seenAt: at('ghost', 'api', 'production') },
              ],
            },
            { appName: 'shop', environments: [{ environment: 'development', seenAt: at('ghost', 'shop', 'development') }] },
          ],
        },
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    })
    assert.equal(seen.length, 4, 'the stale row was removed')
    // The known flag was counted, not listed; once a flag is named ghost, ghost is not listed either.
    await createFlag(pennon, 'ghost')
    assert.deepEqual(
      (await get(pennon, '/api/admin/metrics/unknown-flags')).unknownFlags.map((flag: { name: string }) => flag.name),
      [gone],
    )
  })

  test('unknown flags are bounded: 1,000 keys held between flushes and 1,000 rows stored; stored keys are still updated', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    const names = (from: number, count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`junk-${String(from + i).padStart(4, '0')}`, { yes: 1 }]))
    const stored = async () =>
      Number(
        (
          await pennon.database.db
            .selectFrom('unknown_flags')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    // One report of 1,001 names: 1,000 are held.
    await report(pennon, client, 'junk', names(0, 1001))
    await pennon.metrics.flush()
    assert.equal(await stored(), 1000)
    const listed = (await get(pennon, '/api/admin/metrics/unknown-flags')).unknownFlags
    assert.equal(listed.length, 1000)
    assert.equal(listed.at(-1).name, 'junk-0999')
    assert.ok(
      pennon.logs.some((line) => line.includes('1000 unknown flag names are recorded')),
      'the limit is logged',
    )

    // Full: a new name is not stored, a stored one is updated.
    const before = (
      await pennon.database.db.selectFrom('unknown_flags').select('last_seen_at').where('name', '=', 'junk-0005').executeTakeFirstOrThrow()
    ).last_seen_at
    await new Promise((resolve) => setTimeout(resolve, 5))
    await report(pennon, client, 'junk', { ...names(5, 1), 'junk-new': { yes: 1 } })
    await pennon.metrics.flush()
    assert.equal(await stored(), 1000)
    const after = (
      await pennon.database.db.selectFrom('unknown_flags').select('last_seen_at').where('name', '=', 'junk-0005').executeTakeFirstOrThrow()
    ).last_seen_at
    assert.ok(Date.parse(after) > Date.parse(before), `${after} after ${before}`)
    assert.equal(
      await pennon.database.db.selectFrom('unknown_flags').select('name').where('name', '=', 'junk-new').executeTakeFirst(),
      undefined,
    )
  })

  test('unknown flags: the table holds 1,000 rows across flushes', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    const names = (from: number, count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`many-${from + i}`, { no: 1 }]))
    await report(pennon, client, 'many', names(0, 600))
    await pennon.metrics.flush()
    await report(pennon, client, 'many', names(600, 600))
    await pennon.metrics.flush()
    assert.equal((await get(pennon, '/api/admin/metrics/unknown-flags')).unknownFlags.length, 1000)
  })
})
