/**
 * GET /projects/:id/overview, /insights and /dora over a project built through the API: flags of
 * several types and ages, switched on in development and production, one stale, one archived.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { createUser, asBrowser, signIn } from '../../../test/people.ts'
import { leadTimes } from './project-insights-service.ts'

const P = '/api/admin/projects'
const DAY = 86_400_000

async function ok(pennon: TestApp, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, status = 200): Promise<any> {
  const response = await call(pennon, method, url, body)
  assert.equal(response.status, status, `${method} ${url}: ${response.text}`)
  return response.body
}

/** Moves a flag's creation (and its creation event) `days` into the past. */
async function age(pennon: TestApp, name: string, days: number): Promise<void> {
  const createdAt = new Date(Date.now() - days * DAY - 3_600_000).toISOString()
  await pennon.database.db.updateTable('features').set({ created_at: createdAt }).where('name', '=', name).execute()
}

const switchOn = (pennon: TestApp, flag: string, environment: string) =>
  ok(pennon, 'POST', `${P}/shop/features/${flag}/environments/${environment}/on`)

/** A person's personal access token (a user made through the API, signed in). */
export async function personToken(pennon: TestApp, email: string, rootRole: 1 | 2 | 3): Promise<string> {
  await createUser(pennon, email, rootRole)
  const token = await call(
    pennon,
    'POST',
    '/api/admin/user/tokens',
    { description: 'test', expiresAt: new Date(Date.now() + 30 * DAY).toISOString() },
    asBrowser(await signIn(pennon, email)),
  )
  assert.equal(token.status, 201, token.text)
  return token.body.secret
}

/**
 * shop: alpha (release, 3 days old, on in production), beta (release, 45 days old: potentially
 * stale, on in development only), kill (kill-switch, stale, on in production), old (release,
 * 10 days old, on in production, archived).
 */
async function buildShop(pennon: TestApp): Promise<void> {
  await ok(pennon, 'POST', P, { id: 'shop', name: 'Shop', description: 'Things to buy' }, 201)
  await ok(pennon, 'POST', `${P}/shop/features`, { name: 'beta', type: 'release' }, 201)
  for (const [name, type] of [
    ['alpha', 'release'],
    ['kill', 'kill-switch'],
    ['old', 'release'],
  ]) {
    await ok(pennon, 'POST', `${P}/shop/features`, { name, type }, 201)
  }
  await age(pennon, 'alpha', 3)
  await age(pennon, 'beta', 45)
  await age(pennon, 'old', 10)
  await switchOn(pennon, 'alpha', 'production')
  await switchOn(pennon, 'alpha', 'development')
  await switchOn(pennon, 'beta', 'development')
  await switchOn(pennon, 'kill', 'production')
  await switchOn(pennon, 'old', 'production')
  await ok(pennon, 'POST', `${P}/shop/features/alpha/environments/production/off`)
  await switchOn(pennon, 'alpha', 'production')
  await ok(pennon, 'POST', `${P}/shop/stale`, { features: ['kill'], stale: true }, 202)
  await ok(pennon, 'DELETE', `${P}/shop/features/old`, undefined, 202)
}

/** The project's events in the last 30 days and in the 30 before, read straight from the table. */
async function activity(pennon: TestApp): Promise<{ current: number; past: number }> {
  const rows = await pennon.database.db.selectFrom('events').select('created_at').where('project', '=', 'shop').execute()
  const at = (days: number) => new Date(Date.now() - days * DAY).toISOString()
  return {
    current: rows.filter((row) => new Date(row.created_at).toISOString() >= at(30)).length,
    past: rows.filter((row) => new Date(row.created_at).toISOString() >= at(60) && new Date(row.created_at).toISOString() < at(30)).length,
  }
}

test('lead times: whole days per flag, their average to one decimal, 0.1 for a zero average, 0 for none', () => {
  const at = (days: number) => new Date(Date.UTC(2026, 0, 1) + days * DAY).toISOString()
  assert.deepEqual(leadTimes([]), { features: [], projectAverage: 0 })
  assert.deepEqual(leadTimes([{ name: 'a', created: at(0), enabled: at(0.5) }]), {
    features: [{ name: 'a', timeToProduction: 0 }],
    projectAverage: 0.1,
  })
  assert.deepEqual(
    leadTimes([
      { name: 'a', created: at(0), enabled: at(1.9) },
      { name: 'b', created: at(0), enabled: at(2) },
      { name: 'c', created: at(0), enabled: at(2.5) },
    ]),
    {
      features: [
        { name: 'a', timeToProduction: 1 },
        { name: 'b', timeToProduction: 2 },
        { name: 'c', timeToProduction: 2 },
      ],
      projectAverage: 1.7,
    },
  )
})

onEachDatabase("a project's overview, insights and lead times", (database) => {
  test('an empty project: zeros, onboarding started, no lead times', async (t) => {
    const pennon = await useTestApp(t, database)
    const project = await ok(pennon, 'POST', P, { id: 'shop', name: 'Shop' }, 201)
    const stats = {
      avgTimeToProdCurrentWindow: 0,
      createdCurrentWindow: 0,
      createdPastWindow: 0,
      archivedCurrentWindow: 0,
      archivedPastWindow: 0,
      projectActivityCurrentWindow: 1,
      projectActivityPastWindow: 0,
      projectMembersAddedCurrentWindow: 0,
    }
    assert.deepEqual(await ok(pennon, 'GET', `${P}/shop/overview`), {
      stats,
      name: 'Shop',
      description: null,
      mode: 'open',
      featureLimit: null,
      featureNaming: { pattern: null, example: null, description: null },
      linkTemplates: [],
      defaultStickiness: 'default',
      health: 100,
      technicalDebt: 0,
      favorite: false,
      updatedAt: null,
      createdAt: project.createdAt,
      onboardingStatus: { status: 'onboarding-started' },
      environments: [{ environment: 'development' }, { environment: 'production' }],
      featureTypeCounts: [],
      members: 0,
      version: 1,
    })
    const zero = { rating: 100, activeCount: 0, potentiallyStaleCount: 0, staleCount: 0 }
    assert.deepEqual(await ok(pennon, 'GET', `${P}/shop/insights`), {
      stats,
      featureTypeCounts: [],
      technicalDebt: { ...zero, rating: 0 },
      leadTime: { features: [], projectAverage: 0 },
      members: { currentMembers: 0, change: 0 },
      health: zero,
    })
    assert.deepEqual(await ok(pennon, 'GET', `${P}/shop/dora`), { features: [], projectAverage: 0 })
  })

  test('counts, health, lead times and onboarding of a project with flags switched on', async (t) => {
    const pennon = await useTestApp(t, database)
    await buildShop(pennon)
    // One of the project's events moves to the window before the current one.
    const first = await pennon.database.db
      .selectFrom('events')
      .select('id')
      .where('project', '=', 'shop')
      .orderBy('id')
      .executeTakeFirstOrThrow()
    await pennon.database.db
      .updateTable('events')
      .set({ created_at: new Date(Date.now() - 45 * DAY).toISOString() })
      .where('id', '=', first.id)
      .execute()
    const { current, past } = await activity(pennon)
    assert.equal(past, 1)

    const dora = {
      features: [
        { name: 'alpha', timeToProduction: 3 },
        { name: 'old', timeToProduction: 10 },
      ],
      projectAverage: 6.5,
    }
    assert.deepEqual(await ok(pennon, 'GET', `${P}/shop/dora`), dora)
    const stats = {
      avgTimeToProdCurrentWindow: 6.5,
      createdCurrentWindow: 2,
      createdPastWindow: 1,
      archivedCurrentWindow: 1,
      archivedPastWindow: 0,
      projectActivityCurrentWindow: current,
      projectActivityPastWindow: 1,
      projectMembersAddedCurrentWindow: 0,
    }
    const featureTypeCounts = [
      { type: 'kill-switch', count: 1 },
      { type: 'release', count: 2 },
    ]
    const counts = { activeCount: 2, potentiallyStaleCount: 1, staleCount: 1 }
    assert.deepEqual(await ok(pennon, 'GET', `${P}/shop/insights`), {
      stats,
      featureTypeCounts,
      technicalDebt: { rating: 67, ...counts },
      leadTime: dora,
      members: { currentMembers: 0, change: 0 },
      health: { rating: 33, ...counts },
    })
    const overview = await ok(pennon, 'GET', `${P}/shop/overview`)
    assert.deepEqual(
      { stats: overview.stats, health: overview.health, technicalDebt: overview.technicalDebt, types: overview.featureTypeCounts },
      { stats, health: 33, technicalDebt: 67, types: featureTypeCounts },
    )
    const archivedTypes = await ok(pennon, 'GET', `${P}/shop/overview?archived=true`)
    assert.deepEqual(archivedTypes.featureTypeCounts, [{ type: 'release', count: 1 }])
    const badQuery = await call(pennon, 'GET', `${P}/shop/overview?archived=yes`)
    assert.equal(badQuery.status, 400)
    assert.equal(badQuery.body.name, 'ValidationError')
    // The first active flag made; no SDK has used the project yet.
    assert.deepEqual(overview.onboardingStatus, { status: 'first-flag-created', feature: 'beta' })
  })

  test('SDKs seen using the project: sdk-connected, onboarded once a flag was switched on', async (t) => {
    const pennon = await useTestApp(t, database)
    await ok(pennon, 'POST', P, { id: 'shop', name: 'Shop' }, 201)
    await ok(pennon, 'POST', `${P}/shop/features`, { name: 'seen' }, 201)
    const client = await apiToken(pennon, 'client')
    const bucket = {
      start: new Date(Date.now() - 1000).toISOString(),
      stop: new Date().toISOString(),
      toggles: { seen: { yes: 1, no: 0 } },
    }
    const report = await call(pennon, 'POST', '/api/client/metrics', { appName: 'web', instanceId: 'i-1', bucket }, { token: client })
    assert.equal(report.status, 202, report.text)
    await pennon.metrics.flush()
    assert.deepEqual((await ok(pennon, 'GET', `${P}/shop/overview`)).onboardingStatus, { status: 'sdk-connected' })
    await ok(pennon, 'POST', `${P}/shop/features/seen/environments/development/on`)
    assert.deepEqual((await ok(pennon, 'GET', `${P}/shop/overview`)).onboardingStatus, { status: 'onboarded' })
  })

  test("a project a person created: they are its member (and owner); an API token's project has none", async (t) => {
    const pennon = await useTestApp(t, database)
    const token = await personToken(pennon, 'ada@example.com', 2)
    assert.equal((await call(pennon, 'POST', P, { id: 'mine', name: 'Mine' }, { token })).status, 201)
    const insights = await ok(pennon, 'GET', `${P}/mine/insights`)
    assert.deepEqual(insights.members, { currentMembers: 1, change: 1 })
    assert.equal(insights.stats.projectMembersAddedCurrentWindow, 1)
    assert.equal((await ok(pennon, 'GET', `${P}/mine/overview`)).members, 1)
    assert.equal((await ok(pennon, 'GET', `${P}/default/overview`)).members, 0)
  })

  test('unknown project: 404; any caller of the admin API may read; none without credentials', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const path of ['overview', 'insights', 'dora']) {
      const missing = await call(pennon, 'GET', `${P}/nope/${path}`)
      assert.equal(missing.status, 404)
      assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', (await call(pennon, 'DELETE', `${P}/nope`)).body.message))
      const viewer = await personToken(pennon, `viewer-${path}@example.com`, 3)
      assert.equal((await call(pennon, 'GET', `${P}/default/${path}`, undefined, { token: viewer })).status, 200)
      assert.equal((await call(pennon, 'GET', `${P}/default/${path}`, undefined, { token: null })).status, 401)
    }
  })
})
