import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'

const flags = '/api/admin/projects/default/features'
const search = (pennon: TestApp, query: string) => call(pennon, 'GET', `/api/admin/search/features${query}`)

async function ok(response: { status: number; text: string }, status = 200): Promise<void> {
  assert.equal(response.status, status, response.text)
}

/**
 * Four flags in two projects: checkout (release, tagged, a strategy with a segment, enabled in
 * development, seen there), search (experiment, stale, child of checkout), mobile-menu (web
 * project, kill-switch, potentially stale) and old (archived).
 */
async function seed(pennon: TestApp): Promise<void> {
  const { db } = pennon.database
  await ok(await call(pennon, 'POST', '/api/admin/projects', { id: 'web', name: 'Web' }), 201)
  await ok(await call(pennon, 'POST', '/api/admin/segments', { name: 'beta-users', constraints: [] }), 201)
  const segment = (await call(pennon, 'GET', '/api/admin/segments')).body as { segments: Array<{ id: number }> }
  await ok(await call(pennon, 'POST', flags, { name: 'checkout', type: 'release', description: 'Pay with Card' }), 201)
  await ok(await call(pennon, 'POST', flags, { name: 'search', type: 'experiment', description: null }), 201)
  await ok(await call(pennon, 'POST', '/api/admin/projects/web/features', { name: 'mobile-menu', type: 'kill-switch' }), 201)
  await ok(await call(pennon, 'POST', flags, { name: 'old', type: 'release' }), 201)
  await ok(await call(pennon, 'POST', '/api/admin/features/checkout/tags', { type: 'simple', value: 'payments' }), 201)
  await ok(await call(pennon, 'POST', '/api/admin/features/search/tags', { type: 'simple', value: 'ux' }), 201)
  await ok(
    await call(pennon, 'POST', `${flags}/checkout/environments/development/strategies`, {
      name: 'default',
      segments: [segment.segments[0]!.id],
    }),
  )
  await ok(await call(pennon, 'POST', `${flags}/checkout/environments/development/on`))
  await ok(await call(pennon, 'POST', `${flags}/search/dependencies`, { feature: 'checkout' }))
  await ok(await call(pennon, 'POST', '/api/admin/projects/default/stale', { features: ['search'], stale: true }), 202)
  await ok(await call(pennon, 'DELETE', `${flags}/old`), 202)
  await db
    .insertInto('last_seen_at_metrics')
    .values({ feature_name: 'checkout', environment: 'development', last_seen_at: '2026-03-04T05:06:07.000Z' })
    .execute()
  // As the periodic scan marks a flag that outlived its type's lifetime.
  await db.updateTable('features').set({ potentially_stale: true }).where('name', '=', 'mobile-menu').execute()
  // Creation times a day apart, so that filters and sorts by them are exact.
  for (const [name, day] of [
    ['checkout', '01'],
    ['search', '02'],
    ['mobile-menu', '03'],
    ['old', '04'],
  ] as const)
    await db
      .updateTable('features')
      .set({ created_at: `2026-01-${day}T00:00:00.000Z` })
      .where('name', '=', name)
      .execute()
  // Their initial stages with them (the lifecycle's own times are checked in lifecycle.api.test.ts).
  for (const [name, day] of [
    ['checkout', '01'],
    ['search', '02'],
    ['mobile-menu', '03'],
    ['old', '04'],
  ] as const)
    await db
      .updateTable('feature_lifecycles')
      .set({ created_at: `2026-01-${day}T00:00:00.000Z` })
      .where('feature', '=', name)
      .where('stage', '=', 'initial')
      .execute()
}

const initial = (createdAt: string) => ({ createdAt, lifecycle: { stage: 'initial', enteredStageAt: createdAt } })

const environment = (name: 'development' | 'production', more: object = {}) => ({
  name,
  enabled: false,
  type: name,
  sortOrder: name === 'development' ? 2 : 3,
  variantCount: 0,
  lastSeenAt: null,
  hasStrategies: false,
  hasEnabledStrategies: false,
  ...more,
})
const flag = (name: string, more: object = {}) => ({
  name,
  description: null,
  dependencyType: null,
  type: 'release',
  project: 'default',
  stale: false,
  favorite: false,
  impressionData: false,
  createdAt: null,
  archivedAt: null,
  // The admin token's actor, as its creation event names it.
  createdBy: { id: -42, name: 'admin', imageUrl: '' },
  environments: [environment('development'), environment('production')],
  segments: [],
  ...more,
})
const CHECKOUT = flag('checkout', {
  description: 'Pay with Card',
  dependencyType: 'parent',
  ...initial('2026-01-01T00:00:00.000Z'),
  environments: [
    environment('development', { enabled: true, lastSeenAt: '2026-03-04T05:06:07.000Z', hasStrategies: true, hasEnabledStrategies: true }),
    environment('production'),
  ],
  segments: ['beta-users'],
  tags: [{ value: 'payments', type: 'simple', color: '#FFFFFF' }],
})
const SEARCH = flag('search', {
  dependencyType: 'child',
  type: 'experiment',
  stale: true,
  ...initial('2026-01-02T00:00:00.000Z'),
  tags: [{ value: 'ux', type: 'simple', color: '#FFFFFF' }],
})
const MOBILE = flag('mobile-menu', { type: 'kill-switch', project: 'web', ...initial('2026-01-03T00:00:00.000Z') })
const BY_NAME: Record<string, object> = { checkout: CHECKOUT, search: SEARCH, 'mobile-menu': MOBILE }

onEachDatabase('flag search', (database) => {
  test('every flag with its environments, segments, tags and dependencies; archived ones apart', async (t) => {
    const pennon = await useTestApp(t, database)
    await seed(pennon)
    const all = await search(pennon, '')
    assert.equal(all.status, 200, all.text)
    assert.deepEqual(all.body, { features: [CHECKOUT, SEARCH, MOBILE], total: 3 })
    const archived = (await search(pennon, '?archived=IS:true')).body as { features: Array<{ archivedAt: string }> }
    const archivedAt = archived.features[0]!.archivedAt
    assert.match(archivedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const old = flag('old', {
      createdAt: '2026-01-04T00:00:00.000Z',
      archivedAt,
      lifecycle: { stage: 'archived', enteredStageAt: archivedAt },
    })
    assert.deepEqual(archived, { features: [old], total: 1 })
    assert.deepEqual((await search(pennon, '?lifecycle=IS:archived')).body, { features: [old], total: 1 })
    assert.deepEqual((await search(pennon, '?lifecycle=IS_NOT:archived&limit=1')).body, { features: [CHECKOUT], total: 3 })
  })

  test('each filter, sort and page: the flags in order and the total', async (t) => {
    const pennon = await useTestApp(t, database)
    await seed(pennon)
    const expect = async (query: string, names: string[], total = names.length) => {
      const response = await search(pennon, query)
      assert.equal(response.status, 200, `${query}: ${response.text}`)
      assert.deepEqual(response.body, { features: names.map((name) => BY_NAME[name]), total }, query)
    }
    // Text in the name or description, case-insensitively; commas separate alternatives.
    await expect('?query=CARD', ['checkout'])
    await expect('?query=menu,%20sear', ['search', 'mobile-menu'])
    await expect('?query=100%25', [])
    await expect('?query=payments', [])
    await expect('?project=IS:web', ['mobile-menu'])
    await expect('?project=IS_NOT:web', ['checkout', 'search'])
    await expect('?project=IS_ANY_OF:web,default', ['checkout', 'search', 'mobile-menu'])
    await expect('?project=IS_NONE_OF:web,default', [])
    await expect('?type=IS_ANY_OF:experiment,kill-switch', ['search', 'mobile-menu'])
    await expect('?type=IS_NOT:release', ['search', 'mobile-menu'])
    await expect('?state=IS:stale', ['search'])
    await expect('?state=IS:active', ['checkout', 'mobile-menu'])
    await expect('?state=IS_NOT:stale', ['checkout', 'mobile-menu'])
    await expect('?state=IS_ANY_OF:stale,active', ['checkout', 'search', 'mobile-menu'])
    await expect('?state=IS:potentially-stale', ['mobile-menu'])
    await expect('?state=IS_NOT:potentially-stale', ['checkout', 'search'])
    await expect('?state=IS_ANY_OF:stale,potentially-stale', ['search', 'mobile-menu'])
    await expect('?state=IS_ANY_OF:active,potentially-stale', ['checkout', 'mobile-menu'])
    await expect('?state=IS_NONE_OF:stale,active', [])
    await expect('?createdAt=IS_BEFORE:2026-01-02', ['checkout'])
    await expect('?createdAt=IS_ON_OR_AFTER:2026-01-02', ['search', 'mobile-menu'])
    await expect('?lastSeenAt=IS_ON_OR_AFTER:2026-03-04', ['checkout'])
    await expect('?lastSeenAt=IS_BEFORE:2026-03-04', [])
    await expect('?createdBy=IS:-42', ['checkout', 'search', 'mobile-menu'])
    await expect('?createdBy=IS_NOT:-42', [])
    await expect('?createdBy=IS_ANY_OF:7,8', [])
    // Tags, by the reference's operators.
    await expect('?tag=INCLUDE:simple:payments', ['checkout'])
    await expect('?tag=INCLUDE_ANY_OF:simple:payments,simple:ux', ['checkout', 'search'])
    await expect('?tag=INCLUDE_ALL_OF:simple:payments,simple:ux', [])
    await expect('?tag=DO_NOT_INCLUDE:simple:payments', ['search', 'mobile-menu'])
    await expect('?tag=EXCLUDE_IF_ANY_OF:simple:payments,simple:ux', ['mobile-menu'])
    await expect('?tag=EXCLUDE_ALL:simple:payments,simple:ux', ['checkout', 'search', 'mobile-menu'])
    await expect('?tag=EXCLUDE_ALL:simple:payments', ['search', 'mobile-menu'])
    await expect('?segment=INCLUDE:beta-users', ['checkout'])
    await expect('?segment=INCLUDE_ALL_OF:beta-users,nobody', [])
    await expect('?segment=DO_NOT_INCLUDE:beta-users', ['search', 'mobile-menu'])
    // Environment status: any of them.
    await expect('?status=development:enabled', ['checkout'])
    await expect('?status=development:enabled&status=production:disabled', ['checkout', 'search', 'mobile-menu'])
    await expect('?status=IS_ANY_OF:development:enabled,production:enabled', ['checkout'])
    await expect('?status=IS:development:disabled', ['search', 'mobile-menu'])
    await expect('?favorite=IS:true', [])
    await expect('?favorite=IS:false&favoritesFirst=true', ['checkout', 'search', 'mobile-menu'])
    // Sorts: ties by creation, then name; unseen flags last both ways.
    await expect('?sortBy=name', ['checkout', 'mobile-menu', 'search'])
    await expect('?sortBy=name&sortOrder=desc', ['search', 'mobile-menu', 'checkout'])
    await expect('?sortBy=createdAt&sortOrder=desc', ['mobile-menu', 'search', 'checkout'])
    await expect('?sortBy=type', ['search', 'mobile-menu', 'checkout'])
    await expect('?sortBy=stale&sortOrder=desc', ['search', 'checkout', 'mobile-menu'])
    await expect('?sortBy=project&sortOrder=desc', ['mobile-menu', 'checkout', 'search'])
    await expect('?sortBy=lastSeenAt', ['checkout', 'search', 'mobile-menu'])
    await expect('?sortBy=lastSeenAt&sortOrder=desc', ['checkout', 'search', 'mobile-menu'])
    await expect('?sortBy=environment:development&sortOrder=desc', ['checkout', 'search', 'mobile-menu'])
    await expect('?sortBy=environment:development', ['search', 'mobile-menu', 'checkout'])
    // Pages: the total counts every match; a limit over 100 is taken as 100.
    await expect('?sortBy=name&limit=2', ['checkout', 'mobile-menu'], 3)
    await expect('?sortBy=name&limit=2&offset=2', ['search'], 3)
    await expect('?offset=5', [], 3)
    await expect('?limit=1000', ['checkout', 'search', 'mobile-menu'])
    await expect('?project=IS:default&tag=INCLUDE:simple:ux&state=IS:stale&type=IS:experiment', ['search'])
  })

  test('lifecycle: the stage each flag entered last, as filter and in the answer; with archived=IS:true as the reference', async (t) => {
    const pennon = await useTestApp(t, database)
    await seed(pennon)
    // search completed through the API; checkout seen by SDKs (pre-live, then live: lifecycle.api.test.ts sends real reports).
    await ok(await call(pennon, 'POST', `${flags}/search/lifecycle/complete`, { status: 'kept', statusValue: 'v1' }))
    const completedAt = (await call(pennon, 'GET', `${flags}/search/lifecycle`)).body[1].enteredStageAt
    await pennon.database.db
      .insertInto('feature_lifecycles')
      .values([
        { feature: 'checkout', stage: 'pre-live', status: null, status_value: null, created_at: '2026-02-01T00:00:00.000Z' },
        { feature: 'checkout', stage: 'live', status: null, status_value: null, created_at: '2026-02-02T00:00:00.000Z' },
      ])
      .execute()
    const LIVE = { ...CHECKOUT, lifecycle: { stage: 'live', enteredStageAt: '2026-02-02T00:00:00.000Z' } }
    const COMPLETED = { ...SEARCH, lifecycle: { stage: 'completed', status: 'kept', enteredStageAt: completedAt } }
    const archived = (await search(pennon, '?archived=IS:true')).body.features[0]
    assert.deepEqual(archived.lifecycle, { stage: 'archived', enteredStageAt: archived.archivedAt })
    const byName: Record<string, object> = { checkout: LIVE, search: COMPLETED, 'mobile-menu': MOBILE, old: archived }
    const expect = async (query: string, names: string[]) => {
      const response = await search(pennon, query)
      assert.equal(response.status, 200, `${query}: ${response.text}`)
      assert.deepEqual(response.body, { features: names.map((name) => byName[name]), total: names.length }, query)
    }
    await expect('', ['checkout', 'search', 'mobile-menu'])
    await expect('?lifecycle=IS:initial', ['mobile-menu'])
    await expect('?lifecycle=IS:live', ['checkout'])
    await expect('?lifecycle=IS:pre-live', [])
    await expect('?lifecycle=IS:completed', ['search'])
    await expect('?lifecycle=IS_ANY_OF:live,completed', ['checkout', 'search'])
    await expect('?lifecycle=IS_NOT:initial', ['checkout', 'search'])
    await expect('?lifecycle=IS_NONE_OF:live,completed', ['mobile-menu'])
    await expect('?lifecycle=IS:archived', ['old'])
    await expect('?lifecycle=IS_ANY_OF:initial,archived', ['mobile-menu', 'old'])
    await expect('?lifecycle=IS_NOT:archived', ['checkout', 'search', 'mobile-menu'])
    await expect('?lifecycle=IS_NONE_OF:archived,live', ['search', 'mobile-menu'])
    // The archived view: archived flags, narrowed to active stages they are not in (none), or untouched by exclusions.
    await expect('?archived=IS:true&lifecycle=IS:initial', [])
    await expect('?archived=IS:true&lifecycle=IS:archived', ['old'])
    await expect('?archived=IS:true&lifecycle=IS_NOT:initial', ['old'])
    await expect('?archived=IS:true&lifecycle=IS_NOT:archived', ['checkout', 'search', 'mobile-menu'])
  })

  test('a malformed filter is a 400 naming the parameter', async (t) => {
    const pennon = await useTestApp(t, database)
    const refused = async (query: string, path: string) => {
      const response = await search(pennon, query)
      assert.equal(response.status, 400, `${query}: ${response.text}`)
      const body = response.body as { name: string; details: Array<{ path: string }> }
      assert.equal(body.name, 'ValidationError', query)
      assert.deepEqual(
        body.details.map((detail) => detail.path),
        [path],
        query,
      )
    }
    await refused('?project=ONE:default', '/query/project')
    await refused('?type=IS:a,b', '/query/type')
    await refused('?state=IS:old', '/query/state')
    await refused('?createdAt=IS:2026-01-01', '/query/createdAt')
    await refused('?createdAt=IS_BEFORE:2026-02-30', '/query/createdAt')
    await refused('?lastSeenAt=IS_BEFORE:yesterday', '/query/lastSeenAt')
    await refused('?createdBy=IS:alice', '/query/createdBy')
    await refused('?tag=INCLUDE:payments', '/query/tag')
    await refused('?tag=IS:simple:payments', '/query/tag')
    await refused('?segment=INCLUDE:', '/query/segment')
    await refused('?status=development:on', '/query/status')
    await refused('?status=IS:development', '/query/status')
    await refused('?lifecycle=IS:alive', '/query/lifecycle')
    await refused('?lifecycle=ONE:live', '/query/lifecycle')
    await refused('?archived=IS:maybe', '/query/archived')
    await refused('?favorite=IS:yes', '/query/favorite')
    await refused('?sortBy=color', '/query/sortBy')
    await refused('?limit=0', '/query/limit')
    await refused('?offset=-1', '/query/offset')
    await refused(`?project=IS_ANY_OF:${Array.from({ length: 101 }, (_, i) => `p${i}`).join(',')}`, '/query/project')
    const response = await search(pennon, '?sortOrder=up')
    assert.equal(response.status, 400, response.text)
  })
})
