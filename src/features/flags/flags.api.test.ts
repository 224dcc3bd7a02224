import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  allEvents,
  apiToken,
  call,
  errorOf,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  useTwoInstances,
  withoutId,
} from '../../../test/test-app.ts'
import { isUniqueViolation } from '../../db/db-errors.ts'
import { createFlagStore } from './flag-store.ts'
import {
  archive,
  createFlag,
  createFlags,
  createProject,
  depend,
  eventMark,
  flagEvent,
  fromOneRequest,
  getFlag,
  projectPath,
} from '../../../test/helpers/flags.ts'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

const validationError = (path: string, message: string) => ({ name: 'ValidationError', message, details: [{ path, message }] })

onEachDatabase('flags', (database) => {
  test('create answers 201 with the flag and records feature-created with the same object', async (t) => {
    const pennon = await useTestApp(t, database)
    const mark = await eventMark(pennon)
    const created = await call(pennon, 'POST', `${projectPath()}/features`, {
      name: 'checkout-v2',
      description: 'New checkout',
      type: 'experiment',
      impressionData: true,
      unknownProperty: 'ignored',
    })
    assert.equal(created.status, 201)
    assert.equal(created.headers['content-type'], 'application/json; charset=utf-8')
    assert.match(created.body.createdAt, ISO)
    assert.equal(
      created.text,
      JSON.stringify({
        name: 'checkout-v2',
        description: 'New checkout',
        type: 'experiment',
        project: 'default',
        stale: false,
        createdAt: created.body.createdAt,
        impressionData: true,
        archived: false,
      }),
    )
    assert.deepEqual(fromOneRequest(await mark.since()), [flagEvent('feature-created', 'checkout-v2', 'default', created.body)])
    assert.equal((await mark.since())[0].createdAt, created.body.createdAt)
  })

  test('defaults: type release, no impression data, an empty description is stored as null', async (t) => {
    const pennon = await useTestApp(t, database)
    const flag = await createFlag(pennon, 'plain', 'default', { description: '' })
    assert.deepEqual(flag, {
      name: 'plain',
      description: null,
      type: 'release',
      project: 'default',
      stale: false,
      createdAt: flag.createdAt,
      impressionData: false,
      archived: false,
    })
    for (const type of ['release', 'experiment', 'operational', 'kill-switch', 'permission']) {
      assert.equal((await createFlag(pennon, `t-${type}`, 'default', { type })).type, type)
    }
    assert.equal((await createFlag(pennon, 'null-description', 'default', { description: null })).description, null)
  })

  test('names: 1 to 100 URL-friendly characters, not "." or ".."', async (t) => {
    const pennon = await useTestApp(t, database)
    const post = (body: unknown) => call(pennon, 'POST', `${projectPath()}/features`, body)
    const urlFriendly = (sent: string) =>
      validationError(
        '/body/name',
        `The \`/body/name\` property must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or ".."). You sent ${JSON.stringify(sent)}.`,
      )
    for (const name of ['has space', 'slash/name', 'ümlaut', '.', '..', 'q?x', 'a#b']) {
      const response = await post({ name })
      assert.equal(response.status, 400, name)
      assert.deepEqual(withoutId(response.body), urlFriendly(name))
    }
    const empty = await post({ name: '' })
    assert.equal(empty.status, 400)
    assert.deepEqual(withoutId(empty.body), validationError('/body/name', 'The `/body/name` property must not be empty.'))
    const long = 'x'.repeat(101)
    const tooLong = await post({ name: long })
    assert.equal(tooLong.status, 400)
    assert.deepEqual(
      withoutId(tooLong.body),
      validationError('/body/name', `The \`/body/name\` property must be at most 100 characters long. You sent "${'x'.repeat(99)}….`),
    )
    assert.equal((await post({ name: 'x'.repeat(100) })).status, 201)
    assert.equal((await post({ name: "A-z_0.9!~*'()" })).status, 201)

    const missing = await post({ description: 'no name' })
    assert.equal(missing.status, 400)
    assert.deepEqual(
      withoutId(missing.body),
      validationError('/body/name', 'The `/body/name` property is required. It was not present on the data you sent.'),
    )
    const badType = await post({ name: 'typed', type: 'retired' })
    assert.equal(badType.status, 400)
    assert.deepEqual(
      withoutId(badType.body),
      validationError(
        '/body/type',
        'The `/body/type` property must be one of "release", "experiment", "operational", "kill-switch", "permission", "sunset". You sent "retired".',
      ),
    )
    const notString = await post({ name: 5, impressionData: 'yes' })
    assert.equal(notString.status, 400)
    assert.deepEqual(withoutId(notString.body).details, [
      { path: '/body/name', message: 'The `/body/name` property must be string. You sent 5.' },
      { path: '/body/impressionData', message: 'The `/body/impressionData` property must be boolean. You sent "yes".' },
    ])
    assert.equal((await allEvents(pennon)).filter((event) => event.type === 'feature-created').length, 2)
  })

  test('names are unique across projects, archived flags included; an unknown project is a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'taken', 'other')
    await createFlag(pennon, 'old')
    assert.equal((await archive(pennon, ['old'])).status, 202)
    const mark = await eventMark(pennon)

    const same = await call(pennon, 'POST', `${projectPath('other')}/features`, { name: 'taken' })
    assert.equal(same.status, 409)
    assert.deepEqual(withoutId(same.body), errorOf('NameExistsError', 'A flag named "taken" already exists in project "other".'))
    const elsewhere = await call(pennon, 'POST', `${projectPath()}/features`, { name: 'taken' })
    assert.equal(elsewhere.status, 409)
    assert.deepEqual(withoutId(elsewhere.body), errorOf('NameExistsError', 'A flag named "taken" already exists in project "other".'))
    const archived = await call(pennon, 'POST', `${projectPath('other')}/features`, { name: 'old' })
    assert.equal(archived.status, 409)
    assert.deepEqual(
      withoutId(archived.body),
      errorOf('NameExistsError', 'An archived flag named "old" already exists in project "default".'),
    )
    const caseDiffers = await call(pennon, 'POST', `${projectPath()}/features`, { name: 'Taken' })
    assert.equal(caseDiffers.status, 201)

    const noProject = await call(pennon, 'POST', `${projectPath('ghost')}/features`, { name: 'fresh' })
    assert.equal(noProject.status, 404)
    assert.deepEqual(withoutId(noProject.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))
    // As in the reference, a taken name is reported before an unknown project.
    assert.equal((await call(pennon, 'POST', `${projectPath('ghost')}/features`, { name: 'taken' })).status, 409)
    assert.deepEqual(
      (await mark.since()).map((event) => event.featureName),
      ['Taken'],
    )
  })

  test('concurrent creates of one name on two instances: one 201, the others 409', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    for (let round = 0; round < 5; round++) {
      const name = `race-${round}`
      const responses = await Promise.all(
        [first, second, first, second].map((pennon) => call(pennon, 'POST', `${projectPath()}/features`, { name })),
      )
      assert.deepEqual(responses.map((response) => response.status).sort(), [201, 409, 409, 409], name)
      for (const response of responses.filter((r) => r.status === 409)) {
        assert.deepEqual(
          withoutId(response.body),
          errorOf('NameExistsError', `A flag named "${name}" already exists in project "default".`),
        )
      }
    }
    const created = (await allEvents(first)).filter((event) => event.type === 'feature-created')
    assert.deepEqual(
      created.map((event) => event.featureName),
      ['race-0', 'race-1', 'race-2', 'race-3', 'race-4'],
    )
  })

  test('a duplicate insert is recognized as a unique violation by this driver (the race path of create)', async (t) => {
    const pennon = await useTestApp(t, database)
    const flag = await createFlag(pennon, 'twice')
    const error = await createFlagStore(pennon.database.db)
      .insert(flag)
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    assert.ok(error, 'the second insert fails')
    assert.equal(isUniqueViolation(error), true)
  })

  test('list: the active flags of the project, sorted by code point', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    const names = ['b', 'B', 'a', '_x', 'Z1', '~t', '-a', "'q", '0', 'a.b', 'ab', 'A', '(x)', '!x', '*']
    await createFlags(pennon, names)
    await createFlag(pennon, 'elsewhere', 'other')
    await createFlag(pennon, 'gone')
    assert.equal((await archive(pennon, ['gone'])).status, 202)

    const list = await call(pennon, 'GET', `${projectPath()}/features`)
    assert.equal(list.status, 200)
    assert.deepEqual(Object.keys(list.body), ['version', 'features'])
    assert.equal(list.body.version, 1)
    assert.deepEqual(
      list.body.features.map((flag: any) => flag.name),
      [...names].sort(),
    )
    assert.deepEqual(Object.keys(list.body.features[0]), [
      'name',
      'description',
      'type',
      'project',
      'stale',
      'createdAt',
      'impressionData',
      'archived',
      'potentiallyStale',
      'tags',
    ])
    assert.deepEqual(
      list.body.features[0],
      await (async () => {
        const { dependencies, children, environments, lastSeenAt, links, lifecycle, favorite, ...flag } = await getFlag(
          pennon,
          list.body.features[0].name,
        )
        // Untagged: an empty list (tags.api.test.ts lists tagged flags).
        return { ...flag, tags: [] }
      })(),
    )

    assert.deepEqual(
      (await call(pennon, 'GET', `${projectPath('other')}/features`)).body.features.map((flag: any) => flag.name),
      ['elsewhere'],
    )
    const unknown = await call(pennon, 'GET', `${projectPath('ghost')}/features`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))
  })

  test('get: the flag with its parent and its sorted children; 404 if unknown or in another project', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    const parent = await createFlag(pennon, 'parent')
    await createFlags(pennon, ['kid-b', 'kid-a'])
    await depend(pennon, 'kid-b', 'parent')
    assert.equal(
      (await call(pennon, 'POST', `${projectPath()}/features/kid-a/dependencies`, { feature: 'parent', variants: ['v1'] })).status,
      200,
    )

    const response = await call(pennon, 'GET', `${projectPath()}/features/parent`)
    assert.equal(response.status, 200)
    // A new flag is off, without strategies or variants, in each of its project's environments.
    const off = (name: string, sortOrder: number) => ({
      name,
      lastSeenAt: null,
      enabled: false,
      type: name,
      sortOrder,
      variantCount: 0,
      strategies: [],
      variants: [],
      hasStrategies: false,
      hasEnabledStrategies: false,
    })
    const environments = [off('development', 2), off('production', 3)]
    assert.equal(
      response.text,
      JSON.stringify({
        ...parent,
        potentiallyStale: false,
        favorite: false,
        lastSeenAt: null,
        environments,
        dependencies: [],
        children: ['kid-a', 'kid-b'],
        links: [],
        lifecycle: { stage: 'initial', enteredStageAt: parent.createdAt },
      }),
    )
    const child = await getFlag(pennon, 'kid-a')
    assert.deepEqual(child.dependencies, [{ feature: 'parent', enabled: true, variants: ['v1'] }])
    assert.deepEqual(child.children, [])

    await createFlag(pennon, 'foreign', 'other')
    const inOther = await call(pennon, 'GET', `${projectPath()}/features/foreign`)
    assert.equal(inOther.status, 404)
    assert.deepEqual(
      withoutId(inOther.body),
      errorOf('NotFoundError', `There's no flag named "foreign" in project "default", but there is one in project "other".`),
    )
    const unknown = await call(pennon, 'GET', `${projectPath()}/features/ghost`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', `There's no flag named "ghost" in project "default".`))

    await createFlag(pennon, 'retired')
    assert.equal((await archive(pennon, ['retired'])).status, 202)
    const retired = await getFlag(pennon, 'retired')
    assert.equal(retired.archived, true)
    assert.match(retired.archivedAt, ISO)
  })

  test('permissions: Admin and Editor create, Viewer and client tokens cannot; reads need any admin credential', async (t) => {
    const pennon = await useTestApp(t, database)
    const admin = await serviceAccountToken(pennon, 1)
    const editor = await serviceAccountToken(pennon, 2)
    const viewer = await serviceAccountToken(pennon, 3)
    const client = await apiToken(pennon, 'client')
    const post = (name: string, token: string) => call(pennon, 'POST', `${projectPath()}/features`, { name }, { token })

    assert.equal((await post('by-admin', admin)).status, 201)
    assert.equal((await post('by-editor', editor)).status, 201)
    const events = (await allEvents(pennon)).filter((event) => event.type === 'feature-created')
    assert.deepEqual(
      events.map((event) => event.createdBy.startsWith('sa-')),
      [true, true],
    )
    const needsCreate = errorOf('NoAccessError', 'Missing permission: this operation needs "CREATE_FEATURE".', {
      permissions: ['CREATE_FEATURE'],
    })
    for (const token of [viewer, client]) {
      const refused = await post('refused', token)
      assert.equal(refused.status, 403)
      assert.deepEqual(withoutId(refused.body), needsCreate)
    }

    for (const url of [`${projectPath()}/features`, `${projectPath()}/features/by-admin`]) {
      assert.equal((await call(pennon, 'GET', url, undefined, { token: viewer })).status, 200)
      const refused = await call(pennon, 'GET', url, undefined, { token: client })
      assert.equal(refused.status, 403)
      assert.deepEqual(
        withoutId(refused.body),
        errorOf(
          'NoAccessError',
          'This endpoint needs an admin API token or a service-account token: client and frontend tokens cannot use the admin API.',
          { permissions: [] },
        ),
      )
    }

    const anonymous = await call(pennon, 'POST', `${projectPath()}/features`, { name: 'anon' }, { token: null })
    assert.equal(anonymous.status, 401)
    assert.equal(anonymous.body.name, 'AuthenticationRequired')
    const noType = await call(pennon, 'POST', `${projectPath()}/features`, undefined, { raw: '{"name":"raw"}' })
    assert.equal(noType.status, 415)
    assert.deepEqual(
      withoutId(noType.body),
      errorOf('ContentTypeerror', 'No content type was sent. Accepted content types: application/json.'),
    )
  })
})
