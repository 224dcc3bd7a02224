/**
 * A project's default strategy per environment: set (kept as sent, its event), shown by the
 * project's overview, and added when a flag is switched on there without an active strategy.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

const P = '/api/admin/projects'
const url = (project: string, environment: string) => `${P}/${project}/environments/${environment}/default-strategy`

const HALF = {
  name: 'flexibleRollout',
  title: 'Half',
  parameters: { rollout: '50', stickiness: 'userId', groupId: '' },
  constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b'] }],
}

async function strategiesOf(pennon: TestApp, flag: string, environment: string): Promise<any[]> {
  const response = await call(pennon, 'GET', `${P}/default/features/${flag}/environments/${environment}/strategies`)
  assert.equal(response.status, 200, response.text)
  return response.body.map(({ id: _id, ...strategy }: { id: string }) => strategy)
}

const builtIn = (flag: string) => ({
  name: 'flexibleRollout',
  constraints: [],
  parameters: { rollout: '100', stickiness: 'default', groupId: flag },
  variants: [],
  segments: [],
  title: null,
  disabled: false,
  sortOrder: 0,
})

async function personToken(pennon: TestApp, email: string, rootRole: 1 | 2 | 3): Promise<string> {
  await createUser(pennon, email, rootRole)
  const body = { description: 'test', expiresAt: new Date(Date.now() + 86_400_000).toISOString() }
  const token = await call(pennon, 'POST', '/api/admin/user/tokens', body, asBrowser(await signIn(pennon, email)))
  assert.equal(token.status, 201, token.text)
  return token.body.secret
}

onEachDatabase("a project's default strategy", (database) => {
  test('kept as sent, with its event; the overview shows it; switching on adds it where no strategy is active', async (t) => {
    const pennon = await useTestApp(t, database)
    const set = await call(pennon, 'POST', url('default', 'development'), HALF)
    assert.equal(set.status, 200, set.text)
    assert.deepEqual(set.body, HALF)
    const [event] = (await allEvents(pennon)).slice(-1)
    assert.deepEqual(
      { type: event.type, project: event.project, environment: event.environment, data: event.data, preData: event.preData },
      { type: 'default-strategy-updated', project: 'default', environment: 'development', data: HALF, preData: null },
    )
    const listed = await call(pennon, 'GET', '/api/admin/environments/project/default')
    assert.deepEqual(
      listed.body.environments.map((environment: { name: string; defaultStrategy?: unknown }) => [
        environment.name,
        environment.defaultStrategy,
      ]),
      [
        ['development', HALF],
        ['production', undefined],
      ],
    )
    const overview = await call(pennon, 'GET', `${P}/default/overview`)
    assert.deepEqual(overview.body.environments, [{ environment: 'development', defaultStrategy: HALF }, { environment: 'production' }])

    assert.equal((await call(pennon, 'POST', `${P}/default/features`, { name: 'door' })).status, 201)
    assert.equal((await call(pennon, 'POST', `${P}/default/features/door/environments/development/on`)).status, 200)
    assert.equal((await call(pennon, 'POST', `${P}/default/features/door/environments/production/on`)).status, 200)
    // The project's in development (grouped by the flag: its groupId was empty); the built-in one in production.
    assert.deepEqual(await strategiesOf(pennon, 'door', 'development'), [
      {
        name: 'flexibleRollout',
        constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b'] }],
        parameters: { rollout: '50', stickiness: 'userId', groupId: 'door' },
        variants: [],
        segments: [],
        title: 'Half',
        disabled: false,
        sortOrder: 0,
      },
    ])
    assert.deepEqual(await strategiesOf(pennon, 'door', 'production'), [builtIn('door')])

    // A flag with an active strategy keeps just that one.
    assert.equal((await call(pennon, 'POST', `${P}/default/features`, { name: 'own' })).status, 201)
    const own = { name: 'default', constraints: [], parameters: {} }
    const added = await call(pennon, 'POST', `${P}/default/features/own/environments/development/strategies`, own)
    assert.equal(added.status, 200, added.text)
    assert.equal((await call(pennon, 'POST', `${P}/default/features/own/environments/development/on`)).status, 200)
    assert.deepEqual(
      (await strategiesOf(pennon, 'own', 'development')).map((strategy) => strategy.name),
      ['default'],
    )

    // Set again: the event has the one before; a group named is kept.
    const named = { name: 'flexibleRollout', parameters: { rollout: 25, groupId: 'shared' } }
    const again = await call(pennon, 'POST', url('default', 'development'), named)
    assert.deepEqual(again.body, named)
    const [second] = (await allEvents(pennon)).slice(-1)
    assert.deepEqual([second.data, second.preData], [named, HALF])
    assert.equal((await call(pennon, 'POST', `${P}/default/features`, { name: 'gate' })).status, 201)
    assert.equal((await call(pennon, 'POST', `${P}/default/features/gate/environments/development/on`)).status, 200)
    assert.deepEqual((await strategiesOf(pennon, 'gate', 'development'))[0].parameters, {
      rollout: '25',
      groupId: 'shared',
      stickiness: 'default',
    })

    // An environment taken from the project forgets it.
    assert.equal((await call(pennon, 'POST', '/api/admin/environments', { name: 'staging', type: 'test' })).status, 201)
    assert.equal((await call(pennon, 'POST', `${P}/default/environments`, { environment: 'staging' })).status, 200)
    assert.equal((await call(pennon, 'POST', url('default', 'staging'), HALF)).status, 200)
    assert.equal((await call(pennon, 'DELETE', `${P}/default/environments/staging`)).status, 200)
    assert.equal((await call(pennon, 'POST', `${P}/default/environments`, { environment: 'staging' })).status, 200)
    assert.deepEqual((await call(pennon, 'GET', `${P}/default/overview`)).body.environments[2], { environment: 'staging' })
  })

  test('a default strategy whose segment has gone since: switching on is refused, saying whose strategy it is', async (t) => {
    const pennon = await useTestApp(t, database)
    const segment = await call(pennon, 'POST', '/api/admin/segments', { name: 'beta-users', constraints: [] })
    assert.equal(segment.status, 201, segment.text)
    const withSegment = { name: 'flexibleRollout', segments: [segment.body.id] }
    assert.equal((await call(pennon, 'POST', url('default', 'development'), withSegment)).status, 200)
    assert.equal((await call(pennon, 'DELETE', `/api/admin/segments/${segment.body.id}`)).status, 204)
    assert.equal((await call(pennon, 'POST', `${P}/default/features`, { name: 'door' })).status, 201)
    const refused = await call(pennon, 'POST', `${P}/default/features/door/environments/development/on`)
    assert.equal(refused.status, 409, refused.text)
    assert.equal(refused.body.name, 'InvalidOperationError')
    assert.match(
      refused.body.message,
      /^The default strategy of project "default" in environment "development" can no longer be added \(.*Segment \d+ does not exist.*\): set it again/,
    )
    assert.deepEqual(await strategiesOf(pennon, 'door', 'development'), [])
    assert.equal((await call(pennon, 'GET', `${P}/default/features/door/environments/development`)).body.enabled, false)
  })

  test('refused: not a flexible rollout, a bad strategy, an unknown place; nothing kept, no event', async (t) => {
    const pennon = await useTestApp(t, database)
    const before = (await allEvents(pennon)).length
    const refuse = async (project: string, environment: string, body: unknown, status: number, name: string, message?: string) => {
      const response = await call(pennon, 'POST', url(project, environment), body)
      assert.equal(response.status, status, response.text)
      assert.equal(response.body.name, name)
      if (message !== undefined)
        assert.deepEqual(withoutId(response.body), errorOf(name, message, { details: [{ path: '/body/name', message }] }))
      return response.body
    }
    const only = 'Only "flexibleRollout" strategy can be used as a default strategy for an environment'
    await refuse('default', 'development', { name: 'default' }, 400, 'ValidationError', only)
    await refuse('default', 'development', { name: 'nope' }, 400, 'ValidationError', only)
    await refuse('default', 'development', { parameters: {} }, 400, 'ValidationError')
    const rollout = await refuse(
      'default',
      'development',
      { name: 'flexibleRollout', parameters: { rollout: '150' } },
      400,
      'ValidationError',
    )
    assert.equal(rollout.details[0].path, '/body/parameters/rollout')
    const constraint = { contextName: 'userId', operator: 'NUM_EQ', value: 'many' }
    await refuse('default', 'development', { name: 'flexibleRollout', constraints: [constraint] }, 400, 'ValidationError')
    const segment = await refuse('default', 'development', { name: 'flexibleRollout', segments: [999] }, 400, 'ValidationError')
    assert.equal(segment.details[0].path, '/body/segments/0')

    const project = await refuse('nope', 'development', HALF, 404, 'NotFoundError')
    assert.match(project.message, /nope/)
    await refuse('default', 'nowhere', HALF, 404, 'NotFoundError')
    assert.equal((await call(pennon, 'POST', '/api/admin/environments', { name: 'staging', type: 'test' })).status, 201)
    // An environment that is not the project's.
    const outside = await refuse('default', 'staging', HALF, 404, 'NotFoundError')
    assert.match(outside.message, /staging/)

    const viewer = await personToken(pennon, 'viewer@example.com', 3)
    const forbidden = await call(pennon, 'POST', url('default', 'development'), HALF, { token: viewer })
    assert.equal(forbidden.status, 403)
    assert.deepEqual(forbidden.body.permissions, ['UPDATE_PROJECT'])
    assert.equal((await call(pennon, 'POST', url('default', 'development'), HALF, { token: null })).status, 401)

    const written = (await allEvents(pennon)).slice(before).map((event) => event.type)
    assert.deepEqual(
      written.filter((type) => type === 'default-strategy-updated'),
      [],
    )
    assert.deepEqual((await call(pennon, 'GET', `${P}/default/overview`)).body.environments[0], { environment: 'development' })
  })
})
