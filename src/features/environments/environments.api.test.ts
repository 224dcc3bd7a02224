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
import { createFlag, createProject, eventMark, getFlag, projectPath } from '../../../test/helpers/flags.ts'

const ENVIRONMENTS = '/api/admin/environments'

const environment = (
  name: string,
  type: string,
  sortOrder: number,
  counts: { projectCount?: number; apiTokenCount?: number; enabledToggleCount?: number } = {},
) => ({
  name,
  type,
  enabled: true,
  protected: false,
  sortOrder,
  projectCount: counts.projectCount ?? 1,
  apiTokenCount: counts.apiTokenCount ?? 0,
  enabledToggleCount: counts.enabledToggleCount ?? 0,
  requiredApprovals: null,
})

/** The events one request wrote, as `{type, project, environment, data}`. */
async function eventsOf(pennon: TestApp, request: () => Promise<unknown>): Promise<unknown[]> {
  const mark = await eventMark(pennon)
  await request()
  return (await mark.since()).map((e) => ({
    type: e.type,
    project: e.project,
    environment: e.environment,
    featureName: e.featureName,
    data: e.data,
    preData: e.preData,
  }))
}

const flagEnvironmentNames = async (pennon: TestApp, flag: string, project = 'default') =>
  (await getFlag(pennon, flag, project)).environments.map((e: { name: string }) => e.name)

onEachDatabase('environments', (database) => {
  test('a fresh instance has development and production, in project default; one environment reads alone', async (t) => {
    const pennon = await useTestApp(t, database)
    const list = await call(pennon, 'GET', ENVIRONMENTS)
    assert.equal(list.status, 200)
    assert.equal(list.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(list.body, {
      version: 1,
      environments: [environment('development', 'development', 2), environment('production', 'production', 3)],
    })

    const one = await call(pennon, 'GET', `${ENVIRONMENTS}/production`)
    assert.equal(one.status, 200)
    assert.deepEqual(one.body, environment('production', 'production', 3))
    const unknown = await call(pennon, 'GET', `${ENVIRONMENTS}/staging`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Environment "staging" does not exist.'))
  })

  test('counts: projects, API tokens, and active flags enabled there', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    await apiToken(pennon, 'client', 'dev-client')
    await call(pennon, 'POST', '/api/admin/api-tokens', {
      tokenName: 'prod-frontend',
      type: 'frontend',
      environment: 'production',
      projects: ['shop'],
    })
    for (const name of ['on-1', 'on-2', 'archived']) {
      await createFlag(pennon, name)
      assert.equal((await call(pennon, 'POST', `${projectPath()}/features/${name}/environments/production/on`)).status, 200)
    }
    assert.equal((await call(pennon, 'DELETE', `${projectPath()}/features/archived`)).status, 202)
    assert.deepEqual((await call(pennon, 'GET', ENVIRONMENTS)).body.environments, [
      environment('development', 'development', 2, { projectCount: 2, apiTokenCount: 1 }),
      environment('production', 'production', 3, { projectCount: 2, apiTokenCount: 1, enabledToggleCount: 2 }),
    ])

    const forShop = await call(pennon, 'GET', `${ENVIRONMENTS}/project/shop`)
    assert.equal(forShop.status, 200)
    const projectEnvironment = (name: string, sortOrder: number, projectApiTokenCount: number, projectEnabledToggleCount: number) => ({
      name,
      type: name,
      enabled: true,
      protected: false,
      sortOrder,
      visible: true,
      projectApiTokenCount,
      projectEnabledToggleCount,
    })
    // The client token reads every project in development; the frontend token reads shop in production.
    assert.deepEqual(forShop.body, {
      version: 1,
      environments: [projectEnvironment('development', 2, 1, 0), projectEnvironment('production', 3, 1, 0)],
    })
    assert.deepEqual((await call(pennon, 'GET', `${ENVIRONMENTS}/project/default`)).body.environments, [
      projectEnvironment('development', 2, 1, 0),
      projectEnvironment('production', 3, 0, 2),
    ])
    const unknown = await call(pennon, 'GET', `${ENVIRONMENTS}/project/ghost`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))
  })

  test('create: an admin makes a new environment (201, Location, event); it joins no project until added', async (t) => {
    const pennon = await useTestApp(t, database)
    let created!: Awaited<ReturnType<typeof call>>
    const events = await eventsOf(
      pennon,
      async () => (created = await call(pennon, 'POST', ENVIRONMENTS, { name: 'staging', type: 'test' })),
    )
    assert.equal(created.status, 201)
    assert.equal(created.headers.location, 'environments/staging')
    assert.deepEqual(created.body, environment('staging', 'test', 4, { projectCount: 0 }))
    const data = { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 4 }
    assert.deepEqual(events, [
      { type: 'environment-created', project: null, environment: 'staging', featureName: null, data, preData: null },
    ])
    assert.deepEqual((await call(pennon, 'GET', `${ENVIRONMENTS}/staging`)).body, created.body)

    const explicit = await call(pennon, 'POST', ENVIRONMENTS, { name: 'qa', type: 'test', sortOrder: 0, enabled: false })
    assert.equal(explicit.status, 201)
    assert.deepEqual({ sortOrder: explicit.body.sortOrder, enabled: explicit.body.enabled }, { sortOrder: 0, enabled: false })
    assert.deepEqual(
      (await call(pennon, 'GET', ENVIRONMENTS)).body.environments.map((e: { name: string }) => e.name),
      ['qa', 'development', 'production', 'staging'],
    )

    // A new project starts in every enabled environment; staging is enabled, qa is not.
    await createProject(pennon, 'later')
    await createFlag(pennon, 'late-flag', 'later')
    assert.deepEqual(await flagEnvironmentNames(pennon, 'late-flag', 'later'), ['development', 'production', 'staging'])
  })

  test('create refuses: a taken name (409), names and types that are not URL-friendly, wrong types (400)', async (t) => {
    const pennon = await useTestApp(t, database)
    const taken = await call(pennon, 'POST', ENVIRONMENTS, { name: 'production', type: 'production' })
    assert.equal(taken.status, 409)
    assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', 'An environment named "production" already exists.'))

    const badName = await call(pennon, 'POST', ENVIRONMENTS, { name: 'my env', type: 'test' })
    assert.equal(badName.status, 400)
    const nameMessage = `The \`/body/name\` property must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or ".."). You sent "my env".`
    assert.deepEqual(withoutId(badName.body), {
      name: 'ValidationError',
      message: nameMessage,
      details: [{ path: '/body/name', message: nameMessage }],
    })
    const emptyType = await call(pennon, 'POST', ENVIRONMENTS, { name: 'ok', type: '' })
    assert.equal(emptyType.status, 400)
    assert.equal(emptyType.body.details[0].path, '/body/type')

    const wrongTypes = await call(pennon, 'POST', ENVIRONMENTS, { name: 'ok', type: 'test', sortOrder: '1', enabled: 'yes' })
    assert.equal(wrongTypes.status, 400)
    assert.deepEqual(
      wrongTypes.body.details.map((d: { path: string }) => d.path),
      ['/body/enabled', '/body/sortOrder'],
    )
    assert.equal((await call(pennon, 'GET', `${ENVIRONMENTS}/ok`)).status, 404)
  })

  test('a project gains an environment: its flags get it, disabled; adding it again is a 409', async (t) => {
    const pennon = await useTestApp(t, database)
    await call(pennon, 'POST', ENVIRONMENTS, { name: 'staging', type: 'test' })
    await createFlag(pennon, 'existing')
    const events = await eventsOf(pennon, async () => {
      const added = await call(pennon, 'POST', `${projectPath()}/environments`, { environment: 'staging' })
      assert.equal(added.status, 200)
      assert.equal(added.text, '')
    })
    assert.deepEqual(events, [
      { type: 'project-environment-added', project: 'default', environment: 'staging', featureName: null, data: null, preData: null },
    ])
    const staging = (await getFlag(pennon, 'existing')).environments[2]
    assert.deepEqual(staging, {
      name: 'staging',
      lastSeenAt: null,
      enabled: false,
      type: 'test',
      sortOrder: 4,
      variantCount: 0,
      strategies: [],
      variants: [],
      hasStrategies: false,
      hasEnabledStrategies: false,
    })
    await createFlag(pennon, 'newer')
    assert.deepEqual(await flagEnvironmentNames(pennon, 'newer'), ['development', 'production', 'staging'])

    const again = await call(pennon, 'POST', `${projectPath()}/environments`, { environment: 'staging' })
    assert.equal(again.status, 409)
    assert.deepEqual(
      withoutId(again.body),
      errorOf('NameExistsError', `Environment "staging" is already one of project "default"'s environments.`),
    )
    const unknownEnvironment = await call(pennon, 'POST', `${projectPath()}/environments`, { environment: 'nowhere' })
    assert.equal(unknownEnvironment.status, 404)
    assert.deepEqual(withoutId(unknownEnvironment.body), errorOf('NotFoundError', 'Environment "nowhere" does not exist.'))
    const unknownProject = await call(pennon, 'POST', `${projectPath('ghost')}/environments`, { environment: 'staging' })
    assert.equal(unknownProject.status, 404)
    assert.deepEqual(withoutId(unknownProject.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))
    const unsupported = await call(pennon, 'POST', `${projectPath()}/environments`, {
      environment: 'staging',
      defaultStrategy: { name: 'default' },
    })
    assert.equal(unsupported.status, 400)
    assert.equal(unsupported.body.details[0].path, '/body/defaultStrategy')
  })

  test('a project loses an environment: its flags lose their state, strategies and variants there; never its last one', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'f')
    const place = `${projectPath()}/features/f/environments/production`
    assert.equal((await call(pennon, 'POST', `${place}/on`)).status, 200)
    assert.equal((await call(pennon, 'PUT', `${place}/variants`, [{ name: 'a' }])).status, 200)

    const events = await eventsOf(pennon, async () =>
      assert.equal((await call(pennon, 'DELETE', `${projectPath()}/environments/production`)).status, 200),
    )
    assert.deepEqual(events, [
      { type: 'project-environment-removed', project: 'default', environment: 'production', featureName: null, data: null, preData: null },
    ])
    assert.deepEqual(await flagEnvironmentNames(pennon, 'f'), ['development'])
    assert.equal((await call(pennon, 'GET', `${place}/strategies`)).status, 404)
    assert.deepEqual(await pennon.database.db.selectFrom('feature_strategies').select('id').execute(), [])

    // Added back, it starts afresh.
    assert.equal((await call(pennon, 'POST', `${projectPath()}/environments`, { environment: 'production' })).status, 200)
    const back = await call(pennon, 'GET', place)
    assert.equal(back.status, 200)
    assert.deepEqual([back.body.enabled, back.body.strategies, back.body.variants], [false, [], []])

    assert.equal((await call(pennon, 'DELETE', `${projectPath()}/environments/production`)).status, 200)
    const last = await call(pennon, 'DELETE', `${projectPath()}/environments/development`)
    assert.equal(last.status, 409)
    assert.deepEqual(
      withoutId(last.body),
      errorOf('InvalidOperationError', `Environment "development" is project "default"'s last environment: a project keeps at least one.`),
    )
    const notThere = await call(pennon, 'DELETE', `${projectPath()}/environments/production`)
    assert.equal(notThere.status, 404)
    assert.deepEqual(
      withoutId(notThere.body),
      errorOf('NotFoundError', `Environment "production" is not one of project "default"'s environments.`),
    )
  })

  test('permissions: anyone with an admin credential reads; only an admin manages environments', async (t) => {
    const pennon = await useTestApp(t, database)
    const editor = await serviceAccountToken(pennon, 2)
    const viewer = await serviceAccountToken(pennon, 3)
    for (const token of [editor, viewer]) {
      for (const url of [ENVIRONMENTS, `${ENVIRONMENTS}/development`, `${ENVIRONMENTS}/project/default`]) {
        assert.equal((await call(pennon, 'GET', url, undefined, { token })).status, 200, url)
      }
      for (const [method, url, body] of [
        ['POST', ENVIRONMENTS, { name: 'x', type: 'test' }],
        ['POST', `${projectPath()}/environments`, { environment: 'production' }],
        ['DELETE', `${projectPath()}/environments/production`, undefined],
      ] as const) {
        const refused = await call(pennon, method, url, body, { token })
        assert.equal(refused.status, 403, `${method} ${url}`)
        const where = method === 'DELETE' ? ' in the "production" environment' : ''
        assert.deepEqual(
          withoutId(refused.body),
          errorOf('NoAccessError', `Missing permission: this operation needs "ADMIN"${where}.`, { permissions: ['ADMIN'] }),
        )
      }
    }
    const admin = await serviceAccountToken(pennon, 1)
    assert.equal((await call(pennon, 'POST', ENVIRONMENTS, { name: 'x', type: 'test' }, { token: admin })).status, 201)
  })
})
