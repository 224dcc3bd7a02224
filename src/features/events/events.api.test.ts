import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  apiToken,
  call,
  errorOf,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import { EVENT_KEYS } from '../../../test/helpers/events.ts'
import type { AuditContext } from './audit.ts'
import { appendEvents } from './event-store.ts'
import type { FlagData, NewEvent } from './event-types.ts'

const AUDIT: AuditContext = Object.freeze({
  createdBy: 'alice@example.com',
  createdByUserId: 7,
  createdAt: '2026-01-02T03:04:05.678Z',
  groupType: 'transaction',
  groupId: '4f0f6d4e-5b1e-4d43-9a57-6a4a2b7f3c10',
})

/** Writes events as a service would, in one transaction, without depending on other features. */
async function append(pennon: TestApp, events: NewEvent[]): Promise<void> {
  await pennon.database.db.transaction().execute((trx) => appendEvents(trx, AUDIT, events))
}

const flag = (name: string, project = 'default'): FlagData => ({
  name,
  description: null,
  type: 'release',
  project,
  stale: false,
  createdAt: AUDIT.createdAt,
  impressionData: false,
  archived: false,
})

/** The stored JSON text of every event, newest first, optionally filtered. */
async function storedNewestFirst(pennon: TestApp, where: { project?: string; featureName?: string } = {}): Promise<string[]> {
  let query = pennon.database.db.selectFrom('events').select('json').orderBy('id', 'desc')
  if (where.project !== undefined) query = query.where('project', '=', where.project)
  if (where.featureName !== undefined) query = query.where('feature_name', '=', where.featureName)
  return (await query.execute()).map((row) => row.json)
}

async function getEvents(pennon: TestApp, url: string, token?: string) {
  const response = await call(pennon, 'GET', url, undefined, token === undefined ? {} : { token })
  if (response.status === 200) assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  return response
}

onEachDatabase('events', (database) => {
  test('exact bodies: every key in order, newest first, for all three reads', async (t) => {
    const pennon = await useTestApp(t, database)
    const before = await storedNewestFirst(pennon)
    await append(pennon, [
      { type: 'feature-created', featureName: 'checkout', project: 'default', data: flag('checkout') },
      { type: 'feature-archived', featureName: 'checkout', project: 'default' },
    ])
    const first = before.length + 1
    const created =
      `{"id":${first},"type":"feature-created","createdBy":"alice@example.com","createdAt":"2026-01-02T03:04:05.678Z","createdByUserId":7,` +
      `"data":{"name":"checkout","description":null,"type":"release","project":"default","stale":false,"createdAt":"2026-01-02T03:04:05.678Z","impressionData":false,"archived":false},` +
      `"preData":null,"tags":[],"featureName":"checkout","project":"default","environment":null,"groupType":"transaction","groupId":"4f0f6d4e-5b1e-4d43-9a57-6a4a2b7f3c10"}`
    const archived =
      `{"id":${first + 1},"type":"feature-archived","createdBy":"alice@example.com","createdAt":"2026-01-02T03:04:05.678Z","createdByUserId":7,` +
      `"data":null,"preData":null,"tags":[],"featureName":"checkout","project":"default","environment":null,"groupType":"transaction","groupId":"4f0f6d4e-5b1e-4d43-9a57-6a4a2b7f3c10"}`

    const all = await getEvents(pennon, '/api/admin/events')
    assert.equal(all.status, 200)
    assert.equal(all.text, `{"version":1,"events":[${[archived, created, ...before].join(',')}],"totalEvents":${first + 1}}`)
    assert.deepEqual(Object.keys(all.body.events[0]), EVENT_KEYS)

    const project = await getEvents(pennon, '/api/admin/events?project=default')
    assert.equal(project.status, 200)
    assert.equal(project.text, `{"version":1,"events":[${archived},${created}],"totalEvents":2}`)

    const feature = await getEvents(pennon, '/api/admin/events/checkout')
    assert.equal(feature.status, 200)
    assert.equal(feature.text, `{"version":1,"toggleName":"checkout","events":[${archived},${created}],"totalEvents":2}`)
  })

  test('without a project: the last 100 events, and totalEvents counts them all', async (t) => {
    const pennon = await useTestApp(t, database)
    await append(
      pennon,
      Array.from({ length: 150 }, (_, i) => ({
        type: 'feature-created' as const,
        featureName: `f${i}`,
        project: 'default',
        data: flag(`f${i}`),
      })),
    )
    const stored = await storedNewestFirst(pennon)
    assert.ok(stored.length > 150)

    const response = await getEvents(pennon, '/api/admin/events')
    assert.equal(response.status, 200)
    assert.equal(response.text, `{"version":1,"events":[${stored.slice(0, 100).join(',')}],"totalEvents":${stored.length}}`)
    assert.deepEqual(
      response.body.events.map((e: { id: number }) => e.id),
      Array.from({ length: 100 }, (_, i) => stored.length - i),
    )

    // A change made through the API shows up first, and counts.
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'later', name: 'Later' })).status, 201)
    const after = await getEvents(pennon, '/api/admin/events')
    assert.equal(after.body.totalEvents, stored.length + 1)
    assert.equal(after.body.events.length, 100)
    assert.deepEqual([after.body.events[0].type, after.body.events[0].project], ['project-created', 'later'])
  })

  test('with a project: every event of that project (not capped at 100), newest first', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'big', name: 'Big' })).status, 201)
    // 249 more in "big", interleaved with events of other projects and of no project.
    const events: NewEvent[] = []
    for (let i = 0; i < 249; i++) {
      events.push({ type: 'feature-created', featureName: `b${i}`, project: 'big', data: flag(`b${i}`, 'big') })
      if (i % 3 === 0) events.push({ type: 'feature-archived', featureName: `o${i}`, project: 'other' })
      if (i % 5 === 0) events.push({ type: 'feature-archived', featureName: `n${i}` })
    }
    await append(pennon, events)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'other-2', name: 'Other' })).status, 201)

    const expected = await storedNewestFirst(pennon, { project: 'big' })
    assert.equal(expected.length, 250)
    const response = await getEvents(pennon, '/api/admin/events?project=big')
    assert.equal(response.status, 200)
    assert.equal(response.text, `{"version":1,"events":[${expected.join(',')}],"totalEvents":250}`)
    assert.ok(response.body.events.every((e: { project: string }) => e.project === 'big'))
    assert.deepEqual(response.body.events.at(-1).type, 'project-created')

    // Project ids are case-sensitive, like every name.
    assert.equal((await getEvents(pennon, '/api/admin/events?project=BIG')).text, '{"version":1,"events":[],"totalEvents":0}')
  })

  test("a flag's events: every event with that featureName, whatever its project", async (t) => {
    const pennon = await useTestApp(t, database)
    const events: NewEvent[] = []
    for (let i = 0; i < 120; i++) {
      events.push({ type: 'feature-archived', featureName: 'checkout', project: i % 2 ? 'default' : 'shop' })
      events.push({ type: 'feature-archived', featureName: 'checkout-v2', project: 'default' })
      events.push({ type: 'feature-archived', featureName: 'Checkout', project: 'default' })
    }
    await append(pennon, events)

    const expected = await storedNewestFirst(pennon, { featureName: 'checkout' })
    assert.equal(expected.length, 120)
    const response = await getEvents(pennon, '/api/admin/events/checkout')
    assert.equal(response.status, 200)
    assert.equal(response.text, `{"version":1,"toggleName":"checkout","events":[${expected.join(',')}],"totalEvents":120}`)
  })

  test('empty project is absent; unknown project or flag is empty; a repeated project is a 400', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'alpha', name: 'Alpha' })).status, 201)

    const all = await getEvents(pennon, '/api/admin/events')
    const empty = await getEvents(pennon, '/api/admin/events?project=')
    assert.equal(empty.status, 200)
    assert.equal(empty.text, all.text)
    assert.equal(empty.body.events.length, all.body.totalEvents)

    assert.equal((await getEvents(pennon, '/api/admin/events?project=ghost')).text, '{"version":1,"events":[],"totalEvents":0}')
    const ghost = await getEvents(pennon, '/api/admin/events/ghost')
    assert.equal(ghost.status, 200)
    assert.equal(ghost.text, '{"version":1,"toggleName":"ghost","events":[],"totalEvents":0}')
    // The name is echoed as JSON, escaped like any string.
    const odd = await getEvents(pennon, `/api/admin/events/${encodeURIComponent('we"ird\\name')}`)
    assert.equal(odd.text, '{"version":1,"toggleName":"we\\"ird\\\\name","events":[],"totalEvents":0}')

    const repeated = await getEvents(pennon, '/api/admin/events?project=alpha&project=default')
    assert.equal(repeated.status, 400)
    const message = 'The `/query/project` property must be string. You sent ["alpha","default"].'
    assert.deepEqual(withoutId(repeated.body), { name: 'ValidationError', message, details: [{ path: '/query/project', message }] })

    const slash = await getEvents(pennon, '/api/admin/events/')
    assert.equal(slash.status, 404)
    assert.deepEqual(
      withoutId(slash.body),
      errorOf('NotFoundError', 'The path you were looking for (GET /api/admin/events/) is not available.'),
    )
  })

  test('permissions: /events needs ADMIN; /events/:featureName any admin-API credential', async (t) => {
    const pennon = await useTestApp(t, database)
    const admin = await serviceAccountToken(pennon, 1)
    const editor = await serviceAccountToken(pennon, 2)
    const viewer = await serviceAccountToken(pennon, 3)
    const client = await apiToken(pennon, 'client')
    const frontend = await apiToken(pennon, 'frontend')

    const needsAdmin = errorOf('NoAccessError', 'Missing permission: this operation needs "ADMIN".', { permissions: ['ADMIN'] })
    for (const url of ['/api/admin/events', '/api/admin/events?project=default']) {
      assert.equal((await getEvents(pennon, url)).status, 200)
      assert.equal((await getEvents(pennon, url, admin)).status, 200)
      for (const token of [editor, viewer, client, frontend]) {
        const refused = await getEvents(pennon, url, token)
        assert.equal(refused.status, 403)
        assert.deepEqual(withoutId(refused.body), needsAdmin)
      }
    }

    for (const token of [pennon.adminToken, admin, editor, viewer]) {
      assert.equal(
        (await getEvents(pennon, '/api/admin/events/checkout', token)).text,
        '{"version":1,"toggleName":"checkout","events":[],"totalEvents":0}',
      )
    }
    const adminApiOnly = errorOf(
      'NoAccessError',
      'This endpoint needs an admin API token or a service-account token: client and frontend tokens cannot use the admin API.',
      { permissions: [] },
    )
    for (const token of [client, frontend]) {
      const refused = await getEvents(pennon, '/api/admin/events/checkout', token)
      assert.equal(refused.status, 403)
      assert.deepEqual(withoutId(refused.body), adminApiOnly)
    }

    const anonymous = await call(pennon, 'GET', '/api/admin/events/checkout', undefined, { token: null })
    assert.equal(anonymous.status, 401)
    assert.deepEqual(
      withoutId(anonymous.body),
      errorOf('AuthenticationRequired', 'Authentication required: send an API token in the Authorization header.'),
    )
  })

  test('AUTH_TYPE=none reads without a token', async (t) => {
    const pennon = await useTestApp(t, database, { env: { AUTH_TYPE: 'none' } })
    const response = await call(pennon, 'GET', '/api/admin/events', undefined, { token: null })
    assert.equal(response.status, 200)
    assert.equal(response.body.version, 1)
  })
})
