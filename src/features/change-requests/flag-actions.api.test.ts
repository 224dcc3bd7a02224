// Change requests that change a flag as a whole: archiveFeature, addDependency, deleteDependency; and
// the refusal of those changes made directly while the project needs change requests.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { requireChangeRequests } from '../../../test/helpers/change-requests.ts'
import {
  allEvents,
  call,
  errorOf,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import { checkOneRequest } from '../../../test/helpers/events.ts'
import { addDependency, archive, createFlags, depend, dependencyRows, projectPath } from '../../../test/helpers/flags.ts'
import { placeOf } from '../../../test/helpers/strategies.ts'

const PROD = 'production'
const CR = `${projectPath()}/change-requests`
const addPath = `${projectPath()}/environments/${PROD}/change-requests`
const flagPath = (name: string) => `${projectPath()}/features/${name}`

async function addChange(pennon: TestApp, token: string, change: Record<string, unknown>): Promise<any> {
  const response = await call(pennon, 'POST', addPath, change, { token })
  assert.equal(response.status, 200, response.text)
  return response.body
}

const setState = (pennon: TestApp, token: string, id: number, state: string) =>
  call(pennon, 'PUT', `${CR}/${id}/state`, { state }, { token })

/** The author's draft sent for review and approved by the reviewer. */
async function approve(pennon: TestApp, author: string, reviewer: string, id: number): Promise<void> {
  assert.equal((await setState(pennon, author, id, 'In review')).status, 200)
  assert.equal((await setState(pennon, reviewer, id, 'Approved')).status, 200)
}

/** A request's changes as {feature, action, payload}, in order. */
const changesOf = (request: any) =>
  request.features.flatMap((feature: any) =>
    feature.changes.map((change: any) => ({ feature: feature.name, action: change.action, payload: change.payload })),
  )

async function archivedFlags(pennon: TestApp): Promise<string[]> {
  const rows = await pennon.database.db.selectFrom('features').select('name').where('archived_at', 'is not', null).orderBy('name').execute()
  return rows.map((row) => row.name)
}

const PROJECT_REQUIRED = errorOf(
  'NoAccessError',
  'Missing permission: this operation needs "SKIP_CHANGE_REQUEST": project "default" needs change requests (in the "production" environment), so archiving its flags and changing their dependencies go through a change request.',
  { permissions: ['SKIP_CHANGE_REQUEST'] },
)

/** The 409 of an apply whose change `changeId` no longer applies. */
const conflictOf = (id: number, changeId: number, what: string, feature: string, reason: string) =>
  errorOf(
    'InvalidOperationError',
    `Change request ${id} cannot be applied: change ${changeId} (${what} of flag "${feature}" in environment "production") conflicts with the flag as it is now: ${reason} Nothing was applied.`,
  )

onEachDatabase('change requests of a flag as a whole', (database) => {
  test('while an environment of the project needs change requests, direct archiving and dependency changes are refused (403) unless the caller may skip', async (t) => {
    const pennon = await useTestApp(t, database)
    const editor = await serviceAccountToken(pennon, 2, 'editor')
    await createFlags(pennon, ['parent', 'child', 'other'])
    await depend(pennon, 'other', 'parent')
    await requireChangeRequests(pennon)

    for (const [method, url, body] of [
      ['DELETE', flagPath('child'), undefined],
      ['POST', `${projectPath()}/archive`, { features: ['child'] }],
      ['POST', `${flagPath('child')}/dependencies`, { feature: 'parent' }],
      ['DELETE', `${flagPath('other')}/dependencies/parent`, undefined],
      ['DELETE', `${flagPath('other')}/dependencies`, undefined],
      // A copy of a child copies its dependency.
      ['POST', `${flagPath('other')}/clone`, { name: 'other-copy' }],
    ] as const) {
      const response = await call(pennon, method, url, body, { token: editor })
      assert.equal(response.status, 403, `${method} ${url}: ${response.text}`)
      assert.deepEqual(withoutId(response.body), PROJECT_REQUIRED, `${method} ${url}`)
    }
    assert.deepEqual(await archivedFlags(pennon), [])
    assert.deepEqual(await dependencyRows(pennon), [{ child: 'other', parent: 'parent', enabled: true, variants: [] }])
    assert.equal((await call(pennon, 'GET', flagPath('other-copy'))).status, 404)

    // An Admin holds SKIP_CHANGE_REQUEST.
    assert.equal((await addDependency(pennon, 'child', { feature: 'parent' })).status, 200)
    // Not protected any more: the Editor's changes pass.
    await requireChangeRequests(pennon, { enabled: false })
    assert.equal((await call(pennon, 'DELETE', `${flagPath('child')}/dependencies`, undefined, { token: editor })).status, 200)
    assert.equal((await call(pennon, 'DELETE', flagPath('child'), undefined, { token: editor })).status, 202)
    assert.deepEqual(await archivedFlags(pennon), ['child'])
  })

  test('a protected environment the project no longer has does not refuse them', async (t) => {
    const pennon = await useTestApp(t, database)
    const editor = await serviceAccountToken(pennon, 2, 'editor')
    await createFlags(pennon, ['parent', 'child'])
    await requireChangeRequests(pennon)
    assert.equal((await addDependency(pennon, 'child', { feature: 'parent' }, 'default', editor)).status, 403)
    const removed = await call(pennon, 'DELETE', `${projectPath()}/environments/${PROD}`)
    assert.equal(removed.status, 200, removed.text)
    const added = await addDependency(pennon, 'child', { feature: 'parent' }, 'default', editor)
    assert.equal(added.status, 200, added.text)
    assert.deepEqual(await dependencyRows(pennon), [{ child: 'child', parent: 'parent', enabled: true, variants: [] }])
  })

  test('archiveFeature, addDependency and deleteDependency: added, shown, then applied in one transaction with their own events', async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 2, 'author')
    const reviewer = await serviceAccountToken(pennon, 2, 'reviewer')
    await createFlags(pennon, ['parent', 'child', 'linked', 'single', 'retired'])
    await depend(pennon, 'linked', 'parent')
    await depend(pennon, 'single', 'parent')
    await requireChangeRequests(pennon)

    const first = await addChange(pennon, author, { feature: 'child', action: 'addDependency', payload: { feature: 'parent' } })
    // A later addDependency of the same flag replaces the earlier one.
    await addChange(pennon, author, { feature: 'child', action: 'addDependency', payload: { feature: 'parent', enabled: false } })
    // Left out, as the reference's UI sends them: every dependency; archive the flag.
    await addChange(pennon, author, { feature: 'linked', action: 'deleteDependency' })
    await addChange(pennon, author, { feature: 'single', action: 'deleteDependency', payload: { feature: 'parent' } })
    const draft = await addChange(pennon, author, { feature: 'retired', action: 'archiveFeature', payload: {} })
    assert.equal(draft.id, first.id)
    const shown = await call(pennon, 'GET', `${CR}/${draft.id}`, undefined, { token: reviewer })
    assert.equal(shown.status, 200, shown.text)
    assert.deepEqual(shown.body, draft)
    assert.deepEqual(changesOf(draft), [
      { feature: 'child', action: 'addDependency', payload: { feature: 'parent', enabled: false } },
      { feature: 'linked', action: 'deleteDependency', payload: {} },
      { feature: 'single', action: 'deleteDependency', payload: { feature: 'parent' } },
      { feature: 'retired', action: 'archiveFeature', payload: {} },
    ])
    const authorUser = draft.createdBy
    assert.deepEqual(
      draft.features[0].changes.map((change: any) => change.createdBy),
      [authorUser],
    )
    assert.deepEqual(await archivedFlags(pennon), [])

    await approve(pennon, author, reviewer, draft.id)
    const before = (await allEvents(pennon)).length
    const applied = await setState(pennon, author, draft.id, 'Applied')
    assert.equal(applied.status, 200, applied.text)
    assert.equal(applied.body.state, 'Applied')

    assert.deepEqual(await dependencyRows(pennon), [{ child: 'child', parent: 'parent', enabled: false, variants: [] }])
    assert.deepEqual(await archivedFlags(pennon), ['retired'])
    const events = checkOneRequest((await allEvents(pennon)).slice(before), 'author', authorUser.id)
    assert.deepEqual(
      events.map(({ type, featureName, project, environment, data }) => ({ type, featureName, project, environment, data })),
      [
        {
          type: 'feature-dependency-added',
          featureName: 'child',
          project: 'default',
          environment: null,
          data: { feature: 'parent', enabled: false },
        },
        { type: 'feature-dependencies-removed', featureName: 'linked', project: 'default', environment: null, data: null },
        { type: 'feature-dependency-removed', featureName: 'single', project: 'default', environment: null, data: { feature: 'parent' } },
        { type: 'feature-archived', featureName: 'retired', project: 'default', environment: null, data: null },
        {
          type: 'change-request-applied',
          featureName: null,
          project: 'default',
          environment: PROD,
          data: { changeRequestId: draft.id, state: 'Applied' },
        },
      ],
    )
  })

  test('several changes in one POST, as the reference UI sends them: added in order, all or none', async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 2, 'author')
    await createFlags(pennon, ['one', 'two', 'parent'])
    await requireChangeRequests(pennon)
    const post = (body: unknown) => call(pennon, 'POST', addPath, body, { token: author })

    // One bad change: nothing is added, and the path names it.
    const bad = await post([
      { feature: 'one', action: 'archiveFeature' },
      { feature: 'two', action: 'updateEnabled', payload: { enabled: 'yes' } },
    ])
    assert.equal(bad.status, 400, bad.text)
    assert.deepEqual(
      withoutId(bad.body),
      errorOf('ValidationError', 'The `/body/1/payload/enabled` property must be boolean. You sent "yes".', {
        details: [{ message: 'The `/body/1/payload/enabled` property must be boolean. You sent "yes".', path: '/body/1/payload/enabled' }],
      }),
    )
    const self = await post([
      { feature: 'one', action: 'archiveFeature' },
      { feature: 'two', action: 'addDependency', payload: { feature: 'two' } },
    ])
    assert.equal(self.status, 400, self.text)
    assert.deepEqual(
      self.body.details.map((detail: any) => detail.path),
      ['/body/1/payload/feature'],
    )
    const ghost = await post([
      { feature: 'one', action: 'archiveFeature' },
      { feature: 'ghost', action: 'archiveFeature' },
    ])
    assert.equal(ghost.status, 404, ghost.text)
    assert.deepEqual((await call(pennon, 'GET', CR, undefined, { token: author })).body, [])

    const both = await post([
      { feature: 'one', action: 'archiveFeature', payload: undefined },
      { feature: 'two', action: 'addDependency', payload: { feature: 'parent', enabled: true, variants: [] } },
      { feature: 'one', action: 'archiveFeature' },
    ])
    assert.equal(both.status, 200, both.text)
    // The second archiveFeature of "one" replaced the first.
    assert.deepEqual(changesOf(both.body), [
      { feature: 'two', action: 'addDependency', payload: { feature: 'parent', enabled: true, variants: [] } },
      { feature: 'one', action: 'archiveFeature', payload: {} },
    ])
    const added = (await allEvents(pennon)).filter((event) => event.type === 'change-added')
    assert.deepEqual(
      added.map((event) => [event.featureName, event.data.change.action]),
      [
        ['one', 'archiveFeature'],
        ['two', 'addDependency'],
        ['one', 'archiveFeature'],
      ],
    )
  })

  test('what the direct routes refuse is refused when added: the payload (400), the permission (403), the flags (404)', async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 2, 'author')
    const viewer = await serviceAccountToken(pennon, 3, 'viewer')
    await createFlags(pennon, ['parent', 'child', 'gone'])
    assert.equal((await archive(pennon, ['gone'])).status, 202)
    await requireChangeRequests(pennon)
    const post = (body: unknown, token = author) => call(pennon, 'POST', addPath, body, { token })

    const extra = await post({ feature: 'child', action: 'archiveFeature', payload: { reason: 'old' } })
    assert.equal(extra.status, 400, extra.text)
    assert.deepEqual(
      extra.body.details.map((detail: any) => detail.path),
      ['/body/payload/reason'],
    )
    const missing = await post({ feature: 'child', action: 'addDependency' })
    assert.equal(missing.status, 400, missing.text)
    assert.deepEqual(
      missing.body.details.map((detail: any) => detail.path),
      ['/body/payload'],
    )
    const self = await post({ feature: 'child', action: 'addDependency', payload: { feature: 'child' } })
    assert.equal(self.status, 400, self.text)
    assert.deepEqual(
      withoutId(self.body),
      errorOf('ValidationError', 'The `/body/payload/feature` property names the flag itself ("child"): a flag cannot depend on itself.', {
        details: [
          {
            message: 'The `/body/payload/feature` property names the flag itself ("child"): a flag cannot depend on itself.',
            path: '/body/payload/feature',
          },
        ],
      }),
    )
    for (const parent of ['nope', 'gone']) {
      const unknown = await post({ feature: 'child', action: 'addDependency', payload: { feature: parent } })
      assert.equal(unknown.status, 404, unknown.text)
      assert.deepEqual(
        withoutId(unknown.body),
        errorOf('NotFoundError', `There's no active flag named "${parent}" in project "default" to depend on.`),
      )
    }
    const archived = await post({ feature: 'gone', action: 'archiveFeature' })
    assert.equal(archived.status, 400, archived.text)
    assert.deepEqual(withoutId(archived.body), errorOf('ArchivedFeatureError', 'Flag "gone" is archived: revive it before changing it.'))
    for (const [action, permission] of [
      ['archiveFeature', 'DELETE_FEATURE'],
      ['deleteDependency', 'UPDATE_FEATURE_DEPENDENCY'],
    ]) {
      const refused = await post({ feature: 'child', action }, viewer)
      assert.equal(refused.status, 403, refused.text)
      assert.deepEqual(
        withoutId(refused.body),
        errorOf('NoAccessError', `Missing permission: this operation needs "${permission}" in the "production" environment.`, {
          permissions: [permission],
        }),
      )
    }
    assert.deepEqual((await call(pennon, 'GET', CR, undefined, { token: author })).body, [])
  })

  test('a change that no longer applies fails the whole apply with a 409 naming it: archived since, parent gone, one level deep, nothing to delete, children', async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 2, 'author')
    const reviewer = await serviceAccountToken(pennon, 2, 'reviewer')
    await createFlags(pennon, ['switch', 'retired', 'parent', 'child', 'grandparent', 'loose', 'holder'])
    await requireChangeRequests(pennon)

    /** One approved request: a switch first (so "nothing was applied" shows), then `change`; its id and the change's. */
    async function approved(change: Record<string, unknown>): Promise<{ id: number; changeId: number }> {
      await addChange(pennon, author, { feature: 'switch', action: 'updateEnabled', payload: { enabled: true } })
      const request = await addChange(pennon, author, change)
      await approve(pennon, author, reviewer, request.id)
      return { id: request.id, changeId: request.features.at(-1).changes.at(-1).id }
    }
    async function refused(request: { id: number; changeId: number }, what: string, feature: string, reason: string) {
      const response = await setState(pennon, author, request.id, 'Applied')
      assert.equal(response.status, 409, response.text)
      assert.deepEqual(withoutId(response.body), conflictOf(request.id, request.changeId, what, feature, reason))
      assert.equal((await call(pennon, 'GET', `${CR}/${request.id}`)).body.state, 'Approved')
      assert.equal((await placeOf(pennon, 'switch', PROD)).enabled, false)
    }

    const archiveLater = await approved({ feature: 'retired', action: 'archiveFeature' })
    const dependOnParent = await approved({ feature: 'child', action: 'addDependency', payload: { feature: 'parent' } })
    const dependOnLoose = await approved({ feature: 'child', action: 'addDependency', payload: { feature: 'loose' } })
    const deleteNone = await approved({ feature: 'grandparent', action: 'deleteDependency' })
    const archiveHolder = await approved({ feature: 'holder', action: 'archiveFeature' })

    // An Admin changes the flags directly meanwhile.
    assert.equal((await archive(pennon, ['retired'])).status, 202)
    assert.equal((await archive(pennon, ['parent'])).status, 202)
    await depend(pennon, 'loose', 'grandparent')
    await depend(pennon, 'switch', 'holder')

    await refused(archiveLater, 'archiveFeature', 'retired', 'Flag "retired" is archived: revive it before changing it.')
    await refused(dependOnParent, 'addDependency', 'child', `There's no active flag named "parent" in project "default" to depend on.`)
    await refused(
      dependOnLoose,
      'addDependency',
      'child',
      'Flag "loose" cannot be a parent: it depends on "grandparent" itself, and dependencies are only one level deep.',
    )
    await refused(deleteNone, 'deleteDependency', 'grandparent', 'Flag "grandparent" in project "default" has no dependencies to remove.')
    await refused(
      archiveHolder,
      'archiveFeature',
      'holder',
      'Cannot archive flag "holder": other flags depend on it. Archive those flags in the same batch, or remove their dependencies first. Nothing was changed.',
    )
    assert.deepEqual(await archivedFlags(pennon), ['parent', 'retired'])
    assert.deepEqual(await dependencyRows(pennon), [
      { child: 'loose', parent: 'grandparent', enabled: true, variants: [] },
      { child: 'switch', parent: 'holder', enabled: true, variants: [] },
    ])
  })
})
