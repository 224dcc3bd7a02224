/**
 * A flag's life after its creation, through the real app on each database: PUT and PATCH of its
 * metadata, stale marking one by one and in bulk, flag types with their lifetimes, and
 * potentially stale flags (computed when read); each change with its events, and what SDKs see.
 */
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
import {
  archive,
  createFlag,
  createProject,
  eventMark,
  flagEvent,
  fromOneRequest,
  getFlag,
  projectPath,
} from '../../../test/helpers/flags.ts'

const flagPath = (name: string, project = 'default') => `${projectPath(project)}/features/${name}`
const validationError = (path: string, message: string) => ({ name: 'ValidationError', message, details: [{ path, message }] })

/** The flag as its events carry it: without what a read adds. */
const stored = ({ potentiallyStale, lastSeenAt, environments, dependencies, children, links, lifecycle, favorite, ...flag }: any) => flag

/** Moves a flag's creation `days` into the past (as if it had lived that long). */
async function age(pennon: TestApp, name: string, days: number): Promise<void> {
  const createdAt = new Date(Date.now() - days * 86_400_000).toISOString()
  await pennon.database.db.updateTable('features').set({ created_at: createdAt }).where('name', '=', name).execute()
}

onEachDatabase('flag metadata', (database) => {
  test('PUT replaces description, type, stale and impressionData; what is not sent takes its default; events for what changed', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await createFlag(pennon, 'checkout', 'default', { description: 'Old', type: 'experiment', impressionData: true })
    let mark = await eventMark(pennon)
    const put = await call(pennon, 'PUT', flagPath('checkout'), {
      description: 'New checkout',
      type: 'kill-switch',
      stale: true,
      impressionData: true,
    })
    assert.equal(put.status, 200, put.text)
    assert.equal(put.headers['content-type'], 'application/json; charset=utf-8')
    const after = { ...created, description: 'New checkout', type: 'kill-switch', stale: true }
    assert.deepEqual(put.body, { ...after, potentiallyStale: false })
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-metadata-updated', 'checkout', 'default', after, created),
      flagEvent('feature-stale-on', 'checkout'),
    ])
    assert.deepEqual(stored(await getFlag(pennon, 'checkout')), after)

    // Only the description: the rest goes back to the defaults, as the reference replaces.
    mark = await eventMark(pennon)
    const reset = await call(pennon, 'PUT', flagPath('checkout'), { description: '' })
    const defaults = { ...created, description: null, type: 'release', stale: false, impressionData: false }
    assert.deepEqual(reset.body, { ...defaults, potentiallyStale: false })
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-metadata-updated', 'checkout', 'default', defaults, after),
      flagEvent('feature-stale-off', 'checkout'),
    ])
    // The same again: 200, no event.
    mark = await eventMark(pennon)
    assert.equal((await call(pennon, 'PUT', flagPath('checkout'), { archived: false })).status, 200)
    assert.deepEqual(await mark.since(), [])

    const archiving = await call(pennon, 'PUT', flagPath('checkout'), { archived: true })
    assert.deepEqual(
      withoutId(archiving.body),
      validationError(
        '/body/archived',
        'The `/body/archived` property cannot archive a flag here: use DELETE on the flag or POST …/archive, which check its children.',
      ),
    )
    const badType = await call(pennon, 'PUT', flagPath('checkout'), { type: 'retired' })
    assert.equal(badType.status, 400)
    assert.equal(badType.body.details[0].path, '/body/type')
  })

  test('PUT with another name in the body is refused, before the flag is looked up; the same name, "" or none is a PUT as before', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await createFlag(pennon, 'checkout')
    const mark = await eventMark(pennon)
    const message =
      'The `/body/name` property cannot rename flag "checkout": a flag\'s name never changes. Send "checkout" or no name. You sent "basket".'
    const renaming = await call(pennon, 'PUT', flagPath('checkout'), { name: 'basket', description: 'Renamed?' })
    assert.equal(renaming.status, 400)
    assert.deepEqual(withoutId(renaming.body), validationError('/body/name', message))
    const ghost = await call(pennon, 'PUT', flagPath('ghost'), { name: 'other' })
    assert.equal(ghost.status, 400)
    assert.equal(ghost.body.details[0].path, '/body/name')
    const notText = await call(pennon, 'PUT', flagPath('checkout'), { name: 7 })
    assert.equal(notText.status, 400)
    assert.equal(notText.body.details[0].path, '/body/name')
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(stored(await getFlag(pennon, 'checkout')), created)

    for (const name of ['checkout', '']) {
      const same = await call(pennon, 'PUT', flagPath('checkout'), { name, description: `named ${JSON.stringify(name)}` })
      assert.equal(same.status, 200, same.text)
      assert.deepEqual(same.body, { ...created, description: `named ${JSON.stringify(name)}`, potentiallyStale: false })
    }
  })

  test('PUT and PATCH: unknown flag, flag of another project, archived flag; permissions', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'elsewhere', 'other')
    await createFlag(pennon, 'old')
    assert.equal((await archive(pennon, ['old'])).status, 202)
    for (const method of ['PUT', 'PATCH'] as const) {
      const body = method === 'PUT' ? {} : []
      const ghost = await call(pennon, method, flagPath('ghost'), body)
      assert.equal(ghost.status, 404)
      assert.deepEqual(withoutId(ghost.body), errorOf('NotFoundError', `There's no flag named "ghost" in project "default".`))
      const foreign = await call(pennon, method, flagPath('elsewhere'), body)
      assert.deepEqual(
        withoutId(foreign.body),
        errorOf('NotFoundError', `There's no flag named "elsewhere" in project "default", but there is one in project "other".`),
      )
      const noProject = await call(pennon, method, flagPath('elsewhere', 'nowhere'), body)
      assert.deepEqual(withoutId(noProject.body), errorOf('NotFoundError', 'Project "nowhere" does not exist.'))
      const archived = await call(pennon, method, flagPath('old'), body)
      assert.equal(archived.status, 400)
      assert.deepEqual(withoutId(archived.body), errorOf('ArchivedFeatureError', 'Flag "old" is archived: revive it before changing it.'))
      const viewer = await call(pennon, method, flagPath('elsewhere', 'other'), body, { token: await serviceAccountToken(pennon, 3) })
      assert.equal(viewer.status, 403)
      assert.deepEqual(viewer.body.permissions, ['UPDATE_FEATURE'])
    }
    const editor = await call(
      pennon,
      'PUT',
      flagPath('elsewhere', 'other'),
      { description: 'by an editor' },
      { token: await serviceAccountToken(pennon, 2) },
    )
    assert.equal(editor.status, 200, editor.text)
  })

  test('PATCH: JSON Patch on the metadata; the other fields cannot change; a bad result is a 400 that changes nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await createFlag(pennon, 'menu')
    const mark = await eventMark(pennon)
    const patched = await call(pennon, 'PATCH', flagPath('menu'), [
      { op: 'replace', path: '/stale', value: true },
      { op: 'replace', path: '/description', value: 'The menu' },
      { op: 'test', path: '/name', value: 'menu' },
    ])
    assert.equal(patched.status, 200, patched.text)
    const after = { ...created, description: 'The menu', stale: true }
    assert.deepEqual(patched.body, { ...after, potentiallyStale: false })
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-metadata-updated', 'menu', 'default', after, created),
      flagEvent('feature-stale-on', 'menu'),
    ])

    const renaming = await call(pennon, 'PATCH', flagPath('menu'), [
      { op: 'replace', path: '/name', value: 'other' },
      { op: 'replace', path: '/project', value: 'x' },
    ])
    const message = (key: string) =>
      `The patch changes \`${key}\`, which PATCH cannot change: only description, type, stale and impressionData can (variants, archiving and projects have routes of their own).`
    assert.deepEqual(withoutId(renaming.body), {
      name: 'ValidationError',
      message: `${message('name')} (1 more problem listed in details)`,
      details: [
        { path: '/body', message: message('name') },
        { path: '/body', message: message('project') },
      ],
    })
    const variants = await call(pennon, 'PATCH', flagPath('menu'), [{ op: 'add', path: '/variants', value: [] }])
    assert.deepEqual(withoutId(variants.body), validationError('/body', message('variants')))
    const wrongType = await call(pennon, 'PATCH', flagPath('menu'), [{ op: 'replace', path: '/stale', value: 'yes' }])
    assert.deepEqual(
      withoutId(wrongType.body),
      validationError('/body/stale', 'The `/body/stale` property must be boolean. You sent "yes".'),
    )
    const removed = await call(pennon, 'PATCH', flagPath('menu'), [{ op: 'remove', path: '/type' }])
    assert.equal(removed.status, 400)
    assert.equal(removed.body.details[0].path, '/body/type')
    const cannotApply = await call(pennon, 'PATCH', flagPath('menu'), [{ op: 'replace', path: '/nothing', value: 1 }])
    assert.equal(cannotApply.status, 400)
    assert.equal(cannotApply.body.details[0].path, '/body/0/path')
    assert.deepEqual(stored(await getFlag(pennon, 'menu')), after)
  })

  test('POST /projects/:projectId/stale: all or none, unknown names ignored, an event per flag that changes; SDKs see stale', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    for (const name of ['a', 'b', 'c']) await createFlag(pennon, name)
    await createFlag(pennon, 'elsewhere', 'other')
    assert.equal((await call(pennon, 'PUT', flagPath('c'), { stale: true })).status, 200)
    const mark = await eventMark(pennon)
    const marked = await call(pennon, 'POST', `${projectPath()}/stale`, { features: ['a', 'c', 'ghost', 'a'], stale: true })
    assert.equal(marked.status, 202, marked.text)
    assert.equal(marked.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [flagEvent('feature-stale-on', 'a')])
    const list = (await call(pennon, 'GET', `${projectPath()}/features`)).body.features
    assert.deepEqual(
      list.map((flag: any) => [flag.name, flag.stale]),
      [
        ['a', true],
        ['b', false],
        ['c', true],
      ],
    )

    const client = await call(pennon, 'GET', '/api/client/features', undefined, { token: await apiToken(pennon, 'client') })
    assert.deepEqual(
      client.body.features.filter((flag: any) => flag.project === 'default').map((flag: any) => [flag.name, flag.stale]),
      [
        ['a', true],
        ['b', false],
        ['c', true],
      ],
    )

    const foreign = await call(pennon, 'POST', `${projectPath()}/stale`, { features: ['b', 'elsewhere'], stale: true })
    assert.equal(foreign.status, 409)
    assert.deepEqual(
      withoutId(foreign.body),
      errorOf('InvalidOperationError', 'Some of these flags belong to other projects ("other"), not to "default": nothing was changed.'),
    )
    assert.equal((await getFlag(pennon, 'b')).stale, false)
    const unmark = await call(pennon, 'POST', `${projectPath()}/stale`, { features: ['a', 'b', 'c'], stale: false })
    assert.equal(unmark.status, 202)
    assert.deepEqual(
      (await call(pennon, 'GET', `${projectPath()}/features`)).body.features.map((flag: any) => flag.stale),
      [false, false, false],
    )
    assert.equal((await call(pennon, 'POST', `${projectPath('nowhere')}/stale`, { features: [], stale: true })).status, 404)
    const noStale = await call(pennon, 'POST', `${projectPath()}/stale`, { features: ['a'] })
    assert.deepEqual(
      withoutId(noStale.body),
      validationError('/body/stale', 'The `/body/stale` property is required. It was not present on the data you sent.'),
    )
  })

  test("flag types: the reference's six with their lifetimes; a flag older than its type's lifetime is potentially stale, computed when read", async (t) => {
    const pennon = await useTestApp(t, database)
    const types = await call(pennon, 'GET', '/api/admin/feature-types', undefined, { token: await serviceAccountToken(pennon, 3) })
    assert.equal(types.status, 200)
    assert.deepEqual(types.body, {
      version: 1,
      types: [
        {
          id: 'release',
          name: 'Release',
          description: 'Roll out new or incomplete features. Expected lifetime ~40 days',
          lifetimeDays: 40,
        },
        { id: 'experiment', name: 'Experiment', description: 'A/B and multivariate testing. Expected lifetime ~40 days', lifetimeDays: 40 },
        {
          id: 'operational',
          name: 'Operational',
          description: 'Transition between technical implementations with minimal risk. Expected lifetime: ~7 days',
          lifetimeDays: 7,
        },
        {
          id: 'kill-switch',
          name: 'Kill switch',
          description: 'Quickly disable certain functionalities or features. Expected lifetime: permanent',
          lifetimeDays: null,
        },
        {
          id: 'permission',
          name: 'Permission',
          description: 'Control feature access based on user roles or entitlements. Expected lifetime: permanent',
          lifetimeDays: null,
        },
        {
          id: 'sunset',
          name: 'Sunset',
          description: 'Coordinate the planned removal of an existing feature. Expected lifetime: ~90 days',
          lifetimeDays: 90,
        },
      ],
    })

    await createFlag(pennon, 'young-release')
    await createFlag(pennon, 'old-release')
    await createFlag(pennon, 'old-switch', 'default', { type: 'kill-switch' })
    await createFlag(pennon, 'old-stale')
    await age(pennon, 'old-release', 41)
    await age(pennon, 'old-switch', 400)
    await age(pennon, 'old-stale', 41)
    assert.equal((await call(pennon, 'PUT', flagPath('old-stale'), { stale: true })).status, 200)
    const potentially = async () =>
      (await call(pennon, 'GET', `${projectPath()}/features`)).body.features
        .filter((flag: any) => flag.potentiallyStale)
        .map((flag: any) => flag.name)
    assert.deepEqual(await potentially(), ['old-release'])
    assert.equal((await getFlag(pennon, 'old-release')).potentiallyStale, true)
    assert.equal(
      (await call(pennon, 'GET', `${projectPath()}/features?offset=0`)).body.features.find((flag: any) => flag.name === 'old-release')
        .potentiallyStale,
      true,
    )
    // The project's stale and potentially stale flags, paged by the server.
    const staleView = await call(pennon, 'GET', `${projectPath()}/features?stale=true`)
    assert.deepEqual(
      staleView.body.features.map((flag: any) => [flag.name, flag.stale, flag.potentiallyStale]),
      [
        ['old-release', false, true],
        ['old-stale', true, false],
      ],
    )
    assert.equal(staleView.body.total, 2)

    // A shorter lifetime counts at once; null and 0 mean never.
    const mark = await eventMark(pennon)
    const releaseType = types.body.types[0]
    const shorter = await call(pennon, 'PUT', '/api/admin/feature-types/release/lifetime', { lifetimeDays: 0 })
    assert.equal(shorter.status, 200, shorter.text)
    assert.deepEqual(shorter.body, { ...releaseType, lifetimeDays: null })
    assert.deepEqual(fromOneRequest(await mark.since()), [
      {
        type: 'feature-type-updated',
        featureName: null,
        project: null,
        data: { ...releaseType, lifetimeDays: null },
        preData: releaseType,
      },
    ])
    assert.deepEqual(await potentially(), [])
    assert.equal((await call(pennon, 'PUT', '/api/admin/feature-types/kill-switch/lifetime', { lifetimeDays: 365 })).status, 200)
    assert.deepEqual(await potentially(), ['old-switch'])
    assert.deepEqual(
      (await call(pennon, 'GET', `${projectPath()}/features?stale=true`)).body.features.map((flag: any) => flag.name),
      ['old-stale', 'old-switch'],
    )

    const unknown = await call(pennon, 'PUT', '/api/admin/feature-types/retired/lifetime', { lifetimeDays: 3 })
    assert.deepEqual(
      withoutId(unknown.body),
      errorOf('NotFoundError', 'No flag type is called "retired". GET /api/admin/feature-types lists them.'),
    )
    const negative = await call(pennon, 'PUT', '/api/admin/feature-types/release/lifetime', { lifetimeDays: -1 })
    assert.deepEqual(
      withoutId(negative.body),
      validationError('/body/lifetimeDays', 'The `/body/lifetimeDays` property must be >= 0. You sent -1.'),
    )
    const editor = await call(
      pennon,
      'PUT',
      '/api/admin/feature-types/release/lifetime',
      { lifetimeDays: 3 },
      { token: await serviceAccountToken(pennon, 2) },
    )
    assert.equal(editor.status, 403)
    assert.deepEqual(editor.body.permissions, ['ADMIN'])
  })

  test('PUT /projects/:projectId: name and description, with project-updated; the id stays', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = (await call(pennon, 'POST', '/api/admin/projects', { id: 'shop', name: 'Shop' })).body
    const mark = await eventMark(pennon)
    const put = await call(pennon, 'PUT', projectPath('shop'), { name: 'The shop', description: 'Everything we sell' })
    assert.equal(put.status, 200, put.text)
    const after = { ...created, name: 'The shop', description: 'Everything we sell' }
    assert.deepEqual(put.body, after)
    assert.deepEqual(fromOneRequest(await mark.since()), [
      { type: 'project-updated', featureName: null, project: 'shop', data: after, preData: created },
    ])
    assert.deepEqual(
      (await call(pennon, 'GET', '/api/admin/projects')).body.projects.find((project: any) => project.id === 'shop'),
      { ...after, favorite: false },
    )
    const again = await eventMark(pennon)
    assert.equal((await call(pennon, 'PUT', projectPath('shop'), { name: 'The shop', description: 'Everything we sell' })).status, 200)
    assert.deepEqual(await again.since(), [])
    assert.equal((await call(pennon, 'PUT', projectPath('nowhere'), { name: 'x' })).status, 404)
    const empty = await call(pennon, 'PUT', projectPath('shop'), { name: '' })
    assert.deepEqual(
      withoutId(empty.body),
      validationError('/body/name', 'The `/body/name` property must NOT have fewer than 1 characters. You sent "".'),
    )
    const viewer = await call(pennon, 'PUT', projectPath('shop'), { name: 'x' }, { token: await serviceAccountToken(pennon, 3) })
    assert.deepEqual(viewer.body.permissions, ['UPDATE_PROJECT'])
  })
})
