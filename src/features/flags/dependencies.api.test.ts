import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import {
  addDependency,
  archive,
  assertInvariant,
  createFlag,
  createFlags,
  createProject,
  depend,
  dependencyRows,
  eventMark,
  flagEvent,
  fromOneRequest,
  getFlag,
  projectPath,
} from '../../../test/helpers/flags.ts'

const removeOne = (pennon: Parameters<typeof call>[0], child: string, parent: string, project = 'default') =>
  call(pennon, 'DELETE', `${projectPath(project)}/features/${child}/dependencies/${parent}`)
const removeAll = (pennon: Parameters<typeof call>[0], child: string, project = 'default') =>
  call(pennon, 'DELETE', `${projectPath(project)}/features/${child}/dependencies`)

onEachDatabase('dependencies', (database) => {
  test('add: 200 with no body, the row, the parent and child views, one event', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['p1', 'c1'])
    const mark = await eventMark(pennon)
    const added = await addDependency(pennon, 'c1', { feature: 'p1', extra: 'ignored' })
    assert.equal(added.status, 200)
    assert.equal(added.text, '')
    assert.equal(added.headers['content-type'], undefined)
    assert.deepEqual(await dependencyRows(pennon), [{ child: 'c1', parent: 'p1', enabled: true, variants: [] }])
    assert.deepEqual((await getFlag(pennon, 'c1')).dependencies, [{ feature: 'p1', enabled: true, variants: [] }])
    assert.deepEqual((await getFlag(pennon, 'p1')).children, ['c1'])
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-dependency-added', 'c1', 'default', { feature: 'p1', enabled: true }),
    ])
  })

  test('enabled and variants: stored as the reference does, echoed in the event only when sent', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['p1', 'c1', 'c2', 'c3', 'c4'])
    const mark = await eventMark(pennon)
    assert.equal((await addDependency(pennon, 'c1', { feature: 'p1', enabled: false, variants: ['x'] })).status, 200)
    assert.equal((await addDependency(pennon, 'c2', { feature: 'p1', variants: ['a', 'b'] })).status, 200)
    assert.equal((await addDependency(pennon, 'c3', { feature: 'p1', variants: [] })).status, 200)
    assert.equal((await addDependency(pennon, 'c4', { feature: 'p1', enabled: true })).status, 200)
    assert.deepEqual(await dependencyRows(pennon), [
      { child: 'c1', parent: 'p1', enabled: false, variants: [] },
      { child: 'c2', parent: 'p1', enabled: true, variants: ['a', 'b'] },
      { child: 'c3', parent: 'p1', enabled: true, variants: [] },
      { child: 'c4', parent: 'p1', enabled: true, variants: [] },
    ])
    const events = await mark.since()
    assert.deepEqual(
      events.map((event) => event.data),
      [
        { feature: 'p1', enabled: false, variants: ['x'] },
        { feature: 'p1', enabled: true, variants: ['a', 'b'] },
        { feature: 'p1', enabled: true, variants: [] },
        { feature: 'p1', enabled: true },
      ],
    )
    assert.equal(new Set(events.map((event) => event.groupId)).size, 4, 'one group per request')
  })

  test('a flag cannot depend on itself: 400 at /body/feature', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'solo')
    const response = await addDependency(pennon, 'solo', { feature: 'solo' })
    assert.equal(response.status, 400)
    const message = 'The `/body/feature` property names the flag itself ("solo"): a flag cannot depend on itself.'
    assert.deepEqual(withoutId(response.body), { name: 'ValidationError', message, details: [{ path: '/body/feature', message }] })
    assert.deepEqual(await dependencyRows(pennon), [])
  })

  test('both flags must be active flags of the URL project: 404 naming which', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlags(pennon, ['p1', 'c1', 'old-parent', 'old-child'])
    await createFlags(pennon, ['o1', 'o2'], 'other')
    assert.equal((await archive(pennon, ['old-parent', 'old-child'])).status, 202)
    const noChild = (name: string, project = 'default') =>
      errorOf('NotFoundError', `There's no active flag named "${name}" in project "${project}".`)
    const noParent = (name: string, project = 'default') =>
      errorOf('NotFoundError', `There's no active flag named "${name}" in project "${project}" to depend on.`)
    const cases: Array<[string, string, string, Record<string, unknown>]> = [
      ['ghost', 'p1', 'default', noChild('ghost')],
      ['c1', 'ghost', 'default', noParent('ghost')],
      ['c1', 'o1', 'default', noParent('o1')],
      ['o1', 'p1', 'default', noChild('o1')],
      ['o1', 'p1', 'other', noParent('p1', 'other')],
      ['c1', 'old-parent', 'default', noParent('old-parent')],
      ['old-child', 'p1', 'default', noChild('old-child')],
      ['ghost', 'ghost-parent', 'default', noChild('ghost')],
      ['c1', 'p1', 'nowhere', noChild('c1', 'nowhere')],
      ['c1', 'P1', 'default', noParent('P1')],
    ]
    for (const [child, parent, project, expected] of cases) {
      const response = await addDependency(pennon, child, { feature: parent }, project)
      assert.equal(response.status, 404, `${child} → ${parent} in ${project}`)
      assert.deepEqual(withoutId(response.body), expected)
    }
    assert.deepEqual(await dependencyRows(pennon), [])
  })

  test('one level only: a parent cannot get a parent, a child cannot become a parent (409)', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['top', 'mid', 'low', 'other-kid', 'free'])
    await depend(pennon, 'mid', 'top')
    await depend(pennon, 'other-kid', 'top')
    const mark = await eventMark(pennon)

    const parentGetsParent = await addDependency(pennon, 'top', { feature: 'free' })
    assert.equal(parentGetsParent.status, 409)
    assert.deepEqual(
      withoutId(parentGetsParent.body),
      errorOf(
        'InvalidOperationError',
        'Flag "top" cannot depend on another flag: "mid", "other-kid" depend on it, and dependencies are only one level deep.',
      ),
    )
    const childBecomesParent = await addDependency(pennon, 'low', { feature: 'mid' })
    assert.equal(childBecomesParent.status, 409)
    assert.deepEqual(
      withoutId(childBecomesParent.body),
      errorOf(
        'InvalidOperationError',
        'Flag "mid" cannot be a parent: it depends on "top" itself, and dependencies are only one level deep.',
      ),
    )
    // A cycle would need one of the two as well.
    const cycle = await addDependency(pennon, 'top', { feature: 'mid' })
    assert.equal(cycle.status, 409)
    assert.deepEqual(
      withoutId(cycle.body),
      errorOf(
        'InvalidOperationError',
        'Flag "top" cannot depend on another flag: "mid", "other-kid" depend on it, and dependencies are only one level deep.',
      ),
    )
    await depend(pennon, 'free', 'low')
    const single = await addDependency(pennon, 'low', { feature: 'top' })
    assert.equal(single.status, 409)
    assert.deepEqual(
      withoutId(single.body),
      errorOf(
        'InvalidOperationError',
        'Flag "low" cannot depend on another flag: "free" depends on it, and dependencies are only one level deep.',
      ),
    )
    assert.deepEqual(
      (await mark.since()).map((event) => event.type),
      ['feature-dependency-added'],
    )
    await assertInvariant(pennon)
  })

  test('a new parent replaces the old one: dependency-removed, then dependency-added, in one group', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['p1', 'p2', 'c1'])
    await depend(pennon, 'c1', 'p1')
    const mark = await eventMark(pennon)
    assert.equal((await addDependency(pennon, 'c1', { feature: 'p2', enabled: false })).status, 200)
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-dependency-removed', 'c1', 'default', { feature: 'p1' }),
      flagEvent('feature-dependency-added', 'c1', 'default', { feature: 'p2', enabled: false }),
    ])
    assert.deepEqual(await dependencyRows(pennon), [{ child: 'c1', parent: 'p2', enabled: false, variants: [] }])
    assert.deepEqual((await getFlag(pennon, 'p1')).children, [])
    assert.deepEqual((await getFlag(pennon, 'p2')).children, ['c1'])

    // The same parent again only updates the row.
    const again = await eventMark(pennon)
    assert.equal((await addDependency(pennon, 'c1', { feature: 'p2', variants: ['v'] })).status, 200)
    assert.deepEqual(fromOneRequest(await again.since()), [
      flagEvent('feature-dependency-added', 'c1', 'default', { feature: 'p2', enabled: true, variants: ['v'] }),
    ])
    assert.deepEqual(await dependencyRows(pennon), [{ child: 'c1', parent: 'p2', enabled: true, variants: ['v'] }])
  })

  test('remove one: 200 and dependency-removed, or 404 when there is no such dependency', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlags(pennon, ['p1', 'p2', 'c1'])
    await createFlags(pennon, ['op', 'oc'], 'other')
    await depend(pennon, 'c1', 'p1')
    await depend(pennon, 'oc', 'op', 'other')

    const notThere = (child: string, parent: string, project = 'default') =>
      errorOf('NotFoundError', `Flag "${child}" in project "${project}" has no dependency on "${parent}".`)
    for (const [child, parent, project] of [
      ['c1', 'p2', 'default'],
      ['ghost', 'p1', 'default'],
      ['oc', 'op', 'default'],
      ['c1', 'p1', 'other'],
    ] as const) {
      const response = await removeOne(pennon, child, parent, project)
      assert.equal(response.status, 404)
      assert.deepEqual(withoutId(response.body), notThere(child, parent, project))
    }

    const mark = await eventMark(pennon)
    const removed = await removeOne(pennon, 'c1', 'p1')
    assert.equal(removed.status, 200)
    assert.equal(removed.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [flagEvent('feature-dependency-removed', 'c1', 'default', { feature: 'p1' })])
    assert.deepEqual(await dependencyRows(pennon), [{ child: 'oc', parent: 'op', enabled: true, variants: [] }])
    const twice = await removeOne(pennon, 'c1', 'p1')
    assert.equal(twice.status, 404)
    assert.deepEqual(withoutId(twice.body), notThere('c1', 'p1'))
  })

  test('remove all: 200 and dependencies-removed, or 404 when the flag has none', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlags(pennon, ['p1', 'c1'])
    await depend(pennon, 'c1', 'p1')
    const none = (child: string, project = 'default') =>
      errorOf('NotFoundError', `Flag "${child}" in project "${project}" has no dependencies to remove.`)

    for (const [child, project] of [
      ['p1', 'default'],
      ['ghost', 'default'],
      ['c1', 'other'],
    ] as const) {
      const response = await removeAll(pennon, child, project)
      assert.equal(response.status, 404)
      assert.deepEqual(withoutId(response.body), none(child, project))
    }
    const mark = await eventMark(pennon)
    const removed = await removeAll(pennon, 'c1')
    assert.equal(removed.status, 200)
    assert.equal(removed.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [flagEvent('feature-dependencies-removed', 'c1')])
    assert.deepEqual(await dependencyRows(pennon), [])
    assert.equal((await removeAll(pennon, 'c1')).status, 404)
  })

  test('possible parents: active flags of the project, not itself, not a child, sorted', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlags(pennon, ['me', 'zeta', 'Alpha', 'beta', 'kid', 'parent', 'gone'])
    await createFlag(pennon, 'foreign', 'other')
    await depend(pennon, 'kid', 'parent')
    assert.equal((await archive(pennon, ['gone'])).status, 202)

    const parents = await call(pennon, 'GET', `${projectPath()}/features/me/parents`)
    assert.equal(parents.status, 200)
    assert.equal(parents.text, JSON.stringify(['Alpha', 'beta', 'parent', 'zeta']))
    assert.deepEqual((await call(pennon, 'GET', `${projectPath()}/features/parent/parents`)).body, ['Alpha', 'beta', 'me', 'zeta'])
    const unknown = await call(pennon, 'GET', `${projectPath()}/features/ghost/parents`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', `There's no flag named "ghost" in project "default".`))
    const foreign = await call(pennon, 'GET', `${projectPath()}/features/foreign/parents`)
    assert.equal(foreign.status, 404)
  })

  test('schema: feature required, enabled boolean, variants strings, JSON content type', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['p1', 'c1'])
    const missing = await addDependency(pennon, 'c1', {})
    assert.equal(missing.status, 400)
    const required = 'The `/body/feature` property is required. It was not present on the data you sent.'
    assert.deepEqual(withoutId(missing.body), {
      name: 'ValidationError',
      message: required,
      details: [{ path: '/body/feature', message: required }],
    })
    const wrong = await addDependency(pennon, 'c1', { feature: 'p1', enabled: 'yes', variants: [1] })
    assert.equal(wrong.status, 400)
    assert.deepEqual(withoutId(wrong.body).details, [
      { path: '/body/enabled', message: 'The `/body/enabled` property must be boolean. You sent "yes".' },
      { path: '/body/variants/0', message: 'The `/body/variants/0` property must be string. You sent 1.' },
    ])
    const text = await call(pennon, 'POST', `${projectPath()}/features/c1/dependencies`, undefined, {
      raw: '{"feature":"p1"}',
      headers: { 'content-type': 'text/plain' },
    })
    assert.equal(text.status, 415)
    assert.deepEqual(
      withoutId(text.body),
      errorOf('ContentTypeerror', 'The content type "text/plain" is not accepted. Accepted content types: application/json.'),
    )
    assert.deepEqual(await dependencyRows(pennon), [])
  })

  test('permissions: Admin and Editor may change dependencies; Viewer and client tokens get 403', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['p1', 'c1', 'c2'])
    const admin = await serviceAccountToken(pennon, 1)
    const editor = await serviceAccountToken(pennon, 2, 'editor-account')
    const viewer = await serviceAccountToken(pennon, 3)
    const client = await apiToken(pennon, 'client')
    assert.equal((await addDependency(pennon, 'c1', { feature: 'p1' }, 'default', admin)).status, 200)
    const mark = await eventMark(pennon)
    assert.equal((await addDependency(pennon, 'c2', { feature: 'p1' }, 'default', editor)).status, 200)
    const [event] = await mark.since()
    assert.deepEqual([event.createdBy, typeof event.createdByUserId], ['editor-account', 'number'])

    const needs = errorOf('NoAccessError', 'Missing permission: this operation needs "UPDATE_FEATURE_DEPENDENCY".', {
      permissions: ['UPDATE_FEATURE_DEPENDENCY'],
    })
    for (const token of [viewer, client]) {
      for (const response of [
        await addDependency(pennon, 'c1', { feature: 'p1' }, 'default', token),
        await call(pennon, 'DELETE', `${projectPath()}/features/c1/dependencies/p1`, undefined, { token }),
        await call(pennon, 'DELETE', `${projectPath()}/features/c1/dependencies`, undefined, { token }),
      ]) {
        assert.equal(response.status, 403)
        assert.deepEqual(withoutId(response.body), needs)
      }
    }
    assert.equal((await call(pennon, 'GET', `${projectPath()}/features/c1/parents`, undefined, { token: viewer })).status, 200)
    assert.equal((await call(pennon, 'GET', `${projectPath()}/features/c1/parents`, undefined, { token: client })).status, 403)
    assert.equal((await call(pennon, 'DELETE', `${projectPath()}/features/c1/dependencies/p1`, undefined, { token: editor })).status, 200)
    assert.equal((await call(pennon, 'DELETE', `${projectPath()}/features/c2/dependencies`, undefined, { token: admin })).status, 200)
  })
})
