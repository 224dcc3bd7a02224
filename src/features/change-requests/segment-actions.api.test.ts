// Change requests that change a segment (updateSegment, deleteSegment, `feature: null`), and the
// refusal of a project segment's direct change while its project needs change requests.
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
import { createFlags, projectPath } from '../../../test/helpers/flags.ts'
import { addStrategy } from '../../../test/helpers/strategies.ts'

const PROD = 'production'
const CR = `${projectPath()}/change-requests`
const addPath = `${projectPath()}/environments/${PROD}/change-requests`
const segmentPath = (id: number) => `/api/admin/segments/${id}`
const CONSTRAINT = { contextName: 'userId', operator: 'IN', values: ['1'], caseInsensitive: false, inverted: false }

async function createSegment(pennon: TestApp, name: string, project?: string): Promise<number> {
  const response = await call(pennon, 'POST', '/api/admin/segments', {
    name,
    ...(project === undefined ? {} : { project }),
    constraints: [CONSTRAINT],
  })
  assert.equal(response.status, 201, response.text)
  return response.body.id
}

async function segmentOf(pennon: TestApp, id: number): Promise<any> {
  const response = await call(pennon, 'GET', segmentPath(id))
  return response.status === 404 ? undefined : response.body
}

const setState = (pennon: TestApp, token: string, id: number, state: string) =>
  call(pennon, 'PUT', `${CR}/${id}/state`, { state }, { token })

async function approve(pennon: TestApp, author: string, reviewer: string, id: number): Promise<void> {
  assert.equal((await setState(pennon, author, id, 'In review')).status, 200)
  assert.equal((await setState(pennon, reviewer, id, 'Approved')).status, 200)
}

const SEGMENT_REQUIRED = errorOf(
  'NoAccessError',
  'Missing permission: this operation needs "SKIP_CHANGE_REQUEST": project "default" needs change requests (in the "production" environment), so its segments change through a change request.',
  { permissions: ['SKIP_CHANGE_REQUEST'] },
)

onEachDatabase('change requests of segments', (database) => {
  test('while the project needs change requests, a direct change of its segment is refused (403) unless the caller may skip; other segments pass', async (t) => {
    const pennon = await useTestApp(t, database)
    const editor = await serviceAccountToken(pennon, 2, 'editor')
    const own = await createSegment(pennon, 'own', 'default')
    const global = await createSegment(pennon, 'global')
    const moving = await createSegment(pennon, 'moving')
    await requireChangeRequests(pennon)

    for (const [method, url, body] of [
      ['PUT', segmentPath(own), { name: 'own', project: 'default', constraints: [] }],
      // As the reference: the project it goes to decides.
      ['PUT', segmentPath(moving), { name: 'moving', project: 'default', constraints: [] }],
      ['DELETE', segmentPath(own), undefined],
    ] as const) {
      const response = await call(pennon, method, url, body, { token: editor })
      assert.equal(response.status, 403, `${method} ${url}: ${response.text}`)
      assert.deepEqual(withoutId(response.body), SEGMENT_REQUIRED, `${method} ${url}`)
    }
    assert.deepEqual((await segmentOf(pennon, own)).constraints, [CONSTRAINT])
    assert.equal((await segmentOf(pennon, moving)).project, undefined)

    // A global segment is not gated.
    const globalPut = await call(pennon, 'PUT', segmentPath(global), { name: 'global', constraints: [] }, { token: editor })
    assert.equal(globalPut.status, 204, globalPut.text)
    // An Admin holds SKIP_CHANGE_REQUEST.
    const adminPut = await call(pennon, 'PUT', segmentPath(own), { name: 'own', project: 'default', constraints: [] })
    assert.equal(adminPut.status, 204, adminPut.text)
    // Not protected any more: the Editor's deletion passes.
    await requireChangeRequests(pennon, { enabled: false })
    assert.equal((await call(pennon, 'DELETE', segmentPath(own), undefined, { token: editor })).status, 204)
    assert.equal(await segmentOf(pennon, own), undefined)
  })

  test('updateSegment and deleteSegment: added with feature null, shown under segments, applied in one transaction with their own events', async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 1, 'author')
    const reviewer = await serviceAccountToken(pennon, 2, 'reviewer')
    await createFlags(pennon, ['checkout'])
    const kept = await createSegment(pennon, 'kept', 'default')
    const dropped = await createSegment(pennon, 'dropped', 'default')
    await requireChangeRequests(pennon)

    const first = await call(
      pennon,
      'POST',
      addPath,
      { feature: null, action: 'updateSegment', payload: { id: kept, name: 'first', constraints: [] } },
      { token: author },
    )
    assert.equal(first.status, 200, first.text)
    // A later updateSegment of the same segment replaces the earlier one; several at once, as the UI may send.
    const update = { id: kept, name: 'renamed', description: 'beta users', project: 'default', constraints: [CONSTRAINT] }
    const added = await call(
      pennon,
      'POST',
      addPath,
      [
        { feature: null, action: 'updateSegment', payload: update },
        { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
        { feature: null, action: 'deleteSegment', payload: { id: dropped } },
      ],
      { token: author },
    )
    assert.equal(added.status, 200, added.text)
    const draft = added.body
    assert.equal(draft.id, first.body.id)
    const by = draft.createdBy
    const [updateChange, deleteChange] = draft.segments
    assert.deepEqual(draft.segments, [
      { id: updateChange.id, action: 'updateSegment', name: 'renamed', payload: update, createdBy: by, createdAt: updateChange.createdAt },
      {
        id: deleteChange.id,
        action: 'deleteSegment',
        name: 'dropped',
        // The segment's name is kept with its deletion, as the reference shows it.
        payload: { id: dropped, name: 'dropped' },
        createdBy: by,
        createdAt: deleteChange.createdAt,
      },
    ])
    assert.deepEqual(
      draft.features.map((feature: any) => [feature.name, feature.changes.map((change: any) => change.action)]),
      [['checkout', ['updateEnabled']]],
    )
    const shown = await call(pennon, 'GET', `${CR}/${draft.id}`, undefined, { token: author })
    assert.deepEqual(shown.body, draft)
    const changeAdded = (await allEvents(pennon)).filter((event) => event.type === 'change-added')
    assert.deepEqual(
      changeAdded.map((event) => [event.featureName, event.data.change.action, event.data.change.payload]),
      [
        [null, 'updateSegment', { id: kept, name: 'first', constraints: [] }],
        [null, 'updateSegment', update],
        ['checkout', 'updateEnabled', { enabled: true }],
        [null, 'deleteSegment', { id: dropped, name: 'dropped' }],
      ],
    )
    const searched = await call(pennon, 'GET', '/api/admin/search/change-requests', undefined, { token: author })
    assert.deepEqual(
      searched.body.changeRequests.map((request: any) => [request.features, request.segments]),
      [[['checkout'], ['renamed', 'dropped']]],
    )
    // Nothing changed before it is applied.
    assert.equal((await segmentOf(pennon, kept)).name, 'kept')

    await approve(pennon, author, reviewer, draft.id)
    const before = (await allEvents(pennon)).length
    const applied = await setState(pennon, author, draft.id, 'Applied')
    assert.equal(applied.status, 200, applied.text)
    assert.equal(applied.body.state, 'Applied')
    const segment = await segmentOf(pennon, kept)
    assert.deepEqual(
      { ...segment, createdAt: undefined },
      {
        id: kept,
        name: 'renamed',
        description: 'beta users',
        project: 'default',
        constraints: [CONSTRAINT],
        createdBy: 'admin',
        createdAt: undefined,
      },
    )
    assert.equal(await segmentOf(pennon, dropped), undefined)
    const events = checkOneRequest((await allEvents(pennon)).slice(before), 'author', by.id)
    assert.deepEqual(
      events.map(({ type, featureName, project, environment }) => ({ type, featureName, project, environment })),
      [
        { type: 'segment-updated', featureName: null, project: 'default', environment: null },
        // A switch on with no strategy adds the default one, as directly.
        { type: 'feature-strategy-add', featureName: 'checkout', project: 'default', environment: PROD },
        { type: 'feature-environment-enabled', featureName: 'checkout', project: 'default', environment: PROD },
        { type: 'segment-deleted', featureName: null, project: 'default', environment: null },
        { type: 'change-request-applied', featureName: null, project: 'default', environment: PROD },
      ],
    )
    assert.deepEqual([events[0].preData.name, events[0].data.name], ['kept', 'renamed'])
    assert.equal(events.at(-2).preData.name, 'dropped')
  })

  test('what the direct routes refuse is refused when added: the flag named (400), the payload (400), the permission (403), the segment (404)', async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 2, 'author')
    const viewer = await serviceAccountToken(pennon, 3, 'viewer')
    await createFlags(pennon, ['checkout'])
    const own = await createSegment(pennon, 'own', 'default')
    const global = await createSegment(pennon, 'global')
    await requireChangeRequests(pennon)
    const post = (body: unknown, token = author) => call(pennon, 'POST', addPath, body, { token })

    const named = await post({ feature: 'checkout', action: 'deleteSegment', payload: { id: own } })
    assert.equal(named.status, 400, named.text)
    assert.deepEqual(
      withoutId(named.body),
      errorOf('ValidationError', "The `/body/feature` property must be null for deleteSegment: a segment's change names no flag.", {
        details: [
          {
            path: '/body/feature',
            message: "The `/body/feature` property must be null for deleteSegment: a segment's change names no flag.",
          },
        ],
      }),
    )
    const unnamed = await post([{ feature: null, action: 'updateEnabled', payload: { enabled: true } }])
    assert.equal(unnamed.status, 400, unnamed.text)
    assert.deepEqual(unnamed.body.details, [
      { path: '/body/0/feature', message: 'The `/body/0/feature` property must name the flag that updateEnabled changes.' },
    ])
    const noConstraints = await post({ feature: null, action: 'updateSegment', payload: { id: own, name: 'own' } })
    assert.equal(noConstraints.status, 400, noConstraints.text)
    assert.deepEqual(
      noConstraints.body.details.map((detail: any) => detail.path),
      ['/body/payload/constraints'],
    )
    const denied = await post({ feature: null, action: 'deleteSegment', payload: { id: own } }, viewer)
    assert.equal(denied.status, 403, denied.text)
    assert.deepEqual(
      withoutId(denied.body),
      errorOf(
        'NoAccessError',
        'Missing permission: this operation needs "DELETE_SEGMENT" or "UPDATE_PROJECT_SEGMENT" in the "production" environment.',
        { permissions: ['DELETE_SEGMENT', 'UPDATE_PROJECT_SEGMENT'] },
      ),
    )
    for (const id of [own + global + 1000, global]) {
      const missing = await post({ feature: null, action: 'deleteSegment', payload: { id } })
      assert.equal(missing.status, 404, missing.text)
      assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', `Project "default" has no segment ${id}.`))
    }
    assert.deepEqual((await call(pennon, 'GET', CR, undefined, { token: author })).body, [])
  })

  test("a draft's segment change edited (it keeps its segment and action) and discarded, with their events", async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 2, 'author')
    const own = await createSegment(pennon, 'own', 'default')
    await requireChangeRequests(pennon)
    const update = { id: own, name: 'own', constraints: [] }
    const added = await call(pennon, 'POST', addPath, { feature: null, action: 'updateSegment', payload: update }, { token: author })
    assert.equal(added.status, 200, added.text)
    const { id } = added.body
    const changeId: number = added.body.segments[0].id
    const changePath = `${CR}/${id}/changes/${changeId}`

    const edited = { ...update, name: 'mine', constraints: [CONSTRAINT] }
    const edit = await call(pennon, 'PUT', changePath, { feature: null, action: 'updateSegment', payload: edited }, { token: author })
    assert.equal(edit.status, 200, edit.text)
    assert.deepEqual(
      edit.body.segments.map((change: any) => [change.id, change.name, change.payload]),
      [[changeId, 'mine', edited]],
    )
    const otherAction = await call(
      pennon,
      'PUT',
      changePath,
      { feature: null, action: 'deleteSegment', payload: { id: own } },
      { token: author },
    )
    assert.equal(otherAction.status, 400, otherAction.text)
    assert.equal(
      otherAction.body.message,
      `Change ${changeId} is updateSegment of a segment: an edit keeps the flag and the action (add another change instead).`,
    )
    assert.equal((await call(pennon, 'DELETE', changePath, undefined, { token: author })).status, 200)
    assert.deepEqual((await call(pennon, 'GET', `${CR}/${id}`, undefined, { token: author })).body.segments, [])
    const events = (await allEvents(pennon)).filter((event) => event.type === 'change-edited' || event.type === 'change-discarded')
    assert.deepEqual(
      events.map(({ type, featureName, project, environment, data }) => ({ type, featureName, project, environment, data })),
      [
        {
          type: 'change-edited',
          featureName: null,
          project: 'default',
          environment: PROD,
          data: { changeRequestId: id, change: { id: changeId, action: 'updateSegment', payload: edited } },
        },
        {
          type: 'change-discarded',
          featureName: null,
          project: 'default',
          environment: PROD,
          data: { changeRequestId: id, change: { id: changeId, action: 'updateSegment', payload: edited } },
        },
      ],
    )
  })

  test('a segment gone, a name taken, a segment in use: the apply is a 409 naming the change, and nothing is applied', async (t) => {
    const pennon = await useTestApp(t, database)
    const author = await serviceAccountToken(pennon, 2, 'author')
    const reviewer = await serviceAccountToken(pennon, 2, 'reviewer')
    await createFlags(pennon, ['checkout'])
    const gone = await createSegment(pennon, 'gone', 'default')
    const renamed = await createSegment(pennon, 'renamed', 'default')
    const used = await createSegment(pennon, 'used', 'default')
    await requireChangeRequests(pennon)

    /** One request with `change` and a switch, approved. */
    async function approvedRequest(change: Record<string, unknown>): Promise<{ id: number; changeId: number }> {
      const response = await call(
        pennon,
        'POST',
        addPath,
        [{ feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } }, change],
        { token: author },
      )
      assert.equal(response.status, 200, response.text)
      await approve(pennon, author, reviewer, response.body.id)
      return { id: response.body.id, changeId: response.body.segments[0].id }
    }
    const conflict = async (request: { id: number; changeId: number }, action: string, segment: number, reason: string) => {
      const response = await setState(pennon, author, request.id, 'Applied')
      assert.equal(response.status, 409, response.text)
      assert.deepEqual(
        withoutId(response.body),
        errorOf(
          'InvalidOperationError',
          `Change request ${request.id} cannot be applied: change ${request.changeId} (${action} of segment ${segment}) conflicts with the segment as it is now: ${reason} Nothing was applied.`,
        ),
      )
      assert.equal((await call(pennon, 'GET', `${CR}/${request.id}`, undefined, { token: author })).body.state, 'Approved')
    }

    const deleteGone = await approvedRequest({ feature: null, action: 'deleteSegment', payload: { id: gone } })
    assert.equal((await call(pennon, 'DELETE', segmentPath(gone))).status, 204)
    await conflict(deleteGone, 'deleteSegment', gone, `Segment ${gone} does not exist.`)
    assert.equal((await setState(pennon, author, deleteGone.id, 'Cancelled')).status, 200)

    const takeName = await approvedRequest({
      feature: null,
      action: 'updateSegment',
      payload: { id: renamed, name: 'used', constraints: [] },
    })
    await conflict(takeName, 'updateSegment', renamed, 'A segment named "used" already exists.')
    assert.equal((await setState(pennon, author, takeName.id, 'Cancelled')).status, 200)

    const deleteUsed = await approvedRequest({ feature: null, action: 'deleteSegment', payload: { id: used } })
    await addStrategy(pennon, 'checkout', 'development', { name: 'default', segments: [used] })
    await conflict(
      deleteUsed,
      'deleteSegment',
      used,
      `Segment ${used} is in use by the strategies of flag "checkout": remove it from them first.`,
    )
    // Nothing was applied: the switch of the same request neither.
    const flag = await call(pennon, 'GET', `${projectPath()}/features/checkout`)
    assert.equal(flag.body.environments.find((environment: any) => environment.name === PROD).enabled, false)
    assert.equal((await segmentOf(pennon, used)).name, 'used')
    assert.equal((await segmentOf(pennon, renamed)).name, 'renamed')
  })
})
