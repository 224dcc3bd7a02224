/**
 * GET /api/client/features (and one flag): what server SDKs poll, through the real app on each
 * database — the answer's exact shape, the token's scope, segments apart or inlined, the filters,
 * the ETag, and how fast a change shows (this instance at once, another one through the change watch).
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import {
  apiToken,
  call,
  errorOf,
  eventually,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  useTwoInstances,
  withoutId,
  type ApiResponse,
  type TestApp,
} from '../../../test/test-app.ts'
import { addDependency, archive, createFlag, createProject, depend, projectPath } from '../../../test/helpers/flags.ts'
import { addStrategy, placePath, strategiesPath, toggle } from '../../../test/helpers/strategies.ts'
import { flag, rolloutOf } from '../../../test/helpers/client.ts'

const FEATURES = '/api/client/features'
const JSON_TYPE = 'application/json; charset=utf-8'
/** What every current SDK sends: segments apart. */
const APART = { 'unleash-client-spec': '4.2.0' }
const ETAG = /^"[A-Za-z0-9_-]{27}"$/

/** A client (or other) API token of the given scope. */
async function scopedToken(
  pennon: TestApp,
  type: 'client' | 'backend' | 'frontend',
  environment?: string,
  projects?: string[],
): Promise<string> {
  const body = {
    tokenName: `${type}-${randomBytes(4).toString('hex')}`,
    type,
    ...(environment === undefined ? {} : { environment }),
    ...(projects === undefined ? {} : { projects }),
  }
  const response = await call(pennon, 'POST', '/api/admin/api-tokens', body)
  assert.equal(response.status, 201, response.text)
  return response.body.secret
}

interface Answer {
  /** The body without `meta`, to compare exactly. */
  body: any
  etag: string
  meta: { revisionId: number; etag: string; queryHash: string }
}

/** Checks a 200 answer of GET /api/client/features: JSON, keys in order, a strong ETag that `meta` repeats. */
function answerOf(response: ApiResponse): Answer {
  assert.equal(response.status, 200, response.text)
  assert.equal(response.headers['content-type'], JSON_TYPE)
  const etag = response.headers.etag as string
  assert.match(etag, ETAG)
  const { meta, ...body } = response.body
  const keys = body.segments === undefined ? ['version', 'features', 'query', 'meta'] : ['version', 'features', 'query', 'segments', 'meta']
  assert.deepEqual(Object.keys(response.body), keys)
  assert.deepEqual(Object.keys(meta), ['revisionId', 'etag', 'queryHash'])
  assert.equal(meta.etag, etag)
  assert.ok(Number.isInteger(meta.revisionId) && meta.revisionId >= 0, `revisionId ${meta.revisionId}`)
  assert.match(meta.queryHash, /^[A-Za-z0-9_-]{27}$/)
  return { body, etag, meta }
}

async function read(
  pennon: Pick<TestApp, 'app' | 'adminToken'>,
  token: string,
  query = '',
  headers: Record<string, string> = {},
): Promise<Answer> {
  return answerOf(await call(pennon, 'GET', `${FEATURES}${query}`, undefined, { token, headers }))
}

const query = (fields: Record<string, unknown> = {}) => ({ environment: 'development', inlineSegmentConstraints: true, ...fields })

async function createSegment(pennon: TestApp, name: string, constraints: unknown[], project?: string): Promise<number> {
  const response = await call(pennon, 'POST', '/api/admin/segments', { name, constraints, ...(project === undefined ? {} : { project }) })
  assert.equal(response.status, 201, response.text)
  return response.body.id
}

const inCountry = (...values: string[]) => ({ contextName: 'country', operator: 'IN', values })

onEachDatabase('client API', (database) => {
  test('the answer: version 2, every active flag by code point, in the reference shape; enabled strategies only, in order; ETag = meta.etag', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    const empty = await read(pennon, client)
    assert.deepEqual(empty.body, { version: 2, features: [], query: query() })

    await createFlag(pennon, 'checkout', 'default', { type: 'experiment', description: 'Pay with one click', impressionData: true })
    for (const name of ['alpha', 'alpha-child', 'Zeta', 'gone']) await createFlag(pennon, name)
    const rollout = await addStrategy(pennon, 'checkout', 'development', {
      name: 'flexibleRollout',
      title: 'Half of Nordic users',
      sortOrder: 1,
      parameters: { rollout: 50, stickiness: 'userId', groupId: 'pay' },
      constraints: [
        inCountry('NO', 'SE'),
        { contextName: 'age', operator: 'NUM_GTE', value: '18', caseInsensitive: false, inverted: true },
      ],
      variants: [
        { name: 'blue', payload: { type: 'json', value: '{"x":1}' } },
        { name: 'red', weightType: 'fix', weight: 200, stickiness: 'userId' },
      ],
    })
    await addStrategy(pennon, 'checkout', 'development', { name: 'default', sortOrder: 0, disabled: true })
    await addStrategy(pennon, 'checkout', 'development', { name: 'userWithId', sortOrder: -1, parameters: { userIds: 'ann,bob' } })
    await addStrategy(pennon, 'checkout', 'production', { name: 'remoteAddress', parameters: { IPs: '10.0.0.1' } })
    assert.equal((await toggle(pennon, 'checkout', 'development', 'on')).status, 200)
    const variants = await call(pennon, 'PUT', `${placePath('checkout', 'development')}/variants`, [
      { name: 'red', payload: { type: 'string', value: 'r' }, overrides: [{ contextName: 'userId', values: ['u1'] }] },
      { name: 'green', stickiness: 'sessionId' },
    ])
    assert.equal(variants.status, 200, variants.text)
    assert.equal((await toggle(pennon, 'alpha', 'development', 'on')).status, 200)
    assert.equal((await addDependency(pennon, 'alpha-child', { feature: 'alpha', variants: ['one', 'two'] })).status, 200)
    assert.equal((await addDependency(pennon, 'Zeta', { feature: 'checkout', enabled: false })).status, 200)
    assert.equal((await archive(pennon, ['gone'])).status, 202)
    // No API marks a flag stale: by hand, as an operator would.
    await pennon.database.db.updateTable('features').set({ stale: true }).where('name', '=', 'alpha').execute()

    const response = await call(pennon, 'GET', FEATURES, undefined, { token: client })
    const { body, meta } = answerOf(response)
    assert.deepEqual(body, {
      version: 2,
      features: [
        flag('Zeta', { dependencies: [{ feature: 'checkout', enabled: false }] }),
        flag('alpha', { enabled: true, stale: true, strategies: [rolloutOf('alpha')] }),
        flag('alpha-child', { dependencies: [{ feature: 'alpha', enabled: true, variants: ['one', 'two'] }] }),
        flag('checkout', {
          type: 'experiment',
          enabled: true,
          description: 'Pay with one click',
          impressionData: true,
          // No id, title, sortOrder or disabled; the disabled strategy is left out; evaluation order.
          strategies: [
            { name: 'userWithId', constraints: [], parameters: { userIds: 'ann,bob' }, variants: [] },
            {
              name: 'flexibleRollout',
              constraints: rollout.constraints,
              parameters: { rollout: '50', stickiness: 'userId', groupId: 'pay' },
              variants: [
                { name: 'blue', weight: 800, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"x":1}' } },
                { name: 'red', weight: 200, weightType: 'fix', stickiness: 'userId' },
              ],
            },
          ],
          variants: [
            // Stored and served sorted by name, as the reference does (sent: red, then green).
            { name: 'green', weight: 500, weightType: 'variable', stickiness: 'sessionId', overrides: [] },
            {
              name: 'red',
              weight: 500,
              weightType: 'variable',
              stickiness: 'default',
              payload: { type: 'string', value: 'r' },
              overrides: [{ contextName: 'userId', values: ['u1'] }],
            },
          ],
        }),
      ],
      query: query(),
    })
    assert.deepEqual(rollout.constraints, [
      inCountry('NO', 'SE'),
      { contextName: 'age', operator: 'NUM_GTE', value: '18', values: [], caseInsensitive: false, inverted: true },
    ])
    // Keys in the reference's order.
    assert.deepEqual(Object.keys(response.body.features[0]), [
      'name',
      'type',
      'enabled',
      'project',
      'stale',
      'strategies',
      'variants',
      'description',
      'impressionData',
      'dependencies',
    ])
    assert.deepEqual(Object.keys(response.body.features[3].strategies[1]), ['name', 'constraints', 'parameters', 'variants'])
    // revisionId: the latest event when the flags were read.
    const latest = await pennon.database.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirstOrThrow()
    assert.equal(meta.revisionId, Number(latest.id))
    // The ETag follows the content.
    assert.notEqual(meta.etag, empty.etag)
    assert.notEqual(meta.queryHash, (await read(pennon, client, '?namePrefix=a')).meta.queryHash)
    assert.equal(meta.queryHash, empty.meta.queryHash)

    // The production token sees the production strategy, and checkout off there.
    const production = await read(pennon, await scopedToken(pennon, 'client', 'production'))
    assert.deepEqual(
      production.body.features.find((f: { name: string }) => f.name === 'checkout'),
      flag('checkout', {
        type: 'experiment',
        description: 'Pay with one click',
        impressionData: true,
        strategies: [{ name: 'remoteAddress', constraints: [], parameters: { IPs: '10.0.0.1' }, variants: [] }],
      }),
    )
    assert.deepEqual(production.body.query, query({ environment: 'production' }))
  })

  test('segments: apart (ids in strategies, each used segment once, by name) for Unleash-Client-Spec 4.2.0 or later; inlined otherwise, or with inlineSegmentConstraints=true', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    const zeta = await createSegment(pennon, 'zeta', [inCountry('NO')])
    const alpha = await createSegment(pennon, 'alpha', [
      { contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['pro'], caseInsensitive: true },
      inCountry('SE', 'DK'),
    ])
    const unused = await createSegment(pennon, 'unused', [inCountry('FI')])
    const archivedOnly = await createSegment(pennon, 'archived only', [inCountry('IS')])
    const disabledOnly = await createSegment(pennon, 'disabled only', [inCountry('EE')])
    const productionOnly = await createSegment(pennon, 'production only', [inCountry('LV')])
    const shopOnly = await createSegment(pennon, 'shop only', [inCountry('LT')], 'shop')
    assert.deepEqual([zeta, alpha, unused, archivedOnly, disabledOnly, productionOnly, shopOnly], [1, 2, 3, 4, 5, 6, 7])

    for (const name of ['both', 'own', 'plain', 'old']) await createFlag(pennon, name)
    await createFlag(pennon, 'shop-flag', 'shop')
    const own = inCountry('US')
    await addStrategy(pennon, 'both', 'development', { name: 'default', segments: [zeta, alpha] })
    await addStrategy(pennon, 'both', 'development', { name: 'default', segments: [disabledOnly], disabled: true })
    await addStrategy(pennon, 'both', 'production', { name: 'default', segments: [productionOnly] })
    await addStrategy(pennon, 'own', 'development', { name: 'default', constraints: [own], segments: [alpha] })
    await addStrategy(pennon, 'own', 'development', { name: 'userWithId', parameters: { userIds: 'x' } })
    await addStrategy(pennon, 'old', 'development', { name: 'default', segments: [archivedOnly] })
    await addStrategy(pennon, 'shop-flag', 'development', { name: 'default', segments: [shopOnly] }, 'shop')
    assert.equal((await archive(pennon, ['old'])).status, 202)

    const segmentOf = async (id: number) => {
      const response = await call(pennon, 'GET', `/api/admin/segments/${id}`)
      return { id, name: response.body.name, constraints: response.body.constraints }
    }
    const userWithId = { name: 'userWithId', constraints: [], parameters: { userIds: 'x' }, variants: [] }
    const defaultWith = (constraints: unknown[], segments?: number[]) => ({
      name: 'default',
      constraints,
      parameters: {},
      variants: [],
      ...(segments ? { segments } : {}),
    })

    const client = await apiToken(pennon, 'client')
    const apartFeatures = [
      flag('both', { strategies: [defaultWith([], [zeta, alpha])] }),
      flag('own', { strategies: [defaultWith([own], [alpha]), userWithId] }),
      flag('plain'),
      flag('shop-flag', { project: 'shop', strategies: [defaultWith([], [shopOnly])] }),
    ]
    // Only the segments these flags use, each once, by name.
    const apart = {
      version: 2,
      features: apartFeatures,
      query: query({ inlineSegmentConstraints: false }),
      segments: [await segmentOf(alpha), await segmentOf(shopOnly), await segmentOf(zeta)],
    }
    const [alphaConstraints, zetaConstraints] = [(await segmentOf(alpha)).constraints, (await segmentOf(zeta)).constraints]
    // The strategy's constraints first, then its segments' (by id).
    const inlined = {
      version: 2,
      features: [
        flag('both', { strategies: [defaultWith([...zetaConstraints, ...alphaConstraints])] }),
        flag('own', { strategies: [defaultWith([own, ...alphaConstraints]), userWithId] }),
        flag('plain'),
        flag('shop-flag', { project: 'shop', strategies: [defaultWith([inCountry('LT')])] }),
      ],
      query: query(),
    }
    assert.deepEqual(alphaConstraints, [
      { contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['pro'], caseInsensitive: true },
      inCountry('SE', 'DK'),
    ])

    for (const spec of ['4.2.0', '4.10.0', '5.0.0', '4.3.1'])
      assert.deepEqual((await read(pennon, client, '', { 'unleash-client-spec': spec })).body, apart, spec)
    for (const spec of [undefined, '4.1.9', '3.9.0', '', 'next']) {
      assert.deepEqual(
        (await read(pennon, client, '', spec === undefined ? {} : { 'unleash-client-spec': spec })).body,
        inlined,
        String(spec),
      )
    }
    assert.deepEqual((await read(pennon, client, '?inlineSegmentConstraints=true', APART)).body, inlined)
    assert.deepEqual((await read(pennon, client, '?inlineSegmentConstraints=false', APART)).body, apart)
    assert.deepEqual((await read(pennon, client, '?inlineSegmentConstraints=false')).body, inlined)
    const notBoolean = await call(pennon, 'GET', `${FEATURES}?inlineSegmentConstraints=yes`, undefined, { token: client })
    assert.equal(notBoolean.status, 400)
    const message = 'The `/query/inlineSegmentConstraints` property must be one of "true", "false". You sent "yes".'
    assert.deepEqual(withoutId(notBoolean.body), {
      name: 'ValidationError',
      message,
      details: [{ path: '/query/inlineSegmentConstraints', message }],
    })

    // A token of project default does not see the shop segment.
    const defaultOnly = await read(pennon, await scopedToken(pennon, 'client', 'development', ['default']), '', APART)
    assert.deepEqual(
      defaultOnly.body.segments.map((s: { name: string }) => s.name),
      ['alpha', 'zeta'],
    )
    const production = await read(pennon, await scopedToken(pennon, 'client', 'production'), '', APART)
    assert.deepEqual(production.body.segments, [await segmentOf(productionOnly)])
    assert.deepEqual((await read(pennon, client, '?namePrefix=plain', APART)).body.segments, [])

    // One flag, in the form the header asks for.
    assert.deepEqual((await call(pennon, 'GET', `${FEATURES}/own`, undefined, { token: client, headers: APART })).body, apartFeatures[1])
    assert.deepEqual((await call(pennon, 'GET', `${FEATURES}/own`, undefined, { token: client })).body, inlined.features[1])
  })

  test("scope: a client token reads its environment and projects; enabled is the flag's switch there, false where its project lacks that environment", async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    await createProject(pennon, 'other')
    assert.equal((await call(pennon, 'POST', '/api/admin/environments', { name: 'staging', type: 'test' })).status, 201)
    assert.equal((await call(pennon, 'POST', `${projectPath('shop')}/environments`, { environment: 'staging' })).status, 200)
    await createFlag(pennon, 'basket', 'shop')
    await createFlag(pennon, 'report', 'other')
    await createFlag(pennon, 'home')
    for (const [name, project] of [
      ['basket', 'shop'],
      ['report', 'other'],
      ['home', 'default'],
    ] as const) {
      for (const environment of ['development', 'production'])
        assert.equal((await toggle(pennon, name, environment, 'on', project)).status, 200)
    }
    assert.equal((await toggle(pennon, 'basket', 'staging', 'on', 'shop')).status, 200)

    const on = (name: string, project: string) => flag(name, { project, enabled: true, strategies: [rolloutOf(name)] })
    // Staging: basket on; report is listed, off, as its project lacks staging; home is not its project.
    for (const type of ['client', 'backend'] as const) {
      const staging = await scopedToken(pennon, type, 'staging', ['shop', 'other'])
      assert.deepEqual((await read(pennon, staging)).body, {
        version: 2,
        features: [on('basket', 'shop'), flag('report', { project: 'other' })],
        query: query({ environment: 'staging' }),
      })
      // A client token always reads its own environment.
      assert.deepEqual((await read(pennon, staging, '?environment=production')).body.query, query({ environment: 'staging' }))
      assert.deepEqual((await read(pennon, staging, '?environment=production')).body.features[1], flag('report', { project: 'other' }))
    }
    const everything = await scopedToken(pennon, 'client', 'production', ['*'])
    assert.deepEqual((await read(pennon, everything)).body.features, [on('basket', 'shop'), on('home', 'default'), on('report', 'other')])
    const oneProject = await scopedToken(pennon, 'client', 'production', ['other'])
    assert.deepEqual((await read(pennon, oneProject)).body.features, [on('report', 'other')])

    // The switch of that environment, not another's.
    assert.equal((await toggle(pennon, 'report', 'development', 'off', 'other')).status, 200)
    assert.deepEqual((await read(pennon, oneProject)).body.features, [on('report', 'other')])
    assert.equal((await toggle(pennon, 'report', 'production', 'off', 'other')).status, 200)
    assert.deepEqual((await read(pennon, oneProject)).body.features, [
      flag('report', { project: 'other', strategies: [rolloutOf('report')] }),
    ])
  })

  test("filters: project (repeatable, within the token's), namePrefix, tag (repeatable: any of them); each echoed in query; a malformed tag is a 400", async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    await createProject(pennon, 'other')
    for (const name of ['pay-card', 'pay-cash', 'Pay-upper', 'home']) await createFlag(pennon, name)
    for (const name of ['pay-shop', 'shop-home']) await createFlag(pennon, name, 'shop')
    await createFlag(pennon, 'pay-other', 'other')
    const names = (answer: Answer) => answer.body.features.map((f: { name: string }) => f.name)
    const client = await apiToken(pennon, 'client')

    const shop = await read(pennon, client, '?project=shop')
    assert.deepEqual(names(shop), ['pay-shop', 'shop-home'])
    assert.deepEqual(shop.body.query, query({ project: ['shop'] }))
    const two = await read(pennon, client, '?project=shop&project=other')
    assert.deepEqual(names(two), ['pay-other', 'pay-shop', 'shop-home'])
    assert.deepEqual(two.body.query, query({ project: ['shop', 'other'] }))
    assert.deepEqual(names(await read(pennon, client, '?project=ghost')), [])

    // namePrefix is case-sensitive and literal.
    const prefixed = await read(pennon, client, '?namePrefix=pay-')
    assert.deepEqual(names(prefixed), ['pay-card', 'pay-cash', 'pay-other', 'pay-shop'])
    assert.deepEqual(prefixed.body.query, query({ namePrefix: 'pay-' }))
    assert.deepEqual(names(await read(pennon, client, '?namePrefix=pay-c&project=default')), ['pay-card', 'pay-cash'])
    assert.deepEqual(names(await read(pennon, client, '?namePrefix=pay%25')), [])
    const emptyPrefix = await read(pennon, client, '?namePrefix=')
    assert.equal(names(emptyPrefix).length, 7)
    assert.deepEqual(emptyPrefix.body.query, query({ namePrefix: '' }))

    // Within the token's projects: asking for another one gives nothing.
    const shopToken = await scopedToken(pennon, 'client', 'development', ['shop', 'other'])
    assert.deepEqual(names(await read(pennon, shopToken, '?project=shop&project=default')), ['pay-shop', 'shop-home'])
    assert.deepEqual(names(await read(pennon, shopToken, '?project=default')), [])
    assert.deepEqual(names(await read(pennon, shopToken, '?namePrefix=pay')), ['pay-other', 'pay-shop'])

    // Tags: flags with any of them (the other filters apply too); a value may hold colons.
    assert.equal((await call(pennon, 'POST', '/api/admin/tag-types', { name: 'team' })).status, 201)
    for (const [feature, type, value] of [
      ['pay-card', 'simple', 'beta'],
      ['pay-cash', 'team', 'a:b'],
      ['pay-other', 'simple', 'beta'],
      ['home', 'team', 'a:b'],
      ['pay-shop', 'simple', 'alpha'],
    ]) {
      assert.equal((await call(pennon, 'POST', `/api/admin/features/${feature}/tags`, { type, value })).status, 201)
    }
    const tagged = await read(pennon, client, '?tag=simple:beta&tag=team:a:b&namePrefix=pay&project=default')
    assert.deepEqual(tagged.body, {
      version: 2,
      features: [flag('pay-card'), flag('pay-cash')],
      query: query({
        tag: [
          ['simple', 'beta'],
          ['team', 'a:b'],
        ],
        project: ['default'],
        namePrefix: 'pay',
      }),
    })
    assert.deepEqual(names(await read(pennon, client, '?tag=simple:beta')), ['pay-card', 'pay-other'])
    assert.deepEqual(names(await read(pennon, shopToken, '?tag=simple:beta')), ['pay-other'])
    assert.deepEqual(names(await read(pennon, client, '?tag=simple:nobody')), [])
    for (const [search, sent, index] of [
      ['tag=simple', 'simple', 0],
      ['tag=:beta', ':beta', 0],
      ['tag=simple:', 'simple:', 0],
      ['tag=', '', 0],
      ['tag=a:b&tag=nocolon', 'nocolon', 1],
    ] as const) {
      const refused = await call(pennon, 'GET', `${FEATURES}?${search}`, undefined, { token: client })
      assert.equal(refused.status, 400, search)
      const message = `The \`/query/tag\` filter must look like "type:value". You sent ${JSON.stringify(sent)}.`
      assert.deepEqual(
        withoutId(refused.body),
        { name: 'ValidationError', message, details: [{ path: `/query/tag/${index}`, message }] },
        search,
      )
    }
    // Each different query has its own queryHash; the same one the same.
    const hashes = new Set([shop, two, prefixed, tagged, emptyPrefix].map((answer) => answer.meta.queryHash))
    assert.equal(hashes.size, 5)
    assert.equal((await read(pennon, shopToken, '?project=shop')).meta.queryHash, shop.meta.queryHash)
  })

  test('an admin token reads every project, in ?environment= (development by default)', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    await createFlag(pennon, 'home')
    await createFlag(pennon, 'basket', 'shop')
    assert.equal((await toggle(pennon, 'basket', 'production', 'on', 'shop')).status, 200)
    const admin = await apiToken(pennon, 'admin')
    for (const token of [admin, pennon.adminToken]) {
      assert.deepEqual((await read(pennon, token)).body, {
        version: 2,
        features: [flag('basket', { project: 'shop' }), flag('home')],
        query: query(),
      })
      assert.deepEqual((await read(pennon, token, '?environment=production')).body, {
        version: 2,
        features: [flag('basket', { project: 'shop', enabled: true, strategies: [rolloutOf('basket')] }), flag('home')],
        query: query({ environment: 'production' }),
      })
      // An environment nobody has: every flag, off.
      assert.deepEqual((await read(pennon, token, '?environment=nowhere')).body.query, query({ environment: 'nowhere' }))
      const one = await call(pennon, 'GET', `${FEATURES}/basket?environment=production`, undefined, { token })
      assert.equal(one.status, 200)
      assert.equal(one.body.enabled, true)
      assert.equal((await call(pennon, 'GET', `${FEATURES}/basket`, undefined, { token })).body.enabled, false)
    }
  })

  test('one flag: GET /features/:name answers it as the list does; 404 for an unknown, archived or out-of-scope flag', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    const segment = await createSegment(pennon, 'nordic', [inCountry('NO', 'SE')])
    await createFlag(pennon, 'parent', 'shop', { description: 'the parent', impressionData: true })
    await createFlag(pennon, 'checkout', 'shop', { type: 'operational' })
    await createFlag(pennon, 'elsewhere')
    await createFlag(pennon, 'old', 'shop')
    await addStrategy(
      pennon,
      'checkout',
      'production',
      {
        name: 'flexibleRollout',
        parameters: { rollout: 25 },
        constraints: [
          { contextName: 'version', operator: 'SEMVER_GT', value: '1.2.3' },
          { contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@x.io'], caseInsensitive: true, inverted: true },
        ],
        segments: [segment],
        variants: [{ name: 'v1', payload: { type: 'number', value: '1' } }],
      },
      'shop',
    )
    assert.equal((await toggle(pennon, 'checkout', 'production', 'on', 'shop')).status, 200)
    assert.equal(
      (
        await call(pennon, 'PUT', `${placePath('checkout', 'production', 'shop')}/variants`, [
          { name: 'env-variant', weightType: 'variable' },
        ])
      ).status,
      200,
    )
    assert.equal((await addDependency(pennon, 'checkout', { feature: 'parent', variants: ['a'] }, 'shop')).status, 200)
    assert.equal((await archive(pennon, ['old'], 'shop')).status, 202)

    const token = await scopedToken(pennon, 'client', 'production', ['shop'])
    for (const headers of [{}, APART]) {
      const list = await read(pennon, token, '', headers)
      assert.deepEqual(
        list.body.features.map((f: { name: string }) => f.name),
        ['checkout', 'parent'],
      )
      for (const feature of list.body.features) {
        const one = await call(pennon, 'GET', `${FEATURES}/${feature.name}`, undefined, { token, headers })
        assert.equal(one.status, 200)
        assert.equal(one.headers['content-type'], JSON_TYPE)
        assert.deepEqual(one.body, feature)
        assert.deepEqual(Object.keys(one.body), Object.keys(feature))
      }
    }
    assert.deepEqual(
      (await call(pennon, 'GET', `${FEATURES}/checkout`, undefined, { token, headers: APART })).body,
      flag('checkout', {
        type: 'operational',
        project: 'shop',
        enabled: true,
        strategies: [
          {
            name: 'flexibleRollout',
            constraints: [
              { contextName: 'version', operator: 'SEMVER_GT', value: '1.2.3', values: [] },
              { contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@x.io'], caseInsensitive: true, inverted: true },
            ],
            parameters: { rollout: '25', stickiness: 'default', groupId: 'checkout' },
            variants: [
              { name: 'v1', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'number', value: '1' } },
            ],
            segments: [segment],
          },
        ],
        variants: [{ name: 'env-variant', weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [] }],
        dependencies: [{ feature: 'parent', enabled: true, variants: ['a'] }],
      }),
    )

    for (const name of ['ghost', 'old', 'elsewhere']) {
      const missing = await call(pennon, 'GET', `${FEATURES}/${name}`, undefined, { token })
      assert.equal(missing.status, 404, name)
      assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', `There's no flag named "${name}" that this token may read.`))
    }
    // Out of scope even when asking for another environment.
    assert.equal((await call(pennon, 'GET', `${FEATURES}/elsewhere?environment=development`, undefined, { token })).status, 404)
  })

  test('tokens: none or unknown → 401; a frontend token, or any service account → 403 NoAccessError ["CLIENT"]', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'home')
    const frontend = await apiToken(pennon, 'frontend')
    const accounts = [await serviceAccountToken(pennon, 1), await serviceAccountToken(pennon, 2), await serviceAccountToken(pennon, 3)]
    const forbidden = errorOf('NoAccessError', 'This endpoint needs a client (backend) or admin API token.', { permissions: ['CLIENT'] })
    for (const url of [FEATURES, `${FEATURES}/home`, `${FEATURES}/ghost`]) {
      const anonymous = await call(pennon, 'GET', url, undefined, { token: null })
      assert.equal(anonymous.status, 401, url)
      assert.deepEqual(
        withoutId(anonymous.body),
        errorOf('AuthenticationRequired', 'Authentication required: send an API token in the Authorization header.'),
      )
      const unknown = await call(pennon, 'GET', url, undefined, { token: 'default:development.nope' })
      assert.equal(unknown.status, 401, url)
      assert.deepEqual(
        withoutId(unknown.body),
        errorOf('AuthenticationRequired', 'Authentication failed: the token in the Authorization header is unknown, deleted or expired.'),
      )
      for (const token of [frontend, ...accounts]) {
        const refused = await call(pennon, 'GET', url, undefined, { token })
        assert.equal(refused.status, 403, url)
        assert.equal(refused.headers.etag, undefined)
        assert.deepEqual(withoutId(refused.body), forbidden)
      }
    }
    // A deleted client token stops working.
    const client = await scopedToken(pennon, 'client')
    assert.equal((await call(pennon, 'GET', FEATURES, undefined, { token: client })).status, 200)
    const tokens = (await call(pennon, 'GET', '/api/admin/api-tokens')).body.tokens as Array<{ tokenName: string; type: string }>
    const name = tokens.find((token) => token.type === 'client')!.tokenName
    assert.equal((await call(pennon, 'DELETE', `/api/admin/api-tokens/${name}`)).status, 200)
    await eventually(
      async () => (await call(pennon, 'GET', FEATURES, undefined, { token: client })).status === 401,
      'the deleted token is refused',
    )
  })

  test('ETag: If-None-Match with it (alone, in a list, weak, or *) → 304 with no body; another one → 200', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'home')
    const client = await apiToken(pennon, 'client')
    const { etag, body } = await read(pennon, client)
    for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, `"a",W/${etag} , "b"`, '*']) {
      const cached = await call(pennon, 'GET', FEATURES, undefined, { token: client, headers: { 'if-none-match': ifNoneMatch } })
      assert.equal(cached.status, 304, ifNoneMatch)
      assert.equal(cached.text, '')
      assert.equal(cached.headers.etag, etag)
    }
    for (const ifNoneMatch of ['"other"', etag.slice(1, -1), `${etag.slice(0, -2)}x"`, '']) {
      const fresh = await call(pennon, 'GET', FEATURES, undefined, { token: client, headers: { 'if-none-match': ifNoneMatch } })
      assert.deepEqual(answerOf(fresh).body, body, ifNoneMatch)
      assert.equal(fresh.headers.etag, etag)
    }
    // Each form of the answer has its own ETag.
    const apart = await read(pennon, client, '', APART)
    assert.notEqual(apart.etag, etag)
    assert.equal(
      (await call(pennon, 'GET', FEATURES, undefined, { token: client, headers: { ...APART, 'if-none-match': etag } })).status,
      200,
    )
    assert.equal(
      (await call(pennon, 'GET', FEATURES, undefined, { token: client, headers: { ...APART, 'if-none-match': apart.etag } })).status,
      304,
    )
    // An old ETag after a change: 200 with the new one.
    assert.equal((await toggle(pennon, 'home', 'development', 'on')).status, 200)
    const changed = answerOf(await call(pennon, 'GET', FEATURES, undefined, { token: client, headers: { 'if-none-match': etag } }))
    assert.notEqual(changed.etag, etag)
    assert.equal(changed.body.features[0].enabled, true)
  })

  test('every change a flag answer depends on shows at once: flag, strategy, segment, switch, variants, environment, dependency, archive, by hand', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await scopedToken(pennon, 'client', 'production')
    let previous = (await read(pennon, client, '', APART)).etag
    /** Reads right after a change: a new ETag, and the flags as `check` expects. */
    const after = async (what: string, change: () => Promise<unknown>, check: (features: any[]) => void) => {
      await change()
      const answer = await read(pennon, client, '', APART)
      assert.notEqual(answer.etag, previous, `${what}: a new ETag`)
      previous = answer.etag
      check(answer.body.features)
      return answer
    }
    await after(
      'flag created',
      () => createFlag(pennon, 'home'),
      (features) => assert.deepEqual(features, [flag('home')]),
    )
    let strategyId = ''
    await after(
      'strategy added',
      async () => (strategyId = (await addStrategy(pennon, 'home', 'production', { name: 'default' })).id),
      (features) => assert.deepEqual(features[0].strategies, [{ name: 'default', constraints: [], parameters: {}, variants: [] }]),
    )
    const segment = await createSegment(pennon, 'nordic', [inCountry('NO')])
    await after(
      'strategy changed',
      () => call(pennon, 'PUT', `${strategiesPath('home', 'production')}/${strategyId}`, { name: 'default', segments: [segment] }),
      (features) => assert.deepEqual(features[0].strategies[0].segments, [segment]),
    )
    const segments = await after(
      'segment changed',
      () => call(pennon, 'PUT', `/api/admin/segments/${segment}`, { name: 'nordic', constraints: [inCountry('NO', 'FI')] }),
      () => {},
    )
    assert.deepEqual(segments.body.segments, [{ id: segment, name: 'nordic', constraints: [inCountry('NO', 'FI')] }])
    await after(
      'switched on',
      () => toggle(pennon, 'home', 'production', 'on'),
      (features) => assert.equal(features[0].enabled, true),
    )
    await after(
      'variants set',
      () => call(pennon, 'PUT', `${placePath('home', 'production')}/variants`, [{ name: 'v' }]),
      (features) =>
        assert.deepEqual(features[0].variants, [{ name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [] }]),
    )
    await after(
      'strategy disabled',
      () => call(pennon, 'PUT', `${strategiesPath('home', 'production')}/${strategyId}`, { name: 'default', disabled: true }),
      (features) => assert.deepEqual([features[0].enabled, features[0].strategies], [false, []]),
    )
    await after(
      'second flag',
      () => createFlag(pennon, 'child'),
      (features) =>
        assert.deepEqual(
          features.map((f) => f.name),
          ['child', 'home'],
        ),
    )
    await after(
      'dependency added',
      () => depend(pennon, 'child', 'home'),
      (features) => assert.deepEqual(features[0].dependencies, [{ feature: 'home', enabled: true, variants: [] }]),
    )
    await after(
      'dependency removed',
      () => call(pennon, 'DELETE', `${projectPath()}/features/child/dependencies/home`),
      (features) => assert.equal(features[0].dependencies, undefined),
    )
    await after(
      'environment removed from the project',
      () => call(pennon, 'DELETE', `${projectPath()}/environments/production`),
      (features) => assert.deepEqual(features, [flag('child'), flag('home')]),
    )
    await after(
      'archived',
      () => archive(pennon, ['child']),
      (features) => assert.deepEqual(features, [flag('home')]),
    )
    await after(
      'revived',
      () => call(pennon, 'POST', `${projectPath()}/revive`, { features: ['child'] }),
      (features) => assert.deepEqual(features, [flag('child'), flag('home')]),
    )
    await after(
      'by hand',
      () => pennon.database.db.updateTable('features').set({ description: 'set by hand' }).where('name', '=', 'home').execute(),
      (features) => assert.equal(features[1].description, 'set by hand'),
    )
    await after(
      'archived again',
      () => archive(pennon, ['child']),
      (features) =>
        assert.deepEqual(
          features.map((f) => f.name),
          ['home'],
        ),
    )
    // Deleting an archived flag changes no answer: the same ETag.
    assert.equal((await call(pennon, 'POST', `${projectPath()}/delete`, { features: ['child'] })).status, 200)
    assert.equal((await read(pennon, client, '', APART)).etag, previous)
  })

  test('writes that change no answer keep the ETag: tokens, events, another project or environment', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    await createFlag(pennon, 'home')
    assert.equal((await toggle(pennon, 'home', 'production', 'on')).status, 200)
    const token = await scopedToken(pennon, 'client', 'production', ['default'])
    const before = await read(pennon, token)
    const unchanged = async (what: string) => {
      const now = await read(pennon, token)
      assert.equal(now.etag, before.etag, what)
      assert.deepEqual(now.body, before.body, what)
    }
    await scopedToken(pennon, 'frontend')
    await serviceAccountToken(pennon, 3)
    await unchanged('tokens created')
    const events = await pennon.database.db.selectFrom('events').select('type').execute()
    assert.ok(
      events.some((event) => event.type === 'api-token-created'),
      'token writes are events too',
    )
    await createFlag(pennon, 'basket', 'shop')
    assert.equal((await toggle(pennon, 'basket', 'production', 'on', 'shop')).status, 200)
    await unchanged('a flag of another project')
    assert.equal((await toggle(pennon, 'home', 'development', 'on')).status, 200)
    await unchanged('a switch of another environment')
  })

  test('two instances on one database: the same data gives the same ETag; a change on one shows on the other', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    const token = await scopedToken(first, 'client', 'production')
    await createFlag(first, 'home')
    /** Waits until both instances give the same answer with the same ETag; returns it. */
    const agree = async (what: string) => {
      await eventually(async () => {
        const [a, b] = [await read(first, token, '', APART), await read(second, token, '', APART)]
        return a.etag === b.etag && JSON.stringify(a.body) === JSON.stringify(b.body)
      }, `${what}: both instances answer the same`)
      return read(second, token, '', APART)
    }
    // Both instances answer (their caches filled) before each write, on one or the other.
    let previous = (await agree('start')).etag
    const change = async (what: string, write: () => Promise<unknown>, check: (answer: Answer) => void) => {
      await write()
      const answer = await agree(what)
      assert.notEqual(answer.etag, previous, `${what}: a new ETag`)
      previous = answer.etag
      check(answer)
    }
    await change(
      'flag created on the second',
      () => createFlag(second, 'other'),
      (a) =>
        assert.deepEqual(
          a.body.features.map((f: any) => f.name),
          ['home', 'other'],
        ),
    )
    const segment = await createSegment(first, 'nordic', [inCountry('NO')])
    let strategyId = ''
    await change(
      'strategy added',
      async () => (strategyId = (await addStrategy(first, 'home', 'production', { name: 'default', segments: [segment] })).id),
      (a) => assert.deepEqual(a.body.segments, [{ id: segment, name: 'nordic', constraints: [inCountry('NO')] }]),
    )
    await change(
      'switched on',
      () => toggle(first, 'home', 'production', 'on'),
      (a) => assert.equal(a.body.features[0].enabled, true),
    )
    await change(
      'segment changed',
      () => call(first, 'PUT', `/api/admin/segments/${segment}`, { name: 'nordics', constraints: [] }),
      (a) => assert.deepEqual(a.body.segments, [{ id: segment, name: 'nordics', constraints: [] }]),
    )
    await change(
      'strategy changed',
      () =>
        call(first, 'PUT', `${strategiesPath('home', 'production')}/${strategyId}`, {
          name: 'userWithId',
          parameters: { userIds: 'x' },
          segments: [],
        }),
      (a) => {
        assert.deepEqual(a.body.features[0].strategies, [
          { name: 'userWithId', constraints: [], parameters: { userIds: 'x' }, variants: [] },
        ])
        assert.deepEqual(a.body.segments, [])
      },
    )
    await change(
      'dependency',
      () => depend(first, 'other', 'home'),
      (a) => assert.deepEqual(a.body.features[1].dependencies, [{ feature: 'home', enabled: true, variants: [] }]),
    )
    await change(
      'environment removed',
      () => call(first, 'DELETE', `${projectPath()}/environments/production`),
      (a) =>
        assert.deepEqual(a.body.features, [
          flag('home'),
          flag('other', { dependencies: [{ feature: 'home', enabled: true, variants: [] }] }),
        ]),
    )
    await change(
      'by hand on the first',
      () => first.database.db.updateTable('features').set({ impression_data: true }).where('name', '=', 'home').execute(),
      (a) => assert.equal(a.body.features[0].impressionData, true),
    )
    await change(
      'archived',
      () => archive(first, ['other']),
      (a) =>
        assert.deepEqual(
          a.body.features.map((f: any) => f.name),
          ['home'],
        ),
    )
  })
})
