import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  apiToken,
  call,
  errorOf,
  type ApiResponse,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  useTwoInstances,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import { archive, createFlag, eventMark } from '../../../test/helpers/flags.ts'
import { UNKNOWABLE, type ChangeWatch } from '../../db/change-watch.ts'
import { ulid } from '../../db/ulid.ts'
import { createStrategyNames } from './strategy-names.ts'
import {
  addStrategy,
  assertEmpty,
  at,
  fromOneRequestIn,
  jsonOk,
  listStrategies,
  strategiesPath,
  validationError,
} from '../../../test/helpers/strategies.ts'

const STRATEGIES = '/api/admin/strategies'
const BUILT_IN = [
  'flexibleRollout',
  'default',
  'userWithId',
  'remoteAddress',
  'applicationHostname',
  'gradualRolloutRandom',
  'gradualRolloutSessionId',
  'gradualRolloutUserId',
]

/** A custom definition as the API shows it. */
const custom = (name: string, fields: Record<string, unknown> = {}) => ({
  title: null,
  name,
  displayName: null,
  description: null,
  editable: true,
  deprecated: false,
  parameters: [],
  ...fields,
})
const param = (name: string, type = 'string', description = '', required = false) => ({ name, type, description, required })

/** An event of a definition, as fromOneRequestIn leaves it. */
const definitionEvent = (type: string, data: unknown, preData: unknown = null) => ({
  type,
  featureName: null,
  project: null,
  environment: null,
  data,
  preData,
})

async function define(pennon: TestApp, body: Record<string, unknown>): Promise<any> {
  const response = await call(pennon, 'POST', STRATEGIES, { parameters: [], ...body })
  assert.equal(response.status, 201, response.text)
  return response.body
}

const names = async (pennon: TestApp): Promise<string[]> =>
  jsonOk(await call(pennon, 'GET', STRATEGIES)).strategies.map((s: { name: string }) => s.name)

onEachDatabase('strategy definitions', (database) => {
  test('GET one: a built-in definition; an unknown name is a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${STRATEGIES}/gradualRolloutUserId`)), {
      title: null,
      name: 'gradualRolloutUserId',
      displayName: null,
      description: 'Gradually activate feature toggle for logged in users. Stickiness based on user id.',
      editable: false,
      deprecated: true,
      parameters: [
        param('percentage', 'percentage'),
        param('groupId', 'string', 'Used to define a activation groups, which allows you to correlate across feature toggles.', true),
      ],
    })
    const unknown = await call(pennon, 'GET', `${STRATEGIES}/nope`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Strategy "nope" does not exist.'))
  })

  test('create: 201, Location, the definition and its event; listed after the built-ins, by name', async (t) => {
    const pennon = await useTestApp(t, database)
    const mark = await eventMark(pennon)
    const body = {
      name: 'team-tier',
      title: 'Team tier',
      description: 'On for the tiers listed',
      // Accepted and ignored, as the reference: a custom strategy is editable, and starts active.
      editable: false,
      deprecated: true,
      parameters: [
        { name: 'tiers', type: 'list', description: 'Comma-separated', required: true },
        { name: 'beta', type: 'boolean', extra: 'ignored' },
      ],
    }
    const created = await call(pennon, 'POST', STRATEGIES, body)
    assert.equal(created.status, 201, created.text)
    assert.equal(created.headers.location, 'strategies/team-tier')
    const expected = custom('team-tier', {
      title: 'Team tier',
      description: 'On for the tiers listed',
      parameters: [param('tiers', 'list', 'Comma-separated', true), param('beta', 'boolean')],
    })
    assert.deepEqual(created.body, expected)
    assert.deepEqual(fromOneRequestIn(await mark.since()), [definitionEvent('strategy-created', expected)])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${STRATEGIES}/team-tier`)), expected)

    await define(pennon, { name: 'Alpha' })
    await define(pennon, { name: 'zeta' })
    await define(pennon, { name: 'beta' })
    // By code point: upper case first, on both databases.
    assert.deepEqual(await names(pennon), [...BUILT_IN, 'Alpha', 'beta', 'team-tier', 'zeta'])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', STRATEGIES)).strategies.at(-2), expected)
  })

  test('create refuses: a name taken by a custom or a built-in strategy (409); every violation of a body in one 400; nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    await define(pennon, { name: 'mine' })
    const mark = await eventMark(pennon)
    for (const name of ['mine', 'default']) {
      const taken = await call(pennon, 'POST', STRATEGIES, { name, parameters: [] })
      assert.equal(taken.status, 409)
      assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', `A strategy named "${name}" already exists.`))
    }

    const refuse = async (body: unknown, ...details: Array<{ path: string; message: string }>) => {
      const response = await call(pennon, 'POST', STRATEGIES, body)
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.deepEqual(withoutId(response.body), validationError(...details))
    }
    const urlFriendly = (sent: string) =>
      `The \`/body/name\` property must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or ".."). You sent ${sent}.`
    // The schema's faults and the rules' are listed together.
    await refuse(
      {
        name: 'my strategy',
        title: 5,
        parameters: [{ name: 'a', type: 'string' }, { name: 'b', type: 'date' }, { name: 'a', type: 'list' }, { type: 'number' }],
      },
      at('/body/title', 'The `/body/title` property must be string or null. You sent 5.'),
      at(
        '/body/parameters/1/type',
        'The `/body/parameters/1/type` property must be one of "string", "percentage", "list", "number", "boolean". You sent "date".',
      ),
      at('/body/parameters/3/name', 'The `/body/parameters/3/name` property is required. It was not present on the data you sent.'),
      at('/body/name', urlFriendly('"my strategy"')),
      at(
        '/body/parameters/2/name',
        'The `/body/parameters/2/name` property must be unique among the parameters: parameter 0 is named "a" too.',
      ),
    )
    await refuse(
      { name: 'no-parameters' },
      at('/body/parameters', 'The `/body/parameters` property is required. It was not present on the data you sent.'),
    )
    await refuse(
      { name: '', parameters: [{ name: '', type: 'string' }] },
      at('/body/parameters/0/name', 'The `/body/parameters/0/name` property must NOT have fewer than 1 characters. You sent "".'),
      at('/body/name', 'The `/body/name` property must not be empty.'),
    )
    await refuse(
      { name: 'x'.repeat(101), parameters: [] },
      at('/body/name', `The \`/body/name\` property must be at most 100 characters long. You sent "${'x'.repeat(99)}….`),
    )
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(await names(pennon), [...BUILT_IN, 'mine'])
  })

  test('update: 200 and empty; parameters replaced, title and description kept unless sent (null clears); no event when nothing changes', async (t) => {
    const pennon = await useTestApp(t, database)
    const before = await define(pennon, {
      name: 'tier',
      title: 'Tier',
      description: 'By tier',
      parameters: [{ name: 'tiers', type: 'list' }],
    })
    const mark = await eventMark(pennon)
    assertEmpty(
      await call(pennon, 'PUT', `${STRATEGIES}/tier`, {
        parameters: [
          { name: 'tiers', type: 'list', required: true },
          { name: 'share', type: 'percentage' },
        ],
      }),
    )
    const after = { ...before, parameters: [param('tiers', 'list', '', true), param('share', 'percentage')] }
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${STRATEGIES}/tier`)), after)
    assert.deepEqual(fromOneRequestIn(await mark.since()), [definitionEvent('strategy-updated', after, before)])

    const cleared = await eventMark(pennon)
    // A name in the body is not a rename: the path names the strategy (as the reference).
    assertEmpty(await call(pennon, 'PUT', `${STRATEGIES}/tier`, { name: 'other', title: null, description: 'Now', parameters: [] }))
    const last = { ...after, title: null, description: 'Now', parameters: [] }
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${STRATEGIES}/tier`)), last)
    assert.deepEqual(fromOneRequestIn(await cleared.since()), [definitionEvent('strategy-updated', last, after)])

    const same = await eventMark(pennon)
    assertEmpty(await call(pennon, 'PUT', `${STRATEGIES}/tier`, { parameters: [] }))
    assert.deepEqual(await same.since(), [])
  })

  test('update refuses: an unknown strategy (404), a built-in one (409), a bad body (400); nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    await define(pennon, { name: 'tier' })
    const mark = await eventMark(pennon)
    const unknown = await call(pennon, 'PUT', `${STRATEGIES}/nope`, { parameters: [] })
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Strategy "nope" does not exist.'))
    const builtIn = await call(pennon, 'PUT', `${STRATEGIES}/flexibleRollout`, { parameters: [] })
    assert.equal(builtIn.status, 409)
    assert.deepEqual(
      withoutId(builtIn.body),
      errorOf(
        'InvalidOperationError',
        'Strategy "flexibleRollout" is built in: it cannot be changed. It can be deprecated (POST /api/admin/strategies/flexibleRollout/deprecate).',
      ),
    )
    const invalid = await call(pennon, 'PUT', `${STRATEGIES}/tier`, {
      description: 7,
      parameters: [
        { name: 'a', type: 'list' },
        { name: 'a', type: 'string' },
      ],
    })
    assert.equal(invalid.status, 400)
    assert.deepEqual(
      withoutId(invalid.body),
      validationError(
        at('/body/description', 'The `/body/description` property must be string or null. You sent 7.'),
        at(
          '/body/parameters/1/name',
          'The `/body/parameters/1/name` property must be unique among the parameters: parameter 0 is named "a" too.',
        ),
      ),
    )
    const noParameters = await call(pennon, 'PUT', `${STRATEGIES}/tier`, { title: 'x' })
    assert.equal(noParameters.status, 400)
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${STRATEGIES}/tier`)), custom('tier'))
  })

  test('flag strategies take any defined name, custom or deprecated, and refuse others; the failure report knows the new names', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const path = strategiesPath('checkout', 'development')
    await define(pennon, { name: 'team-tier', parameters: [{ name: 'tiers', type: 'list' }] })

    const added = await addStrategy(pennon, 'checkout', 'development', { name: 'team-tier', parameters: { tiers: 'gold,silver' } })
    assert.deepEqual([added.name, added.parameters], ['team-tier', { tiers: 'gold,silver' }])
    // The legacy built-ins, deprecated, are still taken (as the reference): the SDKs evaluate them.
    const legacy = await addStrategy(pennon, 'checkout', 'development', {
      name: 'gradualRolloutUserId',
      parameters: { percentage: 50, groupId: 'g' },
    })
    assert.deepEqual(legacy.parameters, { percentage: '50', groupId: 'g' })
    // A strategy changes to a custom one by PUT and by PATCH.
    const standard = await addStrategy(pennon, 'checkout', 'development', { name: 'default' })
    assert.equal(jsonOk(await call(pennon, 'PUT', `${path}/${standard.id}`, { name: 'team-tier' })).name, 'team-tier')
    assert.equal(
      jsonOk(await call(pennon, 'PATCH', `${path}/${standard.id}`, [{ op: 'replace', path: '/name', value: 'default' }])).name,
      'default',
    )
    assert.equal(
      jsonOk(await call(pennon, 'PATCH', `${path}/${standard.id}`, [{ op: 'replace', path: '/name', value: 'team-tier' }])).name,
      'team-tier',
    )

    // A body the schema refuses is reported with the names known now: team-tier is fine, ghost is not.
    const known =
      '"applicationHostname", "default", "flexibleRollout", "gradualRolloutRandom", "gradualRolloutSessionId", "gradualRolloutUserId", "remoteAddress", "team-tier", "userWithId"'
    const unknownName = (sent: string) =>
      at('/body/name', `The \`/body/name\` property must name a strategy this instance knows (${known}). You sent "${sent}".`)
    const titled = await call(pennon, 'POST', path, { name: 'team-tier', title: 5 })
    assert.equal(titled.status, 400)
    assert.deepEqual(
      withoutId(titled.body),
      validationError(at('/body/title', 'The `/body/title` property must be string or null. You sent 5.')),
    )
    const ghost = await call(pennon, 'POST', path, { name: 'ghost', title: 5 })
    assert.deepEqual(
      withoutId(ghost.body),
      validationError(at('/body/title', 'The `/body/title` property must be string or null. You sent 5.'), unknownName('ghost')),
    )
    const ghostOnly = await call(pennon, 'POST', path, { name: 'ghost' })
    assert.equal(ghostOnly.status, 400)
    assert.deepEqual(withoutId(ghostOnly.body), validationError(unknownName('ghost')))
    const renamed = await call(pennon, 'PUT', `${path}/${added.id}`, { name: 'ghost' })
    assert.deepEqual(withoutId(renamed.body), validationError(unknownName('ghost')))

    // Many custom strategies: the message names ten, and counts the rest.
    for (const name of ['c1', 'c2', 'c3']) await define(pennon, { name })
    const many = await call(pennon, 'POST', path, { name: 'ghost' })
    assert.deepEqual(
      withoutId(many.body),
      validationError(
        at(
          '/body/name',
          'The `/body/name` property must name a strategy this instance knows ("applicationHostname", "c1", "c2", "c3", "default", "flexibleRollout", "gradualRolloutRandom", "gradualRolloutSessionId", "gradualRolloutUserId", "remoteAddress" and 2 more: GET /api/admin/strategies lists them). You sent "ghost".',
        ),
      ),
    )
    assert.deepEqual(
      (await listStrategies(pennon, 'checkout', 'development')).map((s) => s.name),
      ['team-tier', 'gradualRolloutUserId', 'team-tier'],
    )
  })

  test("delete: 200 and strategy-deleted; refused for a built-in, and while a flag strategy (an archived flag's too) uses it, naming the flags", async (t) => {
    const pennon = await useTestApp(t, database)
    const definition = await define(pennon, { name: 'tier', description: 'By tier', parameters: [{ name: 'tiers', type: 'list' }] })
    await createFlag(pennon, 'b-flag')
    await createFlag(pennon, 'a-flag')
    const inB = await addStrategy(pennon, 'b-flag', 'development', { name: 'tier' })
    const inA = await addStrategy(pennon, 'a-flag', 'production', { name: 'tier' })
    await addStrategy(pennon, 'a-flag', 'development', { name: 'tier' })
    const mark = await eventMark(pennon)

    const used = await call(pennon, 'DELETE', `${STRATEGIES}/tier`)
    assert.equal(used.status, 409)
    const inUse = (flags: string) =>
      errorOf('InvalidOperationError', `Strategy "tier" is used by the strategies of ${flags}: remove them first, or deprecate it instead.`)
    assert.deepEqual(withoutId(used.body), inUse('flags "a-flag", "b-flag"'))
    assertEmpty(await call(pennon, 'DELETE', `${strategiesPath('b-flag', 'development')}/${inB.id}`))
    assertEmpty(await call(pennon, 'DELETE', `${strategiesPath('a-flag', 'production')}/${inA.id}`))
    assert.equal((await archive(pennon, ['a-flag'])).status, 202)
    assert.deepEqual(withoutId((await call(pennon, 'DELETE', `${STRATEGIES}/tier`)).body), inUse('flag "a-flag"'))
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/delete', { features: ['a-flag'] })).status, 200)

    const builtIn = await call(pennon, 'DELETE', `${STRATEGIES}/userWithId`)
    assert.equal(builtIn.status, 409)
    assert.deepEqual(
      withoutId(builtIn.body),
      errorOf(
        'InvalidOperationError',
        'Strategy "userWithId" is built in: it cannot be deleted. It can be deprecated (POST /api/admin/strategies/userWithId/deprecate).',
      ),
    )
    const refusals = (await mark.since()).filter((e) => e.type.startsWith('strategy-'))
    assert.deepEqual(refusals, [])

    const deleted = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', `${STRATEGIES}/tier`))
    assert.deepEqual(fromOneRequestIn(await deleted.since()), [definitionEvent('strategy-deleted', { name: 'tier' }, definition)])
    assert.equal((await call(pennon, 'GET', `${STRATEGIES}/tier`)).status, 404)
    const again = await call(pennon, 'DELETE', `${STRATEGIES}/tier`)
    assert.equal(again.status, 404)
    assert.deepEqual(withoutId(again.body), errorOf('NotFoundError', 'Strategy "tier" does not exist.'))
    // Gone, flags can no longer take it up.
    await createFlag(pennon, 'later')
    assert.equal((await call(pennon, 'POST', strategiesPath('later', 'development'), { name: 'tier' })).status, 400)
  })

  test('deprecate and reactivate: built-in or custom, still usable by flags; no event when the state is already so; 404 for an unknown name', async (t) => {
    const pennon = await useTestApp(t, database)
    await define(pennon, { name: 'tier' })
    await createFlag(pennon, 'checkout')
    const deprecated = async (name: string) => jsonOk(await call(pennon, 'GET', `${STRATEGIES}/${name}`)).deprecated

    for (const name of ['tier', 'flexibleRollout']) {
      const mark = await eventMark(pennon)
      assertEmpty(await call(pennon, 'POST', `${STRATEGIES}/${name}/deprecate`))
      assert.equal(await deprecated(name), true)
      assert.deepEqual(fromOneRequestIn(await mark.since()), [definitionEvent('strategy-deprecated', { name })])
      await addStrategy(pennon, 'checkout', 'development', { name })

      const repeat = await eventMark(pennon)
      assertEmpty(await call(pennon, 'POST', `${STRATEGIES}/${name}/deprecate`))
      assert.deepEqual(await repeat.since(), [])

      const back = await eventMark(pennon)
      assertEmpty(await call(pennon, 'POST', `${STRATEGIES}/${name}/reactivate`))
      assert.equal(await deprecated(name), false)
      assert.deepEqual(fromOneRequestIn(await back.since()), [definitionEvent('strategy-reactivated', { name })])
      assertEmpty(await call(pennon, 'POST', `${STRATEGIES}/${name}/reactivate`))
      assert.deepEqual((await back.since()).length, 1)
    }
    // A legacy built-in comes back into use.
    assertEmpty(await call(pennon, 'POST', `${STRATEGIES}/userWithId/reactivate`))
    assert.equal(await deprecated('userWithId'), false)

    for (const action of ['deprecate', 'reactivate']) {
      const unknown = await call(pennon, 'POST', `${STRATEGIES}/nope/${action}`)
      assert.equal(unknown.status, 404)
      assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Strategy "nope" does not exist.'))
    }
  })

  test('permissions: a Viewer reads, an Editor writes, client and frontend tokens get nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    await define(pennon, { name: 'tier' })
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2, 'editor')
    const client = await apiToken(pennon, 'client')
    const frontend = await apiToken(pennon, 'frontend')
    for (const url of [STRATEGIES, `${STRATEGIES}/tier`]) {
      assert.equal((await call(pennon, 'GET', url, undefined, { token: viewer })).status, 200, url)
      for (const token of [client, frontend]) {
        const refused = await call(pennon, 'GET', url, undefined, { token })
        assert.equal(refused.status, 403)
        const message =
          'This endpoint needs an admin API token or a service-account token: client and frontend tokens cannot use the admin API.'
        assert.deepEqual(withoutId(refused.body), errorOf('NoAccessError', message, { permissions: [] }))
      }
    }
    const writes = [
      ['POST', STRATEGIES, { name: 'editors', parameters: [] }, 'CREATE_STRATEGY'],
      ['PUT', `${STRATEGIES}/tier`, { description: 'x', parameters: [] }, 'UPDATE_STRATEGY'],
      ['POST', `${STRATEGIES}/tier/deprecate`, undefined, 'UPDATE_STRATEGY'],
      ['POST', `${STRATEGIES}/tier/reactivate`, undefined, 'UPDATE_STRATEGY'],
      ['DELETE', `${STRATEGIES}/tier`, undefined, 'DELETE_STRATEGY'],
    ] as const
    const mark = await eventMark(pennon)
    for (const [method, url, body, permission] of writes) {
      for (const token of [viewer, client]) {
        const refused = await call(pennon, method, url, body, { token })
        assert.equal(refused.status, 403, `${method} ${url}`)
        assert.deepEqual(
          withoutId(refused.body),
          errorOf('NoAccessError', `Missing permission: this operation needs "${permission}".`, { permissions: [permission] }),
        )
      }
    }
    assert.deepEqual(await mark.since(), [])
    for (const [method, url, body] of writes) {
      const response = await call(pennon, method, url, body, { token: editor })
      assert.equal(response.status, method === 'POST' && body !== undefined ? 201 : 200, `${method} ${url}: ${response.text}`)
    }
    assert.deepEqual(
      (await mark.since()).map((e) => [e.type, e.createdBy]),
      [
        ['strategy-created', 'editor'],
        ['strategy-updated', 'editor'],
        ['strategy-deprecated', 'editor'],
        ['strategy-reactivated', 'editor'],
        ['strategy-deleted', 'editor'],
      ],
    )
  })

  test('the known names: read again only when the flags version moves; a strategy write confirms its own name in its transaction', async (t) => {
    const pennon = await useTestApp(t, database)
    const db = pennon.database.db
    let version = 1
    const changes: ChangeWatch = { version: () => version, close: async () => {} }
    const names = createStrategyNames({ db, changes })
    await names.refresh()
    assert.deepEqual([...names.known()].sort(), [...BUILT_IN].sort())
    // Written where this watch cannot see it (another instance, a moment before its notification arrives).
    const row = {
      title: null,
      display_name: null,
      description: null,
      editable: true,
      deprecated: false,
      parameters: '[]',
      sort_order: 0,
      created_at: new Date().toISOString(),
    }
    await db
      .insertInto('strategy_definitions')
      .values({ ...row, name: 'unseen' })
      .execute()
    await names.refresh()
    assert.equal(names.known().has('unseen'), false, 'same version: nothing read')
    const confirmed = await db.transaction().execute((trx) => names.confirm(trx, 'unseen'))
    assert.equal(confirmed.has('unseen'), true)
    assert.equal(
      await db.transaction().execute((trx) => names.confirm(trx, 'default')),
      names.known(),
      'what is remembered is right about it: no read',
    )
    await db.deleteFrom('strategy_definitions').where('name', '=', 'unseen').execute()
    version = 2
    await names.refresh()
    assert.equal(names.known().has('unseen'), false)
    await db
      .insertInto('strategy_definitions')
      .values({ ...row, name: 'seen' })
      .execute()
    version = 3
    await names.refresh()
    assert.equal(names.known().has('seen'), true)
    // Gone behind its back: the transaction says so.
    await db.deleteFrom('strategy_definitions').where('name', '=', 'seen').execute()
    assert.equal((await db.transaction().execute((trx) => names.confirm(trx, 'seen'))).has('seen'), false)
  })

  test('a deletion waits for a strategy write that holds the definition, then sees its strategy', async (t) => {
    const pennon = await useTestApp(t, database)
    await define(pennon, { name: 'tier' })
    await createFlag(pennon, 'racing')
    const db = pennon.database.db
    const names = createStrategyNames({ db, changes: UNKNOWABLE })
    let deletion!: Promise<ApiResponse>
    await db.transaction().execute(async (trx) => {
      assert.equal((await names.confirm(trx, 'tier')).has('tier'), true)
      deletion = call(pennon, 'DELETE', `${STRATEGIES}/tier`)
      // Time for the deletion to reach the definition: it must wait for this transaction.
      await sleep(200)
      await trx
        .insertInto('feature_strategies')
        .values({
          id: ulid(),
          feature_name: 'racing',
          project: 'default',
          environment: 'development',
          strategy_name: 'tier',
          title: null,
          disabled: false,
          parameters: '{}',
          constraints: '[]',
          variants: '[]',
          sort_order: 0,
          created_at: new Date().toISOString(),
        })
        .execute()
    })
    const refused = await deletion
    assert.equal(refused.status, 409, refused.text)
    assert.equal(
      refused.body.message,
      'Strategy "tier" is used by the strategies of flag "racing": remove them first, or deprecate it instead.',
    )
  })

  test('two instances: a strategy defined on one is taken by flags on the other at once, and refused there once deleted', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    await createFlag(first, 'shared')
    const path = strategiesPath('shared', 'development')
    // The second instance has read the names already.
    assert.equal((await call(second, 'POST', path, { name: 'tier' })).status, 400)
    await define(first, { name: 'tier' })
    const added = await call(second, 'POST', path, { name: 'tier' })
    assert.equal(added.status, 200, added.text)
    assertEmpty(await call(second, 'DELETE', `${path}/${added.body.id}`))
    assertEmpty(await call(first, 'DELETE', `${STRATEGIES}/tier`))
    assert.equal((await call(second, 'POST', path, { name: 'tier' })).status, 400)
  })
})
