import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import {
  archive,
  assertInvariant,
  createFlag,
  createFlags,
  createProject,
  deleteFlags,
  depend,
  dependencyRows,
  eventMark,
  flagEvent,
  fromOneRequest,
  getFlag,
  projectPath,
  revive,
} from '../../../test/helpers/flags.ts'

const archiveOne = (pennon: Parameters<typeof call>[0], name: string, project = 'default', token?: string) =>
  call(pennon, 'DELETE', `${projectPath(project)}/features/${name}`, undefined, token === undefined ? {} : { token })

const activeNames = async (pennon: Parameters<typeof call>[0], project = 'default') =>
  (await call(pennon, 'GET', `${projectPath(project)}/features`)).body.features.map((flag: { name: string }) => flag.name)

onEachDatabase('archive', (database) => {
  test('archive one: 202 with no body, feature-archived; again: 202 and no event', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['keep', 'retire'])
    const mark = await eventMark(pennon)
    const response = await archiveOne(pennon, 'retire')
    assert.equal(response.status, 202)
    assert.equal(response.text, '')
    assert.equal(response.headers['content-type'], undefined)
    assert.deepEqual(fromOneRequest(await mark.since()), [flagEvent('feature-archived', 'retire')])
    assert.deepEqual(await activeNames(pennon), ['keep'])
    const retired = await getFlag(pennon, 'retire')
    assert.equal(retired.archived, true)

    const again = await eventMark(pennon)
    assert.equal((await archiveOne(pennon, 'retire')).status, 202)
    assert.deepEqual(await again.since(), [])
    assert.equal((await getFlag(pennon, 'retire')).archivedAt, retired.archivedAt)
  })

  test('archive one: 404 unknown, 409 in another project, 409 while other flags depend on it', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlags(pennon, ['parent', 'kid'])
    await createFlag(pennon, 'foreign', 'other')
    await depend(pennon, 'kid', 'parent')
    const mark = await eventMark(pennon)

    const unknown = await archiveOne(pennon, 'ghost')
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', `There's no flag named "ghost" in project "default".`))
    const noProject = await archiveOne(pennon, 'parent', 'nowhere')
    assert.equal(noProject.status, 404)
    assert.deepEqual(withoutId(noProject.body), errorOf('NotFoundError', 'Project "nowhere" does not exist.'))
    const foreign = await archiveOne(pennon, 'foreign')
    assert.equal(foreign.status, 409)
    assert.deepEqual(
      withoutId(foreign.body),
      errorOf(
        'InvalidOperationError',
        'Cannot archive flag "foreign": it belongs to project "other", not to project "default". Nothing was changed.',
      ),
    )
    const parent = await archiveOne(pennon, 'parent')
    assert.equal(parent.status, 409)
    assert.deepEqual(
      withoutId(parent.body),
      errorOf(
        'InvalidOperationError',
        'Cannot archive flag "parent": other flags depend on it. Archive those flags in the same batch, or remove their dependencies first. Nothing was changed.',
      ),
    )
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(await activeNames(pennon), ['kid', 'parent'])
  })

  test('archiving a child removes its dependency: dependencies-removed, then archived, in one group', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['parent', 'kid', 'sibling'])
    await depend(pennon, 'kid', 'parent')
    await depend(pennon, 'sibling', 'parent')
    const mark = await eventMark(pennon)
    assert.equal((await archiveOne(pennon, 'kid')).status, 202)
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-dependencies-removed', 'kid'),
      flagEvent('feature-archived', 'kid'),
    ])
    assert.deepEqual(await dependencyRows(pennon), [{ child: 'sibling', parent: 'parent', enabled: true, variants: [] }])
    assert.deepEqual((await getFlag(pennon, 'parent')).children, ['sibling'])
    await assertInvariant(pennon)
  })

  test('archive many: the whole family at once, unknown and archived names skipped, events in one group', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['p1', 'c1', 'c2', 'p2', 'c3', 'lone', 'old'])
    await depend(pennon, 'c1', 'p1')
    await depend(pennon, 'c2', 'p1')
    await depend(pennon, 'c3', 'p2')
    assert.equal((await archive(pennon, ['old'])).status, 202)
    const mark = await eventMark(pennon)
    const response = await archive(pennon, ['p1', 'c2', 'ghost', 'old', 'c1', 'p1', 'lone'])
    assert.equal(response.status, 202)
    assert.equal(response.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-dependencies-removed', 'c1'),
      flagEvent('feature-dependencies-removed', 'c2'),
      flagEvent('feature-archived', 'c1'),
      flagEvent('feature-archived', 'c2'),
      flagEvent('feature-archived', 'lone'),
      flagEvent('feature-archived', 'p1'),
    ])
    assert.deepEqual(await dependencyRows(pennon), [{ child: 'c3', parent: 'p2', enabled: true, variants: [] }])
    assert.deepEqual(await activeNames(pennon), ['c3', 'p2'])
    await assertInvariant(pennon)

    const empty = await eventMark(pennon)
    assert.equal((await archive(pennon, [])).status, 202)
    assert.equal((await archive(pennon, ['ghost', 'old'])).status, 202)
    assert.deepEqual(await empty.since(), [])
  })

  test('archive many refuses, changing nothing: foreign flags (naming their projects), orphaned children, unknown project', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createProject(pennon, 'third')
    await createFlags(pennon, ['p1', 'c1', 'c2', 'p2', 'c3', 'lone'])
    await createFlag(pennon, 'o1', 'other')
    await createFlag(pennon, 'o2', 'third')
    await depend(pennon, 'c1', 'p1')
    await depend(pennon, 'c2', 'p1')
    await depend(pennon, 'c3', 'p2')
    const mark = await eventMark(pennon)

    const foreign = await archive(pennon, ['lone', 'o2', 'o1'])
    assert.equal(foreign.status, 409)
    assert.deepEqual(
      withoutId(foreign.body),
      errorOf(
        'InvalidOperationError',
        'Cannot archive flags "o1", "o2": they belong to projects "other", "third", not to project "default". Nothing was changed.',
      ),
    )
    const orphans = await archive(pennon, ['lone', 'p2', 'p1', 'c1'])
    assert.equal(orphans.status, 409)
    assert.deepEqual(
      withoutId(orphans.body),
      errorOf(
        'InvalidOperationError',
        'Cannot archive flags "p1", "p2": other flags depend on them. Archive those flags in the same batch, or remove their dependencies first. Nothing was changed.',
      ),
    )
    const noProject = await archive(pennon, ['lone'], 'nowhere')
    assert.equal(noProject.status, 404)
    assert.deepEqual(withoutId(noProject.body), errorOf('NotFoundError', 'Project "nowhere" does not exist.'))
    const badBody = await archive(pennon, [1])
    assert.equal(badBody.status, 400)
    assert.equal(badBody.body.message, 'The `/body/features/0` property must be string. You sent 1.')

    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(await activeNames(pennon), ['c1', 'c2', 'c3', 'lone', 'p1', 'p2'])
    assert.equal((await dependencyRows(pennon)).length, 3)
  })

  test('batches of 40,000 names (more than SQLite binds in one statement) archive, revive and delete', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['big-parent', 'big-kid', 'big-lone'])
    await depend(pennon, 'big-kid', 'big-parent')
    const ghosts = Array.from({ length: 40_000 }, (_, i) => `ghost-${i}`)
    const mark = await eventMark(pennon)
    assert.equal((await archive(pennon, [...ghosts, 'big-parent'])).status, 409)
    assert.equal((await archive(pennon, [...ghosts, 'big-parent', 'big-kid', 'big-lone'])).status, 202)
    assert.equal((await revive(pennon, [...ghosts, 'big-lone'])).status, 200)
    assert.equal((await deleteFlags(pennon, [...ghosts, 'big-parent', 'big-lone'])).status, 200)
    assert.deepEqual(
      (await mark.since()).map((event) => [event.type, event.featureName]),
      [
        ['feature-dependencies-removed', 'big-kid'],
        ['feature-archived', 'big-kid'],
        ['feature-archived', 'big-lone'],
        ['feature-archived', 'big-parent'],
        ['feature-revived', 'big-lone'],
        ['feature-deleted', 'big-parent'],
      ],
    )
    assert.deepEqual(await activeNames(pennon), ['big-lone'])
  })

  test('revive: archived flags of the project come back without their dependencies', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlags(pennon, ['p1', 'c1', 'active'])
    await createFlag(pennon, 'o1', 'other')
    await depend(pennon, 'c1', 'p1')
    assert.equal((await archive(pennon, ['p1', 'c1'])).status, 202)
    const mark = await eventMark(pennon)

    const response = await revive(pennon, ['c1', 'p1', 'active', 'ghost', 'c1'])
    assert.equal(response.status, 200)
    assert.equal(response.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [flagEvent('feature-revived', 'c1'), flagEvent('feature-revived', 'p1')])
    assert.deepEqual(await activeNames(pennon), ['active', 'c1', 'p1'])
    assert.deepEqual(await dependencyRows(pennon), [])
    const revived = await getFlag(pennon, 'c1')
    assert.equal(revived.archived, false)
    assert.equal('archivedAt' in revived, false)

    assert.equal((await archive(pennon, ['o1'], 'other')).status, 202)
    const again = await eventMark(pennon)
    assert.equal((await revive(pennon, ['c1'])).status, 200)
    const foreign = await revive(pennon, ['o1'])
    assert.equal(foreign.status, 409)
    assert.deepEqual(
      withoutId(foreign.body),
      errorOf(
        'InvalidOperationError',
        'Cannot revive flag "o1": it belongs to project "other", not to project "default". Nothing was changed.',
      ),
    )
    assert.equal((await revive(pennon, ['o1'], 'nowhere')).status, 404)
    assert.deepEqual(await again.since(), [])
  })

  test('delete: archived flags of the project go for good, with the flag as preData; active ones stay', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlags(pennon, ['gone', 'also-gone', 'active'])
    await createFlag(pennon, 'o1', 'other')
    assert.equal((await archive(pennon, ['gone', 'also-gone'])).status, 202)
    const gone = await getFlag(pennon, 'gone')
    const alsoGone = await getFlag(pennon, 'also-gone')
    const mark = await eventMark(pennon)

    const response = await deleteFlags(pennon, ['gone', 'active', 'ghost', 'also-gone'])
    assert.equal(response.status, 200)
    assert.equal(response.text, '')
    // The event keeps the flag as stored: what a read adds (links, potentiallyStale, lastSeenAt) is not in it.
    const withoutLinks = ({
      dependencies,
      children,
      environments,
      potentiallyStale,
      lastSeenAt,
      links,
      lifecycle,
      favorite,
      ...flag
    }: any) => flag
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-deleted', 'also-gone', 'default', null, withoutLinks(alsoGone)),
      flagEvent('feature-deleted', 'gone', 'default', null, withoutLinks(gone)),
    ])
    assert.equal((await mark.since())[0].preData.archived, true)
    assert.equal((await call(pennon, 'GET', `${projectPath()}/features/gone`)).status, 404)
    assert.deepEqual(await activeNames(pennon), ['active'])
    // The name is free again.
    await createFlag(pennon, 'gone')

    const foreign = await deleteFlags(pennon, ['o1'])
    assert.equal(foreign.status, 409)
    assert.deepEqual(
      withoutId(foreign.body),
      errorOf(
        'InvalidOperationError',
        'Cannot delete flag "o1": it belongs to project "other", not to project "default". Nothing was changed.',
      ),
    )
    assert.equal((await deleteFlags(pennon, [], 'nowhere')).status, 404)
  })

  test('permissions: archive and delete need DELETE_FEATURE, revive UPDATE_FEATURE', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['f1', 'f2', 'f3', 'f4'])
    const admin = await serviceAccountToken(pennon, 1)
    const editor = await serviceAccountToken(pennon, 2)
    const viewer = await serviceAccountToken(pennon, 3)
    const client = await apiToken(pennon, 'client')
    const needs = (permission: string) =>
      errorOf('NoAccessError', `Missing permission: this operation needs "${permission}".`, { permissions: [permission] })
    const requests = (token: string) =>
      [
        ['DELETE_FEATURE', () => archiveOne(pennon, 'f1', 'default', token)],
        ['DELETE_FEATURE', () => call(pennon, 'POST', `${projectPath()}/archive`, { features: ['f2'] }, { token })],
        ['UPDATE_FEATURE', () => call(pennon, 'POST', `${projectPath()}/revive`, { features: ['f2'] }, { token })],
        ['DELETE_FEATURE', () => call(pennon, 'POST', `${projectPath()}/delete`, { features: ['f2'] }, { token })],
      ] as const
    for (const token of [viewer, client]) {
      for (const [permission, send] of requests(token)) {
        const response = await send()
        assert.equal(response.status, 403)
        assert.deepEqual(withoutId(response.body), needs(permission))
      }
    }
    assert.deepEqual(await activeNames(pennon), ['f1', 'f2', 'f3', 'f4'])
    for (const token of [editor, admin]) {
      const statuses = []
      for (const [, send] of requests(token)) statuses.push((await send()).status)
      assert.deepEqual(statuses, [202, 202, 200, 200])
      assert.deepEqual(await activeNames(pennon), ['f2', 'f3', 'f4'])
      assert.equal((await revive(pennon, ['f1'])).status, 200)
    }
  })
})
