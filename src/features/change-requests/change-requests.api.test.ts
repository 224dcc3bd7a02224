import assert from 'node:assert/strict'
import { test } from 'node:test'
import { requireChangeRequests } from '../../../test/helpers/change-requests.ts'
import {
  call,
  errorOf,
  eventually,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  useTwoInstances,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import * as migration0028 from '../../db/migrations/0028-change-requests.ts'
import * as migration0029 from '../../db/migrations/0029-change-request-schedules.ts'
import * as migration0030 from '../../db/migrations/0030-change-request-search.ts'
import { archive, createFlag, projectPath } from '../../../test/helpers/flags.ts'
import { addStrategy, listStrategies, placeOf, strategiesPath, toggle } from '../../../test/helpers/strategies.ts'

const PROD = 'production'
const DEV = 'development'
const CR = `${projectPath()}/change-requests`
const configPath = (environment: string) => `${projectPath()}/environments/${environment}/change-requests/config`
const addPath = (environment = PROD) => `${projectPath()}/environments/${environment}/change-requests`

async function addChange(pennon: TestApp, token: string, change: Record<string, unknown>, environment = PROD): Promise<any> {
  const response = await call(pennon, 'POST', addPath(environment), change, { token })
  assert.equal(response.status, 200, response.text)
  return response.body
}

const setState = (pennon: TestApp, token: string, id: number, state: string, extra: Record<string, unknown> = {}) =>
  call(pennon, 'PUT', `${CR}/${id}/state`, { state, ...extra }, { token })

async function moveTo(pennon: TestApp, token: string, id: number, state: string): Promise<any> {
  const response = await setState(pennon, token, id, state)
  assert.equal(response.status, 200, response.text)
  return response.body
}

/** Three people who may review (Editors) and a Viewer. */
async function people(pennon: TestApp) {
  return {
    author: await serviceAccountToken(pennon, 2, 'author'),
    reviewer: await serviceAccountToken(pennon, 2, 'reviewer'),
    second: await serviceAccountToken(pennon, 2, 'second'),
    viewer: await serviceAccountToken(pennon, 3, 'viewer'),
  }
}

async function clientFeatures(pennon: TestApp, environment: string): Promise<any[]> {
  const token = await call(pennon, 'POST', '/api/admin/api-tokens', {
    tokenName: `client-${environment}`,
    type: 'client',
    environment,
    projects: ['*'],
  })
  assert.equal(token.status, 201, token.text)
  const features = await call(pennon, 'GET', '/api/client/features', undefined, { token: token.body.secret })
  assert.equal(features.status, 200, features.text)
  return features.body.features
}

const REQUIRED = (environment: string) =>
  errorOf(
    'NoAccessError',
    `Missing permission: this operation needs "SKIP_CHANGE_REQUEST" in the "${environment}" environment: changes there need a change request (project "default").`,
    { permissions: ['SKIP_CHANGE_REQUEST'] },
  )

onEachDatabase('change requests', (database) => {
  test('settings: every environment of the project, enabled ones with their approvals; round trip; 404s and 400s', async (t) => {
    const pennon = await useTestApp(t, database)
    const before = await call(pennon, 'GET', `${CR}/config`)
    assert.equal(before.status, 200, before.text)
    assert.deepEqual(before.body, [
      { environment: DEV, type: DEV, changeRequestEnabled: false, requiredApprovals: 1 },
      { environment: PROD, type: PROD, changeRequestEnabled: false, requiredApprovals: 1 },
    ])
    await requireChangeRequests(pennon, { requiredApprovals: 2 })
    const after = await call(pennon, 'GET', `${CR}/config`)
    assert.deepEqual(after.body, [
      { environment: DEV, type: DEV, changeRequestEnabled: false, requiredApprovals: 1 },
      { environment: PROD, type: PROD, changeRequestEnabled: true, requiredApprovals: 2 },
    ])
    const off = await call(pennon, 'PUT', configPath(PROD), { changeRequestsEnabled: false })
    assert.equal(off.status, 204, off.text)
    assert.equal((await call(pennon, 'GET', `${CR}/config`)).body[1].changeRequestEnabled, false)

    const missing = await call(pennon, 'PUT', `${projectPath('nope')}/environments/${PROD}/change-requests/config`, {
      changeRequestsEnabled: true,
    })
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'Project "nope" does not exist.'))
    const bad = await call(pennon, 'PUT', configPath(PROD), { changeRequestsEnabled: true, requiredApprovals: 11 })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.details[0].path, '/body/requiredApprovals')
    // Changing where four eyes are needed is an Admin's.
    const { author } = await people(pennon)
    const editor = await call(pennon, 'PUT', configPath(PROD), { changeRequestsEnabled: false }, { token: author })
    assert.equal(editor.status, 403)
    assert.deepEqual(editor.body.permissions, ['PROJECT_CHANGE_REQUEST_WRITE'])
  })

  test('a direct change in a protected environment is refused (403) unless the caller may skip; other environments are not', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author } = await people(pennon)
    await createFlag(pennon, 'checkout')
    const strategy = await addStrategy(pennon, 'checkout', PROD, { name: 'default' })
    await requireChangeRequests(pennon)

    const refused = await toggle(pennon, 'checkout', PROD, 'on', 'default', author)
    assert.equal(refused.status, 403, refused.text)
    assert.deepEqual(withoutId(refused.body), REQUIRED(PROD))
    for (const [method, url, body] of [
      ['POST', strategiesPath('checkout', PROD), { name: 'default' }],
      ['PUT', `${strategiesPath('checkout', PROD)}/${strategy.id}`, { name: 'default' }],
      ['DELETE', `${strategiesPath('checkout', PROD)}/${strategy.id}`, undefined],
      ['POST', `${strategiesPath('checkout', PROD)}/set-sort-order`, [{ id: strategy.id, sortOrder: 3 }]],
      ['PATCH', `${strategiesPath('checkout', PROD)}/${strategy.id}`, [{ op: 'replace', path: '/title', value: 't' }]],
      ['PUT', `${projectPath()}/features/checkout/environments/${PROD}/variants`, []],
      ['PATCH', `${projectPath()}/features/checkout/environments/${PROD}/variants`, []],
      ['PUT', `${projectPath()}/features/checkout/variants-batch`, { variants: [], environments: [PROD] }],
      ['POST', `${projectPath()}/bulk_features/environments/${PROD}/on`, { features: ['checkout'] }],
    ] as const) {
      const response = await call(pennon, method, url, body, { token: author })
      assert.equal(response.status, 403, `${method} ${url}: ${response.text}`)
      assert.deepEqual(response.body.permissions, ['SKIP_CHANGE_REQUEST'])
    }
    assert.equal((await placeOf(pennon, 'checkout', PROD)).enabled, false)
    assert.deepEqual(await listStrategies(pennon, 'checkout', PROD), [strategy])

    assert.equal((await toggle(pennon, 'checkout', DEV, 'on', 'default', author)).status, 200)
    // An Admin holds SKIP_CHANGE_REQUEST.
    assert.equal((await toggle(pennon, 'checkout', PROD, 'on')).status, 200)
    // Unprotected again: direct changes pass.
    await call(pennon, 'PUT', configPath(PROD), { changeRequestsEnabled: false })
    assert.equal((await toggle(pennon, 'checkout', PROD, 'off', 'default', author)).status, 200)
  })

  test('two instances on one database: a setting made on one is enforced by the other once its change watch hears it', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    const editor = await serviceAccountToken(first, 2, 'editor')
    await createFlag(first, 'checkout')
    // The second remembers the environment unprotected first; switching on again changes nothing.
    const switchOn = () => toggle(second, 'checkout', PROD, 'on', 'default', editor)
    assert.equal((await switchOn()).status, 200)
    await requireChangeRequests(first)
    await eventually(async () => (await switchOn()).status === 403, 'the second instance refuses direct changes', 2_000)
    await call(first, 'PUT', configPath(PROD), { changeRequestsEnabled: false })
    await eventually(async () => (await switchOn()).status === 200, 'the second instance accepts them again', 2_000)
  })

  test('draft → in review → approved by a second person → applied: the client API serves the change; events', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author, reviewer } = await people(pennon)
    await createFlag(pennon, 'checkout')
    await requireChangeRequests(pennon)

    // The strategy first: switched on with none, the flag would get the default one too (as directly).
    const draft = await addChange(pennon, author, {
      feature: 'checkout',
      action: 'addStrategy',
      payload: { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' } },
    })
    assert.equal(draft.state, 'Draft')
    assert.equal(draft.title, `Change request #${draft.id}`)
    assert.equal(draft.minApprovals, 1)
    assert.equal(draft.createdBy.username, 'author')
    // A second change by the same author goes into the same draft.
    const same = await addChange(pennon, author, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } })
    assert.equal(same.id, draft.id)
    assert.deepEqual(
      same.features.map((f: any) => ({ name: f.name, actions: f.changes.map((c: any) => c.action) })),
      [{ name: 'checkout', actions: ['addStrategy', 'updateEnabled'] }],
    )
    // An edit replaces a change's payload; it keeps its flag and action.
    const strategyChange = same.features[0].changes[0]
    const edited = await call(
      pennon,
      'PUT',
      `${CR}/${draft.id}/changes/${strategyChange.id}`,
      { feature: 'checkout', action: 'addStrategy', payload: { ...strategyChange.payload, title: 'half' } },
      { token: author },
    )
    assert.equal(edited.status, 200, edited.text)
    assert.equal(edited.body.features[0].changes[0].payload.title, 'half')
    const otherAction = await call(
      pennon,
      'PUT',
      `${CR}/${draft.id}/changes/${strategyChange.id}`,
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
      { token: author },
    )
    assert.equal(otherAction.status, 400, otherAction.text)
    assert.equal((await call(pennon, 'PUT', `${CR}/${draft.id}/title`, { title: 'Roll out checkout' }, { token: author })).status, 200)
    assert.equal((await call(pennon, 'POST', `${CR}/${draft.id}/comments`, { text: 'please look' }, { token: author })).status, 200)

    // Not reviewable as a draft.
    const early = await setState(pennon, reviewer, draft.id, 'Approved')
    assert.equal(early.status, 409, early.text)
    const inReview = await moveTo(pennon, author, draft.id, 'In review')
    assert.equal(inReview.state, 'In review')
    const approved = await moveTo(pennon, reviewer, draft.id, 'Approved')
    assert.equal(approved.state, 'Approved')
    assert.deepEqual(
      approved.approvals.map((a: any) => a.createdBy.username),
      ['reviewer'],
    )
    assert.equal((await clientFeatures(pennon, PROD)).find((f) => f.name === 'checkout').enabled, false)

    const pending = await call(pennon, 'GET', `${CR}/pending/checkout`, undefined, { token: reviewer })
    assert.deepEqual(
      pending.body.map((r: any) => r.id),
      [draft.id],
    )
    const applied = await moveTo(pennon, author, draft.id, 'Applied')
    assert.equal(applied.state, 'Applied')
    assert.deepEqual(Object.keys(applied.stateTimestamps), ['Draft', 'In review', 'Approved', 'Applied'])
    assert.equal(applied.title, 'Roll out checkout')
    assert.deepEqual(
      applied.comments.map((c: any) => c.text),
      ['please look'],
    )

    const served = (await clientFeatures(pennon, PROD)).find((f) => f.name === 'checkout')
    assert.equal(served.enabled, true)
    assert.deepEqual(
      served.strategies.map((s: any) => [s.name, s.parameters.rollout]),
      [['flexibleRollout', '50']],
    )
    assert.deepEqual(
      (await listStrategies(pennon, 'checkout', PROD)).map((s) => s.title),
      ['half'],
    )
    assert.deepEqual((await call(pennon, 'GET', `${CR}/pending`)).body, [])
    // Someone else's draft is not listed.
    await addChange(pennon, reviewer, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: false } })
    const listed = await call(pennon, 'GET', CR, undefined, { token: author })
    assert.deepEqual(
      listed.body.map((r: any) => [r.id, r.state]),
      [[draft.id, 'Applied']],
    )
    assert.equal((await call(pennon, 'GET', CR, undefined, { token: reviewer })).body.length, 2)
    assert.deepEqual((await call(pennon, 'GET', `${CR}/count`)).body, {
      applied: 1,
      approved: 0,
      rejected: 0,
      scheduled: 0,
      reviewRequired: 0,
      total: 2,
    })
    // Applied once: again is a 409.
    assert.equal((await setState(pennon, author, draft.id, 'Applied')).status, 409)
  })

  test('the author cannot approve; a Viewer cannot; approvals count once per person (requiredApprovals 2)', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author, reviewer, second, viewer } = await people(pennon)
    await createFlag(pennon, 'checkout')
    await requireChangeRequests(pennon, { requiredApprovals: 2 })
    const { id } = await addChange(pennon, author, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } })
    await moveTo(pennon, author, id, 'In review')

    const self = await setState(pennon, author, id, 'Approved')
    assert.equal(self.status, 403)
    assert.deepEqual(withoutId(self.body), errorOf('NoAccessError', `The author of change request ${id} cannot approve it.`))
    const byViewer = await setState(pennon, viewer, id, 'Approved')
    assert.equal(byViewer.status, 403)
    assert.deepEqual(byViewer.body.permissions, ['APPROVE_CHANGE_REQUEST'])

    assert.equal((await moveTo(pennon, reviewer, id, 'Approved')).state, 'In review')
    const twice = await moveTo(pennon, reviewer, id, 'Approved')
    assert.equal(twice.state, 'In review')
    assert.equal(twice.approvals.length, 1)
    const done = await moveTo(pennon, second, id, 'Approved')
    assert.equal(done.state, 'Approved')
    assert.deepEqual(
      done.approvals.map((a: any) => a.createdBy.username),
      ['reviewer', 'second'],
    )
    // Applying needs APPLY_CHANGE_REQUEST.
    assert.deepEqual((await setState(pennon, viewer, id, 'Applied')).body.permissions, ['APPLY_CHANGE_REQUEST'])
  })

  test('a reviewer who approved may reject instead; a rejected request is closed; only its author cancels', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author, reviewer, second } = await people(pennon)
    await createFlag(pennon, 'checkout')
    await requireChangeRequests(pennon, { requiredApprovals: 2 })
    const { id } = await addChange(pennon, author, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } })
    await moveTo(pennon, author, id, 'In review')
    const notAuthor = await setState(pennon, second, id, 'Cancelled')
    assert.equal(notAuthor.status, 403)
    assert.deepEqual(withoutId(notAuthor.body), errorOf('NoAccessError', `Only the author of change request ${id} may cancel it.`))
    await moveTo(pennon, reviewer, id, 'Approved')
    const rejected = await moveTo(pennon, reviewer, id, 'Rejected')
    assert.equal(rejected.state, 'Rejected')
    assert.deepEqual(rejected.approvals, [])
    assert.deepEqual(
      rejected.rejections.map((r: any) => r.createdBy.username),
      ['reviewer'],
    )
    const closed = await setState(pennon, second, id, 'Approved')
    assert.equal(closed.status, 409)
    assert.deepEqual(
      withoutId(closed.body),
      errorOf('InvalidOperationError', `Change request ${id} is Rejected: only a request that is In review or Approved can be approved.`),
    )
    // The author's next change starts a new draft.
    const next = await addChange(pennon, author, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } })
    assert.notEqual(next.id, id)
    assert.equal((await moveTo(pennon, author, next.id, 'Cancelled')).state, 'Cancelled')
  })

  test('a change that no longer applies (its strategy deleted since) fails the apply with a 409; nothing is applied', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author, reviewer } = await people(pennon)
    await createFlag(pennon, 'checkout')
    const strategy = await addStrategy(pennon, 'checkout', PROD, { name: 'default' })
    await requireChangeRequests(pennon)
    const { id } = await addChange(pennon, author, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } })
    await addChange(pennon, author, {
      feature: 'checkout',
      action: 'updateStrategy',
      payload: { id: strategy.id, name: 'default', title: 'renamed' },
    })
    await moveTo(pennon, author, id, 'In review')
    await moveTo(pennon, reviewer, id, 'Approved')
    // An Admin deletes the strategy directly meanwhile.
    assert.equal((await call(pennon, 'DELETE', `${strategiesPath('checkout', PROD)}/${strategy.id}`)).status, 200)

    const request = await call(pennon, 'GET', `${CR}/${id}`)
    const changeId = request.body.features[0].changes[1].id
    const conflict = await setState(pennon, author, id, 'Applied')
    assert.equal(conflict.status, 409, conflict.text)
    assert.deepEqual(
      withoutId(conflict.body),
      errorOf(
        'InvalidOperationError',
        `Change request ${id} cannot be applied: change ${changeId} (updateStrategy of flag "checkout" in environment "production") conflicts with the flag as it is now: Flag "checkout" has no strategy "${strategy.id}" in environment "production". Nothing was applied.`,
      ),
    )
    assert.equal((await placeOf(pennon, 'checkout', PROD)).enabled, false)
    assert.equal((await call(pennon, 'GET', `${CR}/${id}`)).body.state, 'Approved')
  })

  test('an archived flag: the apply is a 409 naming it', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author, reviewer } = await people(pennon)
    await createFlag(pennon, 'checkout')
    await requireChangeRequests(pennon)
    const { id } = await addChange(pennon, author, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } })
    await moveTo(pennon, author, id, 'In review')
    await moveTo(pennon, reviewer, id, 'Approved')
    assert.equal((await archive(pennon, ['checkout'])).status, 202)
    const conflict = await setState(pennon, author, id, 'Applied')
    assert.equal(conflict.status, 409, conflict.text)
    assert.match(conflict.body.message, /archived/)
  })

  test('two concurrent applies of one request: applied once, the other a 409', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author, reviewer } = await people(pennon)
    await createFlag(pennon, 'checkout')
    await requireChangeRequests(pennon)
    const { id } = await addChange(pennon, author, { feature: 'checkout', action: 'addStrategy', payload: { name: 'default' } })
    await moveTo(pennon, author, id, 'In review')
    await moveTo(pennon, reviewer, id, 'Approved')
    const results = await Promise.all([setState(pennon, author, id, 'Applied'), setState(pennon, reviewer, id, 'Applied')])
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409])
    assert.equal((await listStrategies(pennon, 'checkout', PROD)).length, 1)
  })

  test('migrations 0030, 0029 and 0028 undone and done again: the settings are gone, the feature works', async (t) => {
    const pennon = await useTestApp(t, database)
    await requireChangeRequests(pennon)
    await migration0030.down(pennon.database.db)
    await migration0029.down(pennon.database.db)
    await migration0028.down(pennon.database.db)
    await migration0028.up(pennon.database.db)
    await migration0029.up(pennon.database.db)
    await migration0030.up(pennon.database.db)
    assert.equal((await call(pennon, 'GET', `${CR}/config`)).body[1].changeRequestEnabled, false)
    await requireChangeRequests(pennon)
    const { author } = await people(pennon)
    await createFlag(pennon, 'checkout')
    assert.equal((await addChange(pennon, author, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } })).id, 1)
  })

  test('bad input: an unknown action or a payload that is not the action’s is a 400; a change where none is needed a 409', async (t) => {
    const pennon = await useTestApp(t, database)
    const { author } = await people(pennon)
    await createFlag(pennon, 'checkout')
    await requireChangeRequests(pennon)
    const action = await call(pennon, 'POST', addPath(), { feature: 'checkout', action: 'explode', payload: {} }, { token: author })
    assert.equal(action.status, 400)
    const payload = await call(
      pennon,
      'POST',
      addPath(),
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: 'yes' } },
      { token: author },
    )
    assert.equal(payload.status, 400, payload.text)
    assert.equal(payload.body.details[0].path, '/body/payload/enabled')
    const unprotected = await call(
      pennon,
      'POST',
      addPath(DEV),
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
      { token: author },
    )
    assert.equal(unprotected.status, 409, unprotected.text)
    const ghost = await call(
      pennon,
      'POST',
      addPath(),
      { feature: 'checkout', action: 'deleteStrategy', payload: { id: 'nope' } },
      { token: author },
    )
    assert.equal(ghost.status, 404, ghost.text)
    assert.deepEqual(withoutId(ghost.body), errorOf('NotFoundError', 'Flag "checkout" has no strategy "nope" in environment "production".'))
    await createFlag(pennon, 'old')
    assert.equal((await archive(pennon, ['old'])).status, 202)
    const archived = await call(
      pennon,
      'POST',
      addPath(),
      { feature: 'old', action: 'updateEnabled', payload: { enabled: true } },
      { token: author },
    )
    assert.equal(archived.status, 400, archived.text)
    assert.equal(archived.body.name, 'ArchivedFeatureError')
    const missing = await call(pennon, 'GET', `${CR}/999`)
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'Project "default" has no change request 999.'))
    assert.equal((await call(pennon, 'GET', `${CR}/abc`)).status, 400)
  })
})
