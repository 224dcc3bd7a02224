import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import type { AuditContext } from './audit.ts'
import { appendEvents } from './event-store.ts'
import type { NewEvent } from './event-types.ts'

const ALICE: AuditContext = Object.freeze({
  createdBy: 'alice@example.com',
  createdByUserId: 7,
  createdAt: '2026-01-02T03:04:05.678Z',
  groupType: 'transaction',
  groupId: '4f0f6d4e-5b1e-4d43-9a57-6a4a2b7f3c10',
})
const BOB: AuditContext = Object.freeze({
  createdBy: 'bob',
  createdByUserId: 8,
  createdAt: '2026-01-05T23:59:59.999Z',
  groupType: 'transaction',
  groupId: '0b7c2f4a-1d2e-4f3a-8b9c-0d1e2f3a4b5c',
})

/** Events with only the fields a search looks at (their data need not be whole). */
async function append(pennon: TestApp, audit: AuditContext, events: object[]): Promise<void> {
  await pennon.database.db.transaction().execute((trx) => appendEvents(trx, audit, events as NewEvent[]))
}

/** The stored JSON of the events with these ids, in the order given. */
async function stored(pennon: TestApp, ids: number[]): Promise<string[]> {
  const rows = await pennon.database.db.selectFrom('events').select(['id', 'json']).where('id', 'in', ids).execute()
  return ids.map((id) => rows.find((row) => Number(row.id) === id)!.json)
}

/** Four events by two people over two days; returns their ids in the order written. */
async function seed(pennon: TestApp): Promise<number[]> {
  await append(pennon, ALICE, [
    { type: 'feature-created', featureName: 'checkout', project: 'web', data: { name: 'checkout', description: 'Pay with Card' } },
    { type: 'feature-environment-enabled', featureName: 'checkout', project: 'web', environment: 'production' },
  ])
  await append(pennon, BOB, [
    { type: 'segment-created', data: { id: 1, name: 'beta' } },
    { type: 'feature-archived', featureName: 'search', project: 'mobile', environment: 'development', preData: { name: 'search' } },
  ])
  const rows = await pennon.database.db.selectFrom('events').select('id').orderBy('id', 'desc').limit(4).execute()
  return rows.map((row) => Number(row.id)).reverse()
}

const search = (pennon: TestApp, query: string, token?: string) =>
  call(pennon, 'GET', `/api/admin/search/events${query}`, undefined, token === undefined ? {} : { token })

onEachDatabase('event search', (database) => {
  test('each filter, newest first, exact bodies with the total', async (t) => {
    const pennon = await useTestApp(t, database)
    const [created, enabled, segment, archived] = await seed(pennon)
    const [createdJson, enabledJson, segmentJson, archivedJson] = await stored(pennon, [created!, enabled!, segment!, archived!])
    const expect = async (query: string, events: Array<string | undefined>, total = events.length) => {
      const response = await search(pennon, query)
      assert.equal(response.status, 200, response.text)
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(response.text, `{"events":[${events.join(',')}],"total":${total}}`, query)
    }
    await expect('?project=IS:web', [enabledJson, createdJson])
    await expect('?project=IS_ANY_OF:web,mobile', [archivedJson, enabledJson, createdJson])
    await expect('?feature=IS:checkout&type=IS:feature-created', [createdJson])
    await expect('?type=IS_ANY_OF:segment-created,%20feature-archived', [archivedJson, segmentJson])
    await expect('?environment=IS:production', [enabledJson])
    await expect(`?id=IS_ANY_OF:${created},${archived}`, [archivedJson, createdJson])
    await expect(`?groupId=IS:${BOB.groupId}`, [archivedJson, segmentJson])
    await expect('?createdBy=IS:7', [enabledJson, createdJson])
    // `from` and `to` are whole days (UTC), both included.
    await expect('?from=IS:2026-01-05&createdBy=IS_ANY_OF:7,8', [archivedJson, segmentJson])
    await expect('?to=IS:2026-01-04&createdBy=IS_ANY_OF:7,8', [enabledJson, createdJson])
    await expect('?from=IS:2026-01-02&to=IS:2026-01-05&project=IS_ANY_OF:web,mobile', [archivedJson, enabledJson, createdJson])
    await expect('?from=IS:2026-01-06&createdBy=IS:8', [])
    // Text in data, preData or tags, case-insensitive; not in the type or the names around them.
    await expect('?query=pay%20WITH', [createdJson])
    await expect('?query=search', [archivedJson])
    await expect('?query=beta', [segmentJson])
    await expect('?query=production', [])
    await expect('?query=100%25', [])
    // Pages: the total counts every match.
    await expect('?project=IS_ANY_OF:web,mobile&limit=2', [archivedJson, enabledJson], 3)
    await expect('?project=IS_ANY_OF:web,mobile&limit=2&offset=2', [createdJson], 3)
    await expect('?project=IS:web&offset=5', [], 2)
    await expect('?project=IS:nowhere', [])
  })

  test('projects with types: the same page and total as a plain query', async (t) => {
    const pennon = await useTestApp(t, database)
    const events = Array.from({ length: 300 }, (_, i) => ({
      type: `type-${i % 7}`,
      featureName: `flag-${i % 11}`,
      project: i % 9 === 0 ? undefined : `project-${i % 4}`,
      environment: i % 3 === 0 ? undefined : `env-${i % 2}`,
    }))
    await append(pennon, ALICE, events.slice(0, 150))
    await append(pennon, BOB, events.slice(150))
    const { db } = pennon.database
    // More pairs than are merged one range at a time (16).
    const many = Array.from({ length: 9 }, (_, i) => `type-${i}`)
    const cases: Array<[query: string, projects: string[], types: string[], offset: number, limit: number, environment?: string]> = [
      ['?project=IS:project-3&type=IS_ANY_OF:type-3,type-5', ['project-3'], ['type-3', 'type-5'], 0, 50],
      ['?project=IS:project-3&type=IS_ANY_OF:type-3,type-5&limit=4&offset=3', ['project-3'], ['type-3', 'type-5'], 3, 4],
      ['?project=IS_ANY_OF:project-1,project-2&type=IS:type-2&limit=5', ['project-1', 'project-2'], ['type-2'], 0, 5],
      [
        '?project=IS_ANY_OF:project-0,project-1&type=IS_ANY_OF:type-1,type-4&environment=IS:env-0&limit=3&offset=2',
        ['project-0', 'project-1'],
        ['type-1', 'type-4'],
        2,
        3,
        'env-0',
      ],
      ['?project=IS:project-3&type=IS:type-3&offset=500', ['project-3'], ['type-3'], 500, 50],
      ['?project=IS:nowhere&type=IS:type-3', ['nowhere'], ['type-3'], 0, 50],
      [`?project=IS_ANY_OF:project-1,project-3&type=IS_ANY_OF:${many.join(',')}&limit=6&offset=4`, ['project-1', 'project-3'], many, 4, 6],
    ]
    for (const [query, projects, types, offset, limit, environment] of cases) {
      let matching = db.selectFrom('events').where('project', 'in', projects).where('type', 'in', types)
      if (environment !== undefined) matching = matching.where('environment', '=', environment)
      const all = await matching.select('json').orderBy('id', 'desc').execute()
      const expected = all.slice(offset, offset + limit).map((row) => row.json)
      const response = await search(pennon, query)
      assert.equal(response.status, 200, response.text)
      assert.equal(response.text, `{"events":[${expected.join(',')}],"total":${all.length}}`, query)
    }
    assert.ok((await search(pennon, cases[0]![0])).body.total > 5, 'the first case matches several events')
  })

  test('without a filter: the newest 50 of all events, and their number', async (t) => {
    const pennon = await useTestApp(t, database)
    await seed(pennon)
    const rows = await pennon.database.db.selectFrom('events').select('json').orderBy('id', 'desc').execute()
    const response = await search(pennon, '')
    assert.equal(response.status, 200)
    assert.equal(
      response.text,
      `{"events":[${rows
        .slice(0, 50)
        .map((row) => row.json)
        .join(',')}],"total":${rows.length}}`,
    )
    const past = await search(pennon, `?offset=${rows.length}`)
    assert.equal(past.text, `{"events":[],"total":${rows.length}}`)
  })

  test('a caller without ADMIN sees only the events of projects', async (t) => {
    const pennon = await useTestApp(t, database)
    const [created, enabled, , archived] = await seed(pennon)
    const viewer = await serviceAccountToken(pennon, 3)
    const [createdJson, enabledJson, archivedJson] = await stored(pennon, [created!, enabled!, archived!])
    const response = await search(pennon, '?createdBy=IS_ANY_OF:7,8', viewer)
    assert.equal(response.status, 200)
    assert.equal(response.text, `{"events":[${[archivedJson, enabledJson, createdJson].join(',')}],"total":3}`)
  })

  test('malformed filters are 400s naming the parameter', async (t) => {
    const pennon = await useTestApp(t, database)
    const refused = async (query: string, path: string, message: string) => {
      const response = await search(pennon, query)
      assert.equal(response.status, 400, query)
      assert.deepEqual(withoutId(response.body), errorOf('ValidationError', message, { details: [{ path, message }] }), query)
    }
    await refused(
      '?project=web',
      '/query/project',
      'The `/query/project` parameter must be OPERATOR:value[,value…] with OPERATOR one of IS, IS_ANY_OF. You sent "web".',
    )
    await refused(
      '?type=IS_NOT:a',
      '/query/type',
      'The `/query/type` parameter must be OPERATOR:value[,value…] with OPERATOR one of IS, IS_ANY_OF. You sent "IS_NOT:a".',
    )
    await refused('?feature=IS:', '/query/feature', 'The `/query/feature` parameter has an empty value. You sent "IS:".')
    await refused(
      '?feature=IS_ANY_OF:a,,b',
      '/query/feature',
      'The `/query/feature` parameter has an empty value. You sent "IS_ANY_OF:a,,b".',
    )
    await refused(
      '?feature=IS:a,b',
      '/query/feature',
      'The `/query/feature` parameter\'s IS takes one value; use the …_OF form for a list. You sent "IS:a,b".',
    )
    await refused('?id=IS:one', '/query/id', 'The `/query/id` parameter\'s values must be whole numbers. You sent "one".')
    await refused(
      '?createdBy=IS:99999999999',
      '/query/createdBy',
      'The `/query/createdBy` parameter\'s values must be whole numbers. You sent "99999999999".',
    )
    await refused(
      '?from=IS:2026-02-30',
      '/query/from',
      'The `/query/from` parameter must be IS followed by a date, yyyy-MM-dd. You sent "IS:2026-02-30".',
    )
    await refused(
      '?to=IS_BEFORE:2026-02-01',
      '/query/to',
      'The `/query/to` parameter must be OPERATOR:value[,value…] with OPERATOR one of IS. You sent "IS_BEFORE:2026-02-01".',
    )
    await refused('?limit=ten', '/query/limit', 'The `/query/limit` parameter must be a whole number of at least 1. You sent "ten".')
    const many = Array.from({ length: 101 }, (_, i) => `p${i}`).join(',')
    await refused(`?project=IS_ANY_OF:${many}`, '/query/project', 'The `/query/project` parameter may list at most 100 values.')
    await refused(
      `?project=IS:${'p'.repeat(1001)}`,
      '/query/project',
      'Each value of the `/query/project` parameter may be at most 1000 characters long.',
    )
    const long = await search(pennon, `?query=${'q'.repeat(1001)}`)
    assert.equal(long.status, 400)
    // More than 1000 is taken as 1000, as the reference bounds its pages.
    const clamped = await search(pennon, '?limit=5000&project=IS:none')
    assert.equal(clamped.text, '{"events":[],"total":0}')
  })

  test("event creators: each id once, named by the user, the reference's built-in names, or the latest event", async (t) => {
    const pennon = await useTestApp(t, database)
    await seed(pennon)
    await append(pennon, { ...BOB, createdBy: 'bob@example.com' }, [{ type: 'feature-archived', featureName: 'gone' }])
    await append(pennon, { ...ALICE, createdBy: 'system', createdByUserId: -1337 }, [{ type: 'feature-archived', featureName: 'gone' }])
    const response = await call(pennon, 'GET', '/api/admin/event-creators')
    assert.equal(response.status, 200)
    const ids = (await pennon.database.db.selectFrom('events').select('created_by_user_id').distinct().execute()).map((row) =>
      Number(row.created_by_user_id),
    )
    const others = ids.filter((id) => ![7, 8, -1337].includes(id))
    const startup = (response.body as Array<{ id: number; name: string }>).filter((creator) => others.includes(creator.id))
    assert.deepEqual(
      response.body,
      [{ id: -1337, name: 'Unleash System' }, ...startup, { id: 7, name: 'alice@example.com' }, { id: 8, name: 'bob@example.com' }].sort(
        (a, b) => a.id - b.id,
      ),
    )
  })
})
