import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, eventually, onEachDatabase, useTestApp, useTwoInstances, withoutId, type TestApp } from '../../../test/test-app.ts'
import { archive, createFlag, createProject, eventMark } from '../../../test/helpers/flags.ts'
import { addStrategy, assertEmpty, fromOneRequestIn, jsonOk, strategiesPath } from '../../../test/helpers/strategies.ts'

const CONTEXT = '/api/admin/context'
const projectContext = (project: string) => `/api/admin/projects/${project}/context`

const inList = (values: string[], contextName = 'plan', operator = 'IN') => ({ contextName, operator, values })

async function createField(pennon: TestApp, body: Record<string, unknown>, url = CONTEXT): Promise<any> {
  const response = await call(pennon, 'POST', url, body)
  assert.equal(response.status, 201, response.text)
  return response.body
}

/** name → [usedInFeatures, usedInProjects], as the list shows them. */
async function usage(pennon: TestApp, url = CONTEXT): Promise<Record<string, [number, number]>> {
  const list = jsonOk(await call(pennon, 'GET', url))
  return Object.fromEntries(
    list.map((field: { name: string; usedInFeatures: number; usedInProjects: number }) => [
      field.name,
      [field.usedInFeatures, field.usedInProjects],
    ]),
  )
}

onEachDatabase('context fields in use', (database) => {
  test('usage counts and the strategies using a field: own constraints of active flags only, each name exactly', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'web')
    await createField(pennon, { name: 'plan', legalValues: [{ value: 'free' }, { value: 'pro' }] })
    for (const [flag, project] of [
      ['a', 'default'],
      ['b', 'default'],
      ['c', 'web'],
      ['old', 'default'],
      ['d', 'default'],
    ])
      await createFlag(pennon, flag!, project)
    const ids: Record<string, string> = {}
    ids.aDev = (
      await addStrategy(pennon, 'a', 'development', { name: 'default', constraints: [inList(['free']), inList(['x'], 'userId')] })
    ).id
    ids.aProd = (
      await addStrategy(pennon, 'a', 'production', {
        name: 'flexibleRollout',
        parameters: { rollout: '50' },
        constraints: [inList(['pro'], 'plan', 'NOT_IN')],
      })
    ).id
    await addStrategy(pennon, 'c', 'development', { name: 'default' }, 'web')
    ids.cDev = (await addStrategy(pennon, 'c', 'development', { name: 'default', constraints: [inList(['pro'])] }, 'web')).id
    await addStrategy(pennon, 'old', 'development', { name: 'default', constraints: [inList(['free'])] })
    assert.equal((await archive(pennon, ['old'])).status, 202)
    // A segment's constraints do not count (as the reference); nor a name that merely contains
    // `plan`, nor a value that spells out a constraint on it.
    const segment = await call(pennon, 'POST', '/api/admin/segments', { name: 'staff', constraints: [inList(['e'], 'environment')] })
    assert.equal(segment.status, 201, segment.text)
    await addStrategy(pennon, 'b', 'development', { name: 'default', segments: [segment.body.id], constraints: [inList(['x'], 'planet')] })
    await addStrategy(pennon, 'd', 'development', {
      name: 'default',
      constraints: [inList(['"contextName":"plan"', '{"contextName":"plan"}'], 'note'), inList(['q'], 'a"b\\c')],
    })

    assert.deepEqual(await usage(pennon), {
      appName: [0, 0],
      currentTime: [0, 0],
      environment: [0, 0],
      plan: [2, 2],
      sessionId: [0, 0],
      userId: [1, 1],
    })
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${CONTEXT}/plan/strategies`)), {
      strategies: [
        { id: ids.aDev, projectId: 'default', featureName: 'a', strategyName: 'default', environment: 'development' },
        { id: ids.aProd, projectId: 'default', featureName: 'a', strategyName: 'flexibleRollout', environment: 'production' },
        { id: ids.cDev, projectId: 'web', featureName: 'c', strategyName: 'default', environment: 'development' },
      ],
    })
    // Any name, defined or not, even one JSON escapes.
    assert.deepEqual(
      jsonOk(await call(pennon, 'GET', `${CONTEXT}/${encodeURIComponent('a"b\\c')}/strategies`)).strategies.map(
        (s: { featureName: string }) => s.featureName,
      ),
      ['d'],
    )
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${CONTEXT}/environment/strategies`)), { strategies: [] })
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${CONTEXT}/nothing-here/strategies`)), { strategies: [] })

    // In use: refused, naming the flags; once their constraints are gone, deleted.
    const mark = await eventMark(pennon)
    const refused = await call(pennon, 'DELETE', `${CONTEXT}/plan`)
    assert.equal(refused.status, 409)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf(
        'InvalidOperationError',
        'Context field "plan" is used by the strategy constraints of flags "a", "c": remove those constraints first.',
      ),
    )
    assert.deepEqual(await mark.since(), [])
    assertEmpty(await call(pennon, 'DELETE', `${strategiesPath('c', 'development', 'web')}/${ids.cDev}`))
    assertEmpty(await call(pennon, 'DELETE', `${strategiesPath('a', 'production')}/${ids.aProd}`))
    assert.deepEqual((await usage(pennon)).plan, [1, 1])
    const stillA = await call(pennon, 'DELETE', `${CONTEXT}/plan`)
    assert.equal(
      stillA.body.message,
      'Context field "plan" is used by the strategy constraints of flag "a": remove those constraints first.',
    )
    const put = await call(pennon, 'PUT', `${strategiesPath('a', 'development')}/${ids.aDev}`, {
      name: 'default',
      constraints: [inList(['x'], 'userId')],
    })
    assert.equal(put.status, 200, put.text)
    // The archived flag's constraint stays, and does not hold the field.
    const deleted = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', `${CONTEXT}/plan`))
    assert.deepEqual(
      fromOneRequestIn(await deleted.since()).map((event) => event.type),
      ['context-field-deleted'],
    )
  })

  test('the counts are remembered until strategies or flags change, on this instance or another', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    await createField(first, { name: 'plan' })
    await createFlag(first, 'a')
    assert.deepEqual((await usage(second)).plan, [0, 0])
    await addStrategy(first, 'a', 'development', { name: 'default', constraints: [inList(['free'])] })
    assert.deepEqual((await usage(first)).plan, [1, 1])
    await eventually(async () => (await usage(second)).plan?.[0] === 1, 'the other instance counts the new strategy')
    assert.equal((await archive(first, ['a'])).status, 202)
    await eventually(async () => (await usage(second)).plan?.[0] === 0, 'the other instance leaves the archived flag out')
    // By hand: no event, but the database says it changed.
    await first.database.db.updateTable('features').set({ archived_at: null }).where('name', '=', 'a').execute()
    await eventually(async () => (await usage(second)).plan?.[0] === 1, 'the other instance sees the flag back')
  })

  test('a refusal names ten flags and says there are more', async (t) => {
    const pennon = await useTestApp(t, database)
    await createField(pennon, { name: 'plan' })
    for (let i = 10; i <= 21; i++) {
      await createFlag(pennon, `flag-${i}`)
      await addStrategy(pennon, `flag-${i}`, 'development', { name: 'default', constraints: [inList(['free'])] })
    }
    assert.deepEqual((await usage(pennon)).plan, [12, 1])
    const refused = await call(pennon, 'DELETE', `${CONTEXT}/plan`)
    assert.equal(refused.status, 409)
    const listed = Array.from({ length: 10 }, (_, i) => `"flag-${i + 10}"`).join(', ')
    assert.equal(
      refused.body.message,
      `Context field "plan" is used by the strategy constraints of flags ${listed} and more: remove those constraints first.`,
    )
  })

  test("a project's own fields: created there, listed there (include=root: every project's too), hidden from the root list unless include=project, changed only there or from the root", async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'web')
    const mark = await eventMark(pennon)
    // The path's project wins over the body's.
    const created = await call(pennon, 'POST', projectContext('web'), {
      name: 'tier',
      project: 'default',
      legalValues: [{ value: 'gold' }],
    })
    assert.equal(created.status, 201, created.text)
    assert.equal(created.headers.location, 'context/tier')
    const tier = {
      name: 'tier',
      description: null,
      stickiness: false,
      sortOrder: 0,
      legalValues: [{ value: 'gold' }],
      createdAt: created.body.createdAt,
      project: 'web',
    }
    assert.deepEqual(created.body, tier)
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      { type: 'context-field-created', featureName: null, project: null, environment: null, data: tier, preData: null },
    ])

    const rootNames = ['appName', 'currentTime', 'environment', 'sessionId', 'userId']
    const names = async (url: string) => jsonOk(await call(pennon, 'GET', url)).map((field: { name: string }) => field.name)
    assert.deepEqual(await names(CONTEXT), rootNames)
    assert.deepEqual(await names(`${CONTEXT}?include=project`), ['appName', 'currentTime', 'environment', 'sessionId', 'tier', 'userId'])
    assert.deepEqual(await names(`${CONTEXT}?include=PROJECT`), ['appName', 'currentTime', 'environment', 'sessionId', 'tier', 'userId'])
    assert.deepEqual(await names(`${CONTEXT}?include=root`), rootNames)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', projectContext('web'))), [{ ...tier, usedInProjects: 0, usedInFeatures: 0 }])
    assert.deepEqual(await names(`${projectContext('web')}?include=root`), [
      'appName',
      'currentTime',
      'environment',
      'sessionId',
      'tier',
      'userId',
    ])
    assert.deepEqual(await names(projectContext('default')), [])
    // One field is read through either API, whoever it belongs to (as the reference).
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${CONTEXT}/tier`)), tier)
    assert.equal((await call(pennon, 'GET', `${projectContext('default')}/tier`)).status, 200)

    // Through a project's API only that project's fields change.
    for (const [method, url, body] of [
      ['PUT', `${projectContext('web')}/userId`, {}],
      ['DELETE', `${projectContext('web')}/userId`, undefined],
      ['POST', `${projectContext('web')}/userId/legal-values`, { value: 'x' }],
      ['DELETE', `${projectContext('web')}/userId/legal-values/x`, undefined],
    ] as const) {
      const refused = await call(pennon, method, url, body)
      assert.equal(refused.status, 404, `${method} ${url}`)
      assert.deepEqual(withoutId(refused.body), errorOf('NotFoundError', 'Context field "userId" does not belong to project "web".'))
    }
    assert.equal((await call(pennon, 'PUT', `${projectContext('default')}/tier`, {})).status, 404)
    const changed = await eventMark(pennon)
    // A project's API keeps its field in the project, whatever the body says.
    assertEmpty(
      await call(pennon, 'PUT', `${projectContext('web')}/tier`, {
        description: 'Support tier',
        legalValues: [{ value: 'gold' }],
        project: 'default',
      }),
    )
    assertEmpty(await call(pennon, 'POST', `${projectContext('web')}/tier/legal-values`, { value: 'silver' }))
    const described = { ...tier, description: 'Support tier' }
    const silvered = { ...described, legalValues: [{ value: 'gold' }, { value: 'silver' }] }
    assert.deepEqual(
      (await changed.since()).map((event) => [event.type, event.data, event.preData]),
      [
        ['context-field-updated', described, tier],
        ['context-field-updated', silvered, described],
      ],
    )

    // A project with fields of its own stays until they go (or move).
    const kept = await call(pennon, 'DELETE', '/api/admin/projects/web')
    assert.equal(kept.status, 409)
    assert.deepEqual(
      withoutId(kept.body),
      errorOf('InvalidOperationError', 'Project "web" still has context fields of its own: delete them or move them first.'),
    )
    // The root API can move a field to another project; an unknown one is refused.
    const ghost = await call(pennon, 'PUT', `${CONTEXT}/tier`, { project: 'ghost' })
    assert.equal(ghost.status, 400)
    assert.deepEqual(
      withoutId(ghost.body),
      errorOf('ValidationError', 'The `/body/project` property must name an existing project. You sent "ghost".', {
        details: [{ path: '/body/project', message: 'The `/body/project` property must name an existing project. You sent "ghost".' }],
      }),
    )
    assertEmpty(
      await call(pennon, 'PUT', `${CONTEXT}/tier`, { project: 'default', legalValues: silvered.legalValues, description: 'Support tier' }),
    )
    assert.deepEqual(await names(projectContext('default')), ['tier'])
    assertEmpty(await call(pennon, 'DELETE', '/api/admin/projects/web'))
    assertEmpty(await call(pennon, 'DELETE', `${projectContext('default')}/tier`))
    // The root API creates a project's field with `project`.
    assert.equal((await createField(pennon, { name: 'zone', project: 'default' })).project, 'default')
  })

  test('at the same time: legal values added to one field all stay; one create of a name wins; a project deleted while a field is created in it keeps both or neither', async (t) => {
    const pennon = await useTestApp(t, database)
    await createField(pennon, { name: 'plan' })
    const values = Array.from({ length: 20 }, (_, i) => `v${i}`)
    const added = await Promise.all(values.map((value) => call(pennon, 'POST', `${CONTEXT}/plan/legal-values`, { value })))
    assert.deepEqual(
      added.map((response) => response.status),
      values.map(() => 200),
    )
    const legal = jsonOk(await call(pennon, 'GET', `${CONTEXT}/plan`)).legalValues.map((legalValue: { value: string }) => legalValue.value)
    assert.deepEqual([...legal].sort(), [...values].sort())

    const creates = await Promise.all(Array.from({ length: 8 }, () => call(pennon, 'POST', CONTEXT, { name: 'tier' })))
    assert.deepEqual(creates.map((response) => response.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409])

    const outcomes = new Map<string, number>()
    for (let round = 0; round < 10; round++) {
      const project = `p${round}`
      await createProject(pennon, project)
      // Half the rounds send the delete first.
      const create = () => call(pennon, 'POST', projectContext(project), { name: `own-${round}` })
      const remove = () => call(pennon, 'DELETE', `/api/admin/projects/${project}`)
      const [field, deleted] =
        round % 2 === 0 ? await Promise.all([create(), remove()]) : (await Promise.all([remove(), create()])).reverse()
      const projects = jsonOk(await call(pennon, 'GET', '/api/admin/projects')).projects.map((p: { id: string }) => p.id)
      const exists = projects.includes(project)
      outcomes.set(`${field!.status}/${deleted!.status}`, (outcomes.get(`${field!.status}/${deleted!.status}`) ?? 0) + 1)
      if (field!.status === 201) {
        assert.deepEqual([deleted!.status, exists], [409, true], `round ${round}`)
      } else {
        assert.deepEqual([field!.status, deleted!.status, exists], [404, 200, false], `round ${round}`)
        assert.equal((await call(pennon, 'GET', `${CONTEXT}/own-${round}`)).status, 404)
      }
    }
    t.diagnostic(`create/delete outcomes [${database.name}]: ${[...outcomes].map(([key, count]) => `${key} ×${count}`).join(', ')}`)
  })

  test("a project's API on an unknown project is a 404, whatever the route", async (t) => {
    const pennon = await useTestApp(t, database)
    const P = projectContext('ghost')
    for (const [method, url, body] of [
      ['GET', P, undefined],
      ['GET', `${P}/userId`, undefined],
      ['GET', `${P}/userId/strategies`, undefined],
      ['POST', P, { name: 'tier' }],
      ['PUT', `${P}/userId`, {}],
      ['DELETE', `${P}/userId`, undefined],
      ['POST', `${P}/userId/legal-values`, { value: 'x' }],
      ['DELETE', `${P}/userId/legal-values/x`, undefined],
      ['POST', `${P}/validate`, { name: 'free' }],
    ] as const) {
      const response = await call(pennon, method, url, body)
      assert.equal(response.status, 404, `${method} ${url}`)
      assert.deepEqual(withoutId(response.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))
    }
  })
})
