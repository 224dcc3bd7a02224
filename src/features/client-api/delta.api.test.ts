/**
 * GET /api/client/delta through the real app on each database: the hydration, each kind of event
 * with its exact body, the ETag and 304, a state no longer held (or never seen) answered with a
 * hydration, the scope (token projects, filters), the tokens it takes, and the `fetch-mode` hint.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import {
  allEvents,
  apiToken,
  call,
  errorOf,
  onEachDatabase,
  useTestApp,
  withoutId,
  type ApiResponse,
  type TestApp,
} from '../../../test/test-app.ts'
import { archive, createFlag, createProject } from '../../../test/helpers/flags.ts'
import { addStrategy, strategiesPath, toggle } from '../../../test/helpers/strategies.ts'
import { flag, rolloutOf } from '../../../test/helpers/client.ts'
import { ETAG, JSON_TYPE } from '../../../test/helpers/frontend.ts'

const DELTA = '/api/client/delta'

const withSegments = (...segments: number[]) => ({ name: 'default', constraints: [], parameters: {}, variants: [], segments })
const inCountry = (...values: string[]) => ({ contextName: 'country', operator: 'IN', values })

async function scopedToken(pennon: TestApp, projects: string[]): Promise<string> {
  const response = await call(pennon, 'POST', '/api/admin/api-tokens', {
    tokenName: `client-${randomBytes(4).toString('hex')}`,
    type: 'client',
    projects,
  })
  assert.equal(response.status, 201, response.text)
  return response.body.secret
}

async function createSegment(pennon: TestApp, name: string, constraints: unknown[]): Promise<number> {
  const response = await call(pennon, 'POST', '/api/admin/segments', { name, constraints })
  assert.equal(response.status, 201, response.text)
  return response.body.id
}

/** A segment as SDKs are sent it. */
async function segmentOf(pennon: TestApp, id: number): Promise<unknown> {
  const response = await call(pennon, 'GET', `/api/admin/segments/${id}`)
  return { id, name: response.body.name, constraints: response.body.constraints }
}

const latestEventId = async (pennon: TestApp) => (await allEvents(pennon)).at(-1).id as number

/** A 200 answer: JSON with a strong ETag, `{ events }` only; returns the events and the ETag. */
function deltaOf(response: ApiResponse): { events: any[]; etag: string } {
  assert.equal(response.status, 200, response.text)
  assert.equal(response.headers['content-type'], JSON_TYPE)
  assert.match(response.headers.etag as string, ETAG)
  assert.deepEqual(Object.keys(response.body), ['events'])
  return { events: response.body.events, etag: response.headers.etag as string }
}

const poll = (pennon: TestApp, token: string, etag?: string, query = '') =>
  call(pennon, 'GET', `${DELTA}${query}`, undefined, { token, headers: etag === undefined ? {} : { 'if-none-match': etag } })

function assertNotModified(response: ApiResponse, etag: string): void {
  assert.equal(response.status, 304, response.text)
  assert.equal(response.headers.etag, etag)
  assert.equal(response.text, '')
}

onEachDatabase('client API: delta', (database) => {
  test('a hydration first (every flag the token reads, the segments they use); its ETag answers 304 until something changes', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    const empty = deltaOf(await poll(pennon, client))
    assert.deepEqual(empty.events, [{ eventId: await latestEventId(pennon), type: 'hydration', features: [], segments: [] }])

    const nordic = await createSegment(pennon, 'nordic', [inCountry('NO', 'SE')])
    await createSegment(pennon, 'unused', [inCountry('FI')])
    await createFlag(pennon, 'checkout', 'default', { description: 'Pay with one click' })
    await createFlag(pennon, 'banner')
    await addStrategy(pennon, 'checkout', 'development', { name: 'default', segments: [nordic] })
    assert.equal((await toggle(pennon, 'banner', 'development', 'on')).status, 200)

    const hydration = deltaOf(await poll(pennon, client))
    assert.notEqual(hydration.etag, empty.etag)
    assert.deepEqual(hydration.events, [
      {
        eventId: await latestEventId(pennon),
        type: 'hydration',
        features: [
          flag('banner', { enabled: true, strategies: [rolloutOf('banner')] }),
          flag('checkout', { description: 'Pay with one click', strategies: [withSegments(nordic)] }),
        ],
        segments: [await segmentOf(pennon, nordic)],
      },
    ])
    assertNotModified(await poll(pennon, client, hydration.etag), hydration.etag)
    // Weak or in a list, as HTTP allows.
    assertNotModified(await poll(pennon, client, `W/${hydration.etag}, "other"`), hydration.etag)
    // The same state is named alike whoever asks: another token of the same scope.
    assertNotModified(await poll(pennon, await apiToken(pennon, 'client', 'another'), hydration.etag), hydration.etag)
  })

  test('feature-updated and feature-removed: the events since the state the ETag names, with the latest event id', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    for (const name of ['a', 'b', 'c']) await createFlag(pennon, name)
    const start = deltaOf(await poll(pennon, client))

    assert.equal((await toggle(pennon, 'a', 'development', 'on')).status, 200)
    const updated = deltaOf(await poll(pennon, client, start.etag))
    assert.deepEqual(updated.events, [
      {
        eventId: await latestEventId(pennon),
        type: 'feature-updated',
        feature: flag('a', { enabled: true, strategies: [rolloutOf('a')] }),
      },
    ])
    assertNotModified(await poll(pennon, client, updated.etag), updated.etag)

    assert.equal((await archive(pennon, ['b'])).status, 202)
    const removedAt = await latestEventId(pennon)
    await createFlag(pennon, 'd')
    const removed = deltaOf(await poll(pennon, client, updated.etag))
    assert.deepEqual(removed.events, [
      { eventId: await latestEventId(pennon), type: 'feature-updated', feature: flag('d') },
      { eventId: await latestEventId(pennon), type: 'feature-removed', featureName: 'b', project: 'default' },
    ])
    assert.ok(removedAt < (await latestEventId(pennon)))

    // From the first state: everything since, each flag once (its latest event).
    assert.equal((await toggle(pennon, 'a', 'development', 'off')).status, 200)
    const since = deltaOf(await poll(pennon, client, start.etag))
    const now = await latestEventId(pennon)
    assert.equal(since.events.length, 3)
    assert.deepEqual(
      new Set(since.events.map((event) => JSON.stringify(event))),
      new Set([
        JSON.stringify({ eventId: now, type: 'feature-updated', feature: flag('a', { strategies: [rolloutOf('a')] }) }),
        JSON.stringify({ eventId: removed.events[0].eventId, type: 'feature-updated', feature: flag('d') }),
        JSON.stringify({ eventId: removed.events[0].eventId, type: 'feature-removed', featureName: 'b', project: 'default' }),
      ]),
    )
  })

  test('segment-updated before the flags that use it; segment-removed once no flag the token reads uses it', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'gated')
    const nordic = await createSegment(pennon, 'nordic', [inCountry('NO')])
    const start = deltaOf(await poll(pennon, client))
    assert.deepEqual(start.events[0].segments, [])

    const strategy = await addStrategy(pennon, 'gated', 'development', { name: 'default', segments: [nordic] })
    const used = deltaOf(await poll(pennon, client, start.etag))
    const eventId = await latestEventId(pennon)
    assert.deepEqual(used.events, [
      { eventId, type: 'segment-updated', segment: await segmentOf(pennon, nordic) },
      { eventId, type: 'feature-updated', feature: flag('gated', { strategies: [withSegments(nordic)] }) },
    ])

    const changed = await call(pennon, 'PUT', `/api/admin/segments/${nordic}`, { name: 'nordic', constraints: [inCountry('NO', 'DK')] })
    assert.equal(changed.status, 204, changed.text)
    const segmentOnly = deltaOf(await poll(pennon, client, used.etag))
    assert.deepEqual(segmentOnly.events, [
      {
        eventId: await latestEventId(pennon),
        type: 'segment-updated',
        segment: { id: nordic, name: 'nordic', constraints: [inCountry('NO', 'DK')] },
      },
    ])

    const removed = await call(pennon, 'DELETE', `${strategiesPath('gated', 'development')}/${strategy.id}`)
    assert.equal(removed.status, 200, removed.text)
    const unused = deltaOf(await poll(pennon, client, segmentOnly.etag))
    const last = await latestEventId(pennon)
    assert.deepEqual(unused.events, [
      { eventId: last, type: 'feature-updated', feature: flag('gated') },
      { eventId: last, type: 'segment-removed', segmentId: nordic },
    ])
  })

  test('a state this instance does not hold (never seen, or older than DELTA_HISTORY_REVISIONS steps) is answered with a hydration', async (t) => {
    const pennon = await useTestApp(t, database, { env: { DELTA_HISTORY_REVISIONS: '1' } })
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'a')
    const first = deltaOf(await poll(pennon, client))
    const hydrationOf = async () => [
      {
        eventId: await latestEventId(pennon),
        type: 'hydration',
        features: [flag('a', { enabled: true, strategies: [rolloutOf('a')] })],
        segments: [],
      },
    ]

    assert.equal((await toggle(pennon, 'a', 'development', 'on')).status, 200)
    const second = deltaOf(await poll(pennon, client, first.etag))
    assert.equal(second.events[0].type, 'feature-updated')
    const unknown = deltaOf(await poll(pennon, client, '"AAAAAAAAAAAAAAAAAAAAAAAAAAA"'))
    assert.deepEqual(unknown.events, await hydrationOf())
    assert.equal(unknown.etag, second.etag)

    // One more step: the one from the first state is no longer held.
    await createFlag(pennon, 'b')
    const third = deltaOf(await poll(pennon, client, second.etag))
    assert.deepEqual(
      third.events.map((event) => event.type),
      ['feature-updated'],
    )
    const stale = deltaOf(await poll(pennon, client, first.etag))
    assert.deepEqual(stale.events, [
      { ...(await hydrationOf())[0], features: [flag('a', { enabled: true, strategies: [rolloutOf('a')] }), flag('b')] },
    ])
    assert.equal(stale.etag, third.etag)
  })

  test("scoped as /api/client/features: the token's projects, project, namePrefix and tag filters; a change elsewhere is a 304", async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    await createFlag(pennon, 'web-banner')
    await createFlag(pennon, 'api-limit')
    await createFlag(pennon, 'shop-cart', 'shop')
    const shop = await scopedToken(pennon, ['shop'])
    const client = await apiToken(pennon, 'client')

    const shopStart = deltaOf(await poll(pennon, shop))
    assert.deepEqual(shopStart.events[0].features, [flag('shop-cart', { project: 'shop' })])
    const webStart = deltaOf(await poll(pennon, client, undefined, '?namePrefix=web-'))
    assert.deepEqual(webStart.events[0].features, [flag('web-banner')])
    const projectStart = deltaOf(await poll(pennon, client, undefined, '?project=shop'))
    assert.deepEqual(projectStart.events[0].features, shopStart.events[0].features)
    const tagType = await call(pennon, 'POST', '/api/admin/tag-types', { name: 'team' })
    assert.equal(tagType.status, 201, tagType.text)
    const tagged = await call(pennon, 'POST', '/api/admin/features/api-limit/tags', { type: 'team', value: 'core' })
    assert.equal(tagged.status, 201, tagged.text)
    const tagStart = deltaOf(await poll(pennon, client, undefined, '?tag=team:core'))
    assert.deepEqual(tagStart.events[0].features, [flag('api-limit')])

    assert.equal((await toggle(pennon, 'web-banner', 'development', 'on')).status, 200)
    assertNotModified(await poll(pennon, shop, shopStart.etag), shopStart.etag)
    assertNotModified(await poll(pennon, client, projectStart.etag, '?project=shop'), projectStart.etag)
    assertNotModified(await poll(pennon, client, tagStart.etag, '?tag=team:core'), tagStart.etag)
    assert.deepEqual(
      deltaOf(await poll(pennon, client, webStart.etag, '?namePrefix=web-')).events.map((event) => [event.type, event.feature.name]),
      [['feature-updated', 'web-banner']],
    )

    // A flag that leaves the tag filter is removed from that scope.
    const untagged = await call(pennon, 'DELETE', '/api/admin/features/api-limit/tags/team/core')
    assert.equal(untagged.status, 200, untagged.text)
    assert.deepEqual(deltaOf(await poll(pennon, client, tagStart.etag, '?tag=team:core')).events, [
      { eventId: await latestEventId(pennon), type: 'feature-removed', featureName: 'api-limit', project: 'default' },
    ])
    // A project token never names another project's flags.
    assert.equal((await archive(pennon, ['api-limit'])).status, 202)
    assertNotModified(await poll(pennon, shop, shopStart.etag), shopStart.etag)
  })

  test('client and admin tokens only; no token is a 401', async (t) => {
    const pennon = await useTestApp(t, database)
    const frontend = await apiToken(pennon, 'frontend')
    const refused = await poll(pennon, frontend)
    assert.equal(refused.status, 403)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('NoAccessError', 'This endpoint needs a client (backend) or admin API token.', { permissions: ['CLIENT'] }),
    )
    const anonymous = await call(pennon, 'GET', DELTA, undefined, { token: null })
    assert.equal(anonymous.status, 401)
    assert.equal(deltaOf(await poll(pennon, pennon.adminToken, undefined, '?environment=production')).events[0].type, 'hydration')
  })

  test('fetch-mode: streaming on /features and /delta (200 and 304) only when CLIENT_FETCH_MODE=streaming', async (t) => {
    const quiet = await useTestApp(t, database)
    const quietToken = await apiToken(quiet, 'client')
    assert.equal((await poll(quiet, quietToken)).headers['fetch-mode'], undefined)
    assert.equal((await call(quiet, 'GET', '/api/client/features', undefined, { token: quietToken })).headers['fetch-mode'], undefined)

    const pennon = await useTestApp(t, database, { env: { CLIENT_FETCH_MODE: 'streaming' } })
    const client = await apiToken(pennon, 'client')
    const first = await poll(pennon, client)
    assert.equal(first.headers['fetch-mode'], 'streaming')
    assert.equal((await poll(pennon, client, first.headers.etag as string)).headers['fetch-mode'], 'streaming')
    const features = await call(pennon, 'GET', '/api/client/features', undefined, { token: client })
    assert.equal(features.headers['fetch-mode'], 'streaming')
    const again = await call(pennon, 'GET', '/api/client/features', undefined, {
      token: client,
      headers: { 'if-none-match': features.headers.etag as string },
    })
    assert.equal(again.status, 304)
    assert.equal(again.headers['fetch-mode'], 'streaming')
  })
})
