import assert from 'node:assert/strict'
import { test } from 'node:test'
import { requireChangeRequests } from '../../../test/helpers/change-requests.ts'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { createFlag, projectPath } from '../../../test/helpers/flags.ts'

const PROD = 'production'
const DEV = 'development'
const CR = `${projectPath()}/change-requests`
const SEARCH = '/api/admin/search/change-requests'

const search = (pennon: TestApp, query: string, token?: string) => call(pennon, 'GET', `${SEARCH}${query}`, undefined, { token })

async function addChange(pennon: TestApp, token: string, feature: string, environment = PROD): Promise<any> {
  const response = await call(
    pennon,
    'POST',
    `${projectPath()}/environments/${environment}/change-requests`,
    { feature, action: 'updateEnabled', payload: { enabled: true } },
    { token },
  )
  assert.equal(response.status, 200, response.text)
  return response.body
}

async function moveTo(pennon: TestApp, token: string, id: number, state: string, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await call(pennon, 'PUT', `${CR}/${id}/state`, { state, ...extra }, { token })
  assert.equal(response.status, 200, response.text)
  return response.body
}

/** The search's item for a request as GET …/:id shows it. */
function itemOf(request: any, features: string[]) {
  const { id, title, project, environment, state, createdBy, createdAt, schedule } = request
  assert.deepEqual(
    request.features.map((feature: { name: string }) => feature.name),
    features,
  )
  return { id, title, project, environment, state, createdBy, createdAt, features, segments: [], ...(schedule ? { schedule } : {}) }
}

/**
 * 1: author's, production, alpha then beta, then alpha again (replacing the first: beta comes first now), In review.
 * 2: author's, development, beta, Approved by the reviewer, then Scheduled.
 * 3: the reviewer's Draft in production (only the reviewer finds it).
 * 4: author's, production, Cancelled.
 */
async function seed(pennon: TestApp) {
  const author = await serviceAccountToken(pennon, 2, 'author')
  const reviewer = await serviceAccountToken(pennon, 2, 'reviewer')
  for (const flag of ['alpha', 'beta']) await createFlag(pennon, flag)
  await requireChangeRequests(pennon, { environment: PROD })
  await requireChangeRequests(pennon, { environment: DEV })
  const first = await addChange(pennon, author, 'alpha')
  await addChange(pennon, author, 'beta')
  await addChange(pennon, author, 'alpha')
  await moveTo(pennon, author, first.id, 'In review')
  const second = await addChange(pennon, author, 'beta', DEV)
  await moveTo(pennon, author, second.id, 'In review')
  await moveTo(pennon, reviewer, second.id, 'Approved')
  const scheduledAt = new Date(Date.now() + 3_600_000).toISOString()
  await moveTo(pennon, author, second.id, 'Scheduled', { scheduledAt })
  const third = await addChange(pennon, reviewer, 'beta')
  const fourth = await addChange(pennon, author, 'beta')
  await moveTo(pennon, author, fourth.id, 'Cancelled')
  const get = async (id: number) => (await call(pennon, 'GET', `${CR}/${id}`)).body
  const items = {
    1: itemOf(await get(first.id), ['beta', 'alpha']),
    2: itemOf(await get(second.id), ['beta']),
    3: itemOf(await get(third.id), ['beta']),
    4: itemOf(await get(fourth.id), ['beta']),
  }
  return { author, reviewer, authorId: first.createdBy.id as number, reviewerId: third.createdBy.id as number, items, scheduledAt }
}

onEachDatabase('change-request search', (database) => {
  test('every project’s requests newest first, with the total; drafts only their author’s; paged', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author, reviewer, items, scheduledAt } = await seed(pennon)
    assert.deepEqual(items[1], {
      id: 1,
      title: 'Change request #1',
      project: 'default',
      environment: PROD,
      state: 'In review',
      createdBy: { id: items[1].createdBy.id, username: 'author', imageUrl: '' },
      createdAt: items[1].createdAt,
      features: ['beta', 'alpha'],
      segments: [],
    })
    assert.deepEqual(items[2].schedule, { scheduledAt, status: 'pending' })

    const all = await search(pennon, '', author)
    assert.equal(all.status, 200, all.text)
    assert.equal(all.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(all.body, { changeRequests: [items[4], items[2], items[1]], total: 3 })
    assert.deepEqual((await search(pennon, '', reviewer)).body, { changeRequests: [items[4], items[3], items[2], items[1]], total: 4 })

    assert.deepEqual((await search(pennon, '?limit=2', author)).body, { changeRequests: [items[4], items[2]], total: 3 })
    assert.deepEqual((await search(pennon, '?offset=2&limit=2', author)).body, { changeRequests: [items[1]], total: 3 })
    assert.deepEqual((await search(pennon, '?offset=10', author)).body, { changeRequests: [], total: 3 })
    assert.deepEqual((await search(pennon, '?sortBy=createdAt&sortOrder=asc&limit=2', author)).body, {
      changeRequests: [items[1], items[2]],
      total: 3,
    })
    // More than 1000 is taken as 1000.
    assert.deepEqual((await search(pennon, '?limit=5000', author)).body.total, 3)
  })

  test('filters: createdBy, state open or closed, requestedApproverId (In review, not theirs, not reviewed by them)', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author, reviewer, authorId, reviewerId, items } = await seed(pennon)
    const found = async (query: string, token = author) => {
      const response = await search(pennon, query, token)
      assert.equal(response.status, 200, response.text)
      return response.body
    }
    assert.deepEqual(await found(`?createdBy=IS:${authorId}`), { changeRequests: [items[4], items[2], items[1]], total: 3 })
    // The reviewer's draft is theirs alone.
    assert.deepEqual(await found(`?createdBy=IS:${reviewerId}`), { changeRequests: [], total: 0 })
    assert.deepEqual(await found(`?createdBy=IS:${reviewerId}`, reviewer), { changeRequests: [items[3]], total: 1 })
    assert.deepEqual(await found(`?createdBy=IS_ANY_OF:${reviewerId},${authorId}&limit=1`, reviewer), {
      changeRequests: [items[4]],
      total: 4,
    })
    assert.deepEqual(await found('?state=IS:open'), { changeRequests: [items[2], items[1]], total: 2 })
    assert.deepEqual(await found('?state=IS:closed'), { changeRequests: [items[4]], total: 1 })
    assert.deepEqual(await found('?state=IS_ANY_OF:open,closed'), { changeRequests: [items[4], items[2], items[1]], total: 3 })
    assert.deepEqual(await found(`?state=IS:open&createdBy=IS:${authorId}`, reviewer), {
      changeRequests: [items[2], items[1]],
      total: 2,
    })
    // Awaiting the reviewer: 1 (In review). 2 was approved; the author's own requests never await the author.
    assert.deepEqual(await found(`?requestedApproverId=IS:${reviewerId}`), { changeRequests: [items[1]], total: 1 })
    assert.deepEqual(await found(`?requestedApproverId=IS:${authorId}`), { changeRequests: [], total: 0 })
    assert.deepEqual(await found(`?requestedApproverId=IS_ANY_OF:${authorId},${reviewerId}&state=IS:closed`), {
      changeRequests: [],
      total: 0,
    })
    // Once the reviewer rejects it, it no longer awaits them.
    const rejected = await moveTo(pennon, reviewer, 1, 'Rejected')
    assert.deepEqual(await found(`?requestedApproverId=IS:${reviewerId}`), { changeRequests: [], total: 0 })
    assert.deepEqual(await found('?state=IS:closed'), {
      changeRequests: [items[4], { ...items[1], state: 'Rejected' }],
      total: 2,
    })
    assert.equal(rejected.state, 'Rejected')
  })

  test('malformed parameters are 400s naming the parameter', async (t) => {
    const pennon = await useTestApp(t, database)
    const refused = async (query: string, path: string, message: string) => {
      const response = await search(pennon, query)
      assert.equal(response.status, 400, query)
      assert.deepEqual(withoutId(response.body), errorOf('ValidationError', message, { details: [{ path, message }] }), query)
    }
    await refused(
      '?state=open',
      '/query/state',
      'The `/query/state` parameter must be OPERATOR:value[,value…] with OPERATOR one of IS, IS_ANY_OF. You sent "open".',
    )
    await refused('?state=IS:pending', '/query/state', 'The `/query/state` parameter takes only open or closed. You sent "IS:pending".')
    await refused(
      '?createdBy=IS:ann',
      '/query/createdBy',
      'The `/query/createdBy` parameter\'s values must be whole numbers. You sent "ann".',
    )
    await refused(
      '?requestedApproverId=IS_NOT:1',
      '/query/requestedApproverId',
      'The `/query/requestedApproverId` parameter must be OPERATOR:value[,value…] with OPERATOR one of IS, IS_ANY_OF. You sent "IS_NOT:1".',
    )
    await refused('?sortBy=title', '/query/sortBy', 'The `/query/sortBy` parameter takes only createdAt. You sent "title".')
    await refused('?limit=0', '/query/limit', 'The `/query/limit` parameter must be a whole number of at least 1. You sent "0".')
    const order = await search(pennon, '?sortOrder=up')
    assert.equal(order.status, 400, order.text)
    assert.equal(order.body.details[0].path, '/query/sortOrder')
    const unauthenticated = await search(pennon, '', null as unknown as string)
    assert.equal(unauthenticated.status, 401)
  })
})
