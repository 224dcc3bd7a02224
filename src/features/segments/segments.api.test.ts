import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  allEvents,
  apiToken,
  call,
  errorOf,
  onEachDatabase,
  serviceAccountToken,
  sql,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

const post = (pennon: TestApp, body: unknown, token?: string) => call(pennon, 'POST', '/api/admin/segments', body, { token })
const segmentEvents = async (pennon: TestApp) => (await allEvents(pennon)).filter((event) => event.type.startsWith('segment-'))

/** A global segment's creation event, keys in the order the API shows them. */
const segmentCreated = ({
  id,
  createdBy,
  createdByUserId,
  data,
  groupId,
}: {
  id: number
  createdBy: string
  createdByUserId: number
  data: { createdAt: string }
  groupId: string
}) => ({
  id,
  type: 'segment-created',
  createdBy,
  createdAt: data.createdAt,
  createdByUserId,
  data,
  preData: null,
  tags: [],
  featureName: null,
  project: null,
  environment: null,
  groupType: 'transaction',
  groupId,
})

onEachDatabase('segments', (database) => {
  test('create: 201, a Location that resolves to the segment, the exact echo, and its event', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await post(pennon, {
      name: '  beta users \t',
      description: 'Early adopters',
      constraints: [
        { contextName: 'userId', operator: 'IN', values: ['a', 'b'] },
        { value: '1.2.3', operator: 'SEMVER_GT', contextName: 'appVersion', caseInsensitive: false, inverted: true },
      ],
      ignoredTopLevel: { anything: true },
    })
    assert.equal(created.status, 201)
    assert.equal(created.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(created.headers.location, 'segments/1')
    assert.deepEqual(created.body, {
      id: 1,
      name: 'beta users',
      description: 'Early adopters',
      constraints: [
        { contextName: 'userId', operator: 'IN', values: ['a', 'b'] },
        { contextName: 'appVersion', operator: 'SEMVER_GT', caseInsensitive: false, inverted: true, values: [], value: '1.2.3' },
      ],
      createdBy: 'admin',
      createdAt: created.body.createdAt,
    })
    assert.match(created.body.createdAt, ISO_MS)

    const location = new URL(created.headers.location as string, 'http://localhost/api/admin/segments')
    assert.equal(location.pathname, '/api/admin/segments/1')
    const fetched = await call(pennon, 'GET', location.pathname)
    assert.equal(fetched.status, 200)
    assert.deepEqual(fetched.body, created.body)

    const [event, ...others] = await segmentEvents(pennon)
    assert.deepEqual(others, [])
    assert.deepEqual(
      event,
      segmentCreated({ id: event.id, createdBy: 'admin', createdByUserId: -42, data: created.body, groupId: event.groupId }),
    )
  })

  test('the event is stored byte for byte as the API shows it, whatever text its creator and segment hold', async (t) => {
    const pennon = await useTestApp(t, database)
    // Text that looks like the event's own JSON: ids are spliced into it on PostgreSQL.
    const lookalike = '"data":{"id":0,"id":0}'
    const token = await serviceAccountToken(pennon, 1, `sa ${lookalike}`)
    await post(pennon, { name: 'first', constraints: [] })
    const created = await post(pennon, { name: lookalike, description: lookalike, constraints: [] }, token)
    assert.equal(created.status, 201, created.text)
    assert.equal(created.body.id, 2)
    const { rows } = await sql<{
      id: number
      json: string
    }>`select id, json from events where type = 'segment-created' order by id`.execute(pennon.database.db)
    const last = rows.at(-1)!
    const event = JSON.parse(last.json)
    const data = {
      id: 2,
      name: lookalike,
      description: lookalike,
      constraints: [],
      createdBy: `sa ${lookalike}`,
      createdAt: created.body.createdAt,
    }
    const expected = segmentCreated({
      id: Number(last.id),
      createdBy: `sa ${lookalike}`,
      createdByUserId: event.createdByUserId,
      data,
      groupId: event.groupId,
    })
    assert.equal(last.json, JSON.stringify(expected))
    assert.deepEqual(event.data, created.body)
  })

  test('echo: description null unless given, project only when set ("" and null are global)', async (t) => {
    const pennon = await useTestApp(t, database)
    const scoped = await post(pennon, { name: 'scoped', project: 'default', description: null, constraints: [] })
    assert.equal(scoped.status, 201)
    assert.deepEqual(scoped.body, {
      id: 1,
      name: 'scoped',
      description: null,
      project: 'default',
      constraints: [],
      createdBy: 'admin',
      createdAt: scoped.body.createdAt,
    })
    const emptyProject = await post(pennon, { name: 'empty-project', project: '', description: '', constraints: [] })
    assert.deepEqual(emptyProject.body, {
      id: 2,
      name: 'empty-project',
      description: '',
      constraints: [],
      createdBy: 'admin',
      createdAt: emptyProject.body.createdAt,
    })
    const nullProject = await post(pennon, { name: 'null-project', project: null, constraints: [] })
    assert.deepEqual(nullProject.body, {
      id: 3,
      name: 'null-project',
      description: null,
      constraints: [],
      createdBy: 'admin',
      createdAt: nullProject.body.createdAt,
    })

    const events = await segmentEvents(pennon)
    assert.deepEqual(
      events.map((e) => [e.type, e.project]),
      [
        ['segment-created', 'default'],
        ['segment-created', null],
        ['segment-created', null],
      ],
    )
    assert.deepEqual(
      events.map((e) => e.data),
      [scoped.body, emptyProject.body, nullProject.body],
    )
  })

  test('a segment with every operator is accepted and echoed', async (t) => {
    const pennon = await useTestApp(t, database)
    const constraints = [
      { contextName: 'userId', operator: 'NOT_IN', values: ['x'] },
      { contextName: 'userId', operator: 'IN', values: ['a', 'b'], caseInsensitive: true },
      { contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'] },
      { contextName: 'email', operator: 'STR_STARTS_WITH', values: ['admin'] },
      { contextName: 'email', operator: 'STR_CONTAINS', values: ['+'], inverted: true },
      { contextName: 'score', operator: 'NUM_EQ', value: '42' },
      { contextName: 'score', operator: 'NUM_GT', value: '-1.5' },
      { contextName: 'score', operator: 'NUM_GTE', value: '1e3' },
      { contextName: 'score', operator: 'NUM_LT', value: '.5' },
      { contextName: 'score', operator: 'NUM_LTE', value: '+5' },
      { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-02-29' },
      { contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2030-01-01T12:00:00.000Z' },
      { contextName: 'appVersion', operator: 'SEMVER_EQ', value: '1.2.3' },
      { contextName: 'appVersion', operator: 'SEMVER_GT', value: '1.2.3-beta.1' },
      { contextName: 'appVersion', operator: 'SEMVER_LT', value: '2.0.0+build.7' },
      { contextName: 'appVersion', operator: 'SEMVER_GTE', value: '0.0.1' },
      { contextName: 'appVersion', operator: 'SEMVER_LTE', value: '10.20.30' },
      { contextName: 'userId', operator: 'REGEX', value: '^user-\\d+$', inverted: false },
    ]
    const created = await post(pennon, { name: 'all-operators', constraints })
    assert.equal(created.status, 201)
    assert.deepEqual(
      created.body.constraints,
      constraints.map((c) => ({ values: [], ...c })),
    )
  })

  test('list: sorted by code point, with usage counts; get: 404 for an unknown id, 400 for a non-integer one', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const name of ['beta', 'Zeta', 'alpha', 'Émile']) assert.equal((await post(pennon, { name, constraints: [] })).status, 201)
    const list = await call(pennon, 'GET', '/api/admin/segments')
    assert.equal(list.status, 200)
    assert.deepEqual(
      list.body.segments.map((s: { name: string }) => s.name),
      ['Zeta', 'alpha', 'beta', 'Émile'],
    )
    const [first] = list.body.segments
    assert.deepEqual(first, {
      id: 2,
      name: 'Zeta',
      description: null,
      constraints: [],
      usedInFeatures: 0,
      usedInProjects: 0,
      createdBy: 'admin',
      createdAt: first.createdAt,
    })

    const missing = await call(pennon, 'GET', '/api/admin/segments/999')
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'Segment 999 does not exist.'))
    for (const id of ['abc', '0', '-1', '1.5', '2147483648', '%20']) {
      const bad = await call(pennon, 'GET', `/api/admin/segments/${id}`)
      assert.equal(bad.status, 400, id)
      const message = `The \`/params/id\` property must be an integer from 1 to 2147483647. You sent ${JSON.stringify(decodeURIComponent(id))}.`
      assert.deepEqual(withoutId(bad.body), { name: 'ValidationError', message, details: [{ path: '/params/id', message }] })
    }
  })

  test('PUT replaces the segment, keeps id and creation, writes segment-updated; a no-op PUT writes nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await post(pennon, {
      name: 'before',
      description: 'd',
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }],
    })
    assert.equal((await post(pennon, { name: 'other', constraints: [] })).status, 201)
    const replacement = { name: ' after ', project: 'default', constraints: [{ contextName: 'score', operator: 'NUM_GT', value: '3' }] }

    const updated = await call(pennon, 'PUT', '/api/admin/segments/1', replacement)
    assert.equal(updated.status, 204)
    assert.equal(updated.text, '')
    const after = {
      id: 1,
      name: 'after',
      description: null,
      project: 'default',
      constraints: [{ contextName: 'score', operator: 'NUM_GT', values: [], value: '3' }],
      createdBy: 'admin',
      createdAt: created.body.createdAt,
    }
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/segments/1')).body, after)
    assert.equal((await call(pennon, 'PUT', '/api/admin/segments/1', replacement)).status, 204)

    const events = (await segmentEvents(pennon)).filter((e) => e.type === 'segment-updated')
    assert.equal(events.length, 1, 'the second, identical PUT wrote no event')
    assert.deepEqual([events[0].data, events[0].preData, events[0].project], [after, created.body, 'default'])

    const taken = await call(pennon, 'PUT', '/api/admin/segments/1', { name: 'other', constraints: [] })
    assert.equal(taken.status, 409)
    assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', 'A segment named "other" already exists.'))
    const missing = await call(pennon, 'PUT', '/api/admin/segments/42', { name: 'x', constraints: [] })
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'Segment 42 does not exist.'))
    const invalid = await call(pennon, 'PUT', '/api/admin/segments/1', {
      name: 'x',
      constraints: [{ contextName: 'c', operator: 'REGEX', value: 'a', inverted: true }],
    })
    assert.equal(invalid.status, 400)
    assert.equal(invalid.body.details[0].path, '/body/constraints/0/inverted')
    const badId = await call(pennon, 'PUT', '/api/admin/segments/x', { name: 'x', constraints: [] })
    assert.equal(badId.status, 400)
    assert.equal(badId.body.details[0].path, '/params/id')
  })

  test('DELETE: 204 and segment-deleted, then 404; the count follows deletes', async (t) => {
    const pennon = await useTestApp(t, database, { env: { SEGMENTS_LIMIT: '1' } })
    const created = await post(pennon, { name: 'doomed', project: 'default', constraints: [] })
    const deleted = await call(pennon, 'DELETE', '/api/admin/segments/1')
    assert.equal(deleted.status, 204)
    assert.equal(deleted.text, '')
    const again = await call(pennon, 'DELETE', '/api/admin/segments/1')
    assert.equal(again.status, 404)
    assert.deepEqual(withoutId(again.body), errorOf('NotFoundError', 'Segment 1 does not exist.'))
    assert.equal((await call(pennon, 'DELETE', '/api/admin/segments/abc')).status, 400)

    const [, event] = await segmentEvents(pennon)
    assert.deepEqual([event.type, event.data, event.preData, event.project], ['segment-deleted', null, created.body, 'default'])
    // The limit is 1: the delete (and not the failed one) gave its place back.
    const next = await post(pennon, { name: 'doomed', constraints: [] })
    assert.equal(next.status, 201)
    assert.equal(next.body.id, 2)
  })

  test('permissions: Admin and Editor may write, Viewer may only read, client tokens get nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    const admin = await serviceAccountToken(pennon, 1)
    const editor = await serviceAccountToken(pennon, 2)
    const viewer = await serviceAccountToken(pennon, 3)
    const client = await apiToken(pennon, 'client')

    for (const [token, name] of [
      [admin, 'by-admin'],
      [editor, 'by-editor'],
    ] as const) {
      const created = await post(pennon, { name, constraints: [] }, token)
      assert.equal(created.status, 201)
      assert.match(created.body.createdBy, /^sa-/)
      const id = created.body.id
      assert.equal((await call(pennon, 'PUT', `/api/admin/segments/${id}`, { name: `${name}-2`, constraints: [] }, { token })).status, 204)
      // An unknown or malformed id is a plain 404/400 for every role, never a crash.
      assert.equal((await call(pennon, 'PUT', '/api/admin/segments/999', { name: 'x', constraints: [] }, { token })).status, 404)
      assert.equal((await call(pennon, 'DELETE', '/api/admin/segments/999', undefined, { token })).status, 404)
      assert.equal((await call(pennon, 'DELETE', '/api/admin/segments/abc', undefined, { token })).status, 400)
      assert.equal((await call(pennon, 'DELETE', `/api/admin/segments/${id}`, undefined, { token })).status, 204)
    }
    assert.equal((await post(pennon, { name: 'kept', constraints: [] })).status, 201)

    const refusals = [
      ['POST', '/api/admin/segments', ['CREATE_SEGMENT', 'UPDATE_PROJECT_SEGMENT']],
      ['PUT', '/api/admin/segments/3', ['UPDATE_SEGMENT', 'UPDATE_PROJECT_SEGMENT']],
      ['DELETE', '/api/admin/segments/3', ['DELETE_SEGMENT', 'UPDATE_PROJECT_SEGMENT']],
    ] as const
    for (const token of [viewer, client]) {
      for (const [method, url, permissions] of refusals) {
        const refused = await call(pennon, method, url, method === 'DELETE' ? undefined : { name: 'x', constraints: [] }, { token })
        assert.equal(refused.status, 403, `${method} ${url}`)
        const message = `Missing permission: this operation needs one of ${permissions.map((p) => `"${p}"`).join(', ')}.`
        assert.deepEqual(withoutId(refused.body), errorOf('NoAccessError', message, { permissions }))
      }
    }
    assert.equal((await call(pennon, 'GET', '/api/admin/segments', undefined, { token: viewer })).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/segments/3', undefined, { token: viewer })).status, 200)
    const clientRead = await call(pennon, 'GET', '/api/admin/segments', undefined, { token: client })
    assert.equal(clientRead.status, 403)
    const message =
      'This endpoint needs an admin API token or a service-account token: client and frontend tokens cannot use the admin API.'
    assert.deepEqual(withoutId(clientRead.body), errorOf('NoAccessError', message, { permissions: [] }))
    assert.deepEqual((await segmentEvents(pennon)).map((e) => e.type).filter((type) => type === 'segment-created').length, 3)
  })

  test('the pipeline comes first: 401 without a token, 415 without JSON, nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    const anonymous = await call(pennon, 'POST', '/api/admin/segments', { name: 'x', constraints: 'not even an array' }, { token: null })
    assert.equal(anonymous.status, 401)
    assert.equal(anonymous.body.name, 'AuthenticationRequired')
    const text = await call(pennon, 'POST', '/api/admin/segments', undefined, {
      raw: '{"name":"x","constraints":[]}',
      headers: { 'content-type': 'text/plain' },
    })
    assert.equal(text.status, 415)
    assert.deepEqual(
      withoutId(text.body),
      errorOf('ContentTypeerror', 'The content type "text/plain" is not accepted. Accepted content types: application/json.'),
    )
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/segments')).body, { segments: [] })
  })
})
