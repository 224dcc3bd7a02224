/**
 * GET /segments/strategies/:strategyId and POST /segments/strategies through the real app on each
 * database: a strategy's segments read and set by its id alone, exact bodies, the rules of
 * segments (existing, of the strategy's project), unknown places, permissions, the event.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, onEachDatabase, serviceAccountToken, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { createFlag, createProject } from '../../../test/helpers/flags.ts'
import { addStrategy, listStrategies } from '../../../test/helpers/strategies.ts'

const SET = '/api/admin/segments/strategies'

async function segment(pennon: TestApp, name: string, project?: string): Promise<any> {
  const created = await call(pennon, 'POST', '/api/admin/segments', {
    name,
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }],
    ...(project === undefined ? {} : { project }),
  })
  assert.equal(created.status, 201, created.text)
  return created.body
}

onEachDatabase('a strategy and its segments', (database) => {
  test('GET: the segments a strategy uses, by id; an unknown strategy has none', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const [beta, staff] = [await segment(pennon, 'beta'), await segment(pennon, 'staff')]
    const strategy = await addStrategy(pennon, 'checkout', 'production', { name: 'default', segments: [staff.id, beta.id] })
    const read = await call(pennon, 'GET', `${SET}/${strategy.id}`)
    assert.equal(read.status, 200)
    assert.deepEqual(read.body, { segments: [beta, staff] })
    const none = await addStrategy(pennon, 'checkout', 'production', { name: 'default' })
    assert.deepEqual((await call(pennon, 'GET', `${SET}/${none.id}`)).body, { segments: [] })
    const unknown = await call(pennon, 'GET', `${SET}/no-such-strategy`)
    assert.equal(unknown.status, 200)
    assert.deepEqual(unknown.body, { segments: [] })
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'GET', `${SET}/${strategy.id}`, undefined, { token: viewer })).status, 200)
  })

  test('POST: exactly these segments, the rest of the strategy kept; 201 with the body; its event', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const [beta, staff, vip] = [await segment(pennon, 'beta'), await segment(pennon, 'staff'), await segment(pennon, 'vip')]
    const before = await addStrategy(pennon, 'checkout', 'development', {
      name: 'flexibleRollout',
      parameters: { rollout: '40', stickiness: 'default', groupId: 'checkout' },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }],
      segments: [beta.id, staff.id],
    })
    const body = { projectId: 'default', environmentId: 'development', strategyId: before.id, segmentIds: [vip.id, staff.id] }
    const eventsBefore = (await allEvents(pennon)).length
    const set = await call(pennon, 'POST', SET, body)
    assert.equal(set.status, 201, set.text)
    assert.deepEqual(set.body, body)
    assert.equal(set.headers.location, `strategies/${before.id}`)
    const [after] = await listStrategies(pennon, 'checkout', 'development')
    assert.deepEqual(after, { ...before, segments: [staff.id, vip.id] })
    const events = (await allEvents(pennon)).slice(eventsBefore)
    assert.deepEqual(
      events.map((event) => [event.type, event.featureName, event.environment, event.data.segments, event.preData.segments]),
      [['feature-strategy-update', 'checkout', 'development', [staff.id, vip.id], [beta.id, staff.id]]],
    )
    // The same again changes nothing and records nothing; an empty list takes them all away.
    assert.equal((await call(pennon, 'POST', SET, body)).status, 201)
    assert.equal((await allEvents(pennon)).length, eventsBefore + 1)
    assert.equal((await call(pennon, 'POST', SET, { ...body, segmentIds: [] })).status, 201)
    assert.deepEqual((await call(pennon, 'GET', `${SET}/${before.id}`)).body, { segments: [] })
  })

  test('POST: unknown strategy or wrong place 404; unknown or foreign segments 400; UPDATE_FEATURE_STRATEGY', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    await createProject(pennon, 'other')
    const beta = await segment(pennon, 'beta')
    const foreign = await segment(pennon, 'theirs', 'other')
    const strategy = await addStrategy(pennon, 'checkout', 'development', { name: 'default' })
    const body = { projectId: 'default', environmentId: 'development', strategyId: strategy.id, segmentIds: [beta.id] }
    for (const [wrong, message] of [
      [{ strategyId: 'nope' }, 'Project "default" has no strategy "nope" in environment "development".'],
      [{ projectId: 'other' }, `Project "other" has no strategy "${strategy.id}" in environment "development".`],
      [{ environmentId: 'production' }, `Project "default" has no strategy "${strategy.id}" in environment "production".`],
    ] as const) {
      const answer = await call(pennon, 'POST', SET, { ...body, ...wrong })
      assert.equal(answer.status, 404)
      assert.equal(answer.body.name, 'NotFoundError')
      assert.equal(answer.body.message, message)
    }
    const bad = await call(pennon, 'POST', SET, { ...body, segmentIds: [beta.id, 9999, foreign.id] })
    assert.equal(bad.status, 400)
    assert.deepEqual(
      bad.body.details.map((detail: any) => detail.path),
      ['/body/segmentIds/1', '/body/segmentIds/2'],
    )
    assert.equal((await call(pennon, 'POST', SET, { ...body, segmentIds: ['1'] })).status, 400)
    assert.equal((await call(pennon, 'POST', SET, { projectId: 'default', strategyId: strategy.id, segmentIds: [] })).status, 400)
    const viewer = await serviceAccountToken(pennon, 3)
    const refused = await call(pennon, 'POST', SET, body, { token: viewer })
    assert.equal(refused.status, 403)
    assert.deepEqual(refused.body.permissions, ['UPDATE_FEATURE_STRATEGY'])
    const editor = await serviceAccountToken(pennon, 2)
    assert.equal((await call(pennon, 'POST', SET, body, { token: editor })).status, 201)
  })
})
