/**
 * A flag's lifecycle through the real app on each database: the stages entered by its creation,
 * completion, archiving and revival, and by SDK reports through the real metrics API (pre-live,
 * then live in production where it is on); the count of flags per stage; permissions, 404s, 400s.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
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
import { createFlag, createProject } from '../../../test/helpers/flags.ts'

const flagPath = (flag: string, project = 'default') => `/api/admin/projects/${project}/features/${flag}`
const lifecyclePath = (flag: string, project = 'default') => `${flagPath(flag, project)}/lifecycle`
const COUNT = '/api/admin/lifecycle/count'
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

async function stages(pennon: TestApp, flag: string, project = 'default'): Promise<any[]> {
  const response = await call(pennon, 'GET', lifecyclePath(flag, project))
  assert.equal(response.status, 200, response.text)
  return response.body
}

const eventsOfType = async (pennon: TestApp, ...types: string[]) => (await allEvents(pennon)).filter((event) => types.includes(event.type))

async function sendMetrics(pennon: TestApp, token: string, flags: readonly string[]): Promise<void> {
  const toggles = Object.fromEntries(flags.map((flag) => [flag, { yes: 1, no: 0, variants: {} }]))
  const bucket = { start: new Date(Date.now() - 1000).toISOString(), stop: new Date().toISOString(), toggles }
  const response = await call(pennon, 'POST', '/api/client/metrics', { appName: 'shop', instanceId: 'i-1', bucket }, { token })
  assert.equal(response.status, 202, response.text)
  await pennon.metrics.flush()
}

async function clientToken(pennon: TestApp, environment: string): Promise<string> {
  const response = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: `client-${environment}`, type: 'client', environment })
  assert.equal(response.status, 201, response.text)
  return response.body.secret
}

onEachDatabase('flag lifecycle', (database) => {
  test('a new flag is initial; complete and uncomplete, each with its event once; the flag read shows the current stage', async (t) => {
    const pennon = await useTestApp(t, database)
    const flag = await createFlag(pennon, 'checkout')
    assert.deepEqual(await stages(pennon, 'checkout'), [{ stage: 'initial', enteredStageAt: flag.createdAt }])
    const read = await call(pennon, 'GET', flagPath('checkout'))
    assert.deepEqual(read.body.lifecycle, { stage: 'initial', enteredStageAt: flag.createdAt })

    const completed = await call(pennon, 'POST', `${lifecyclePath('checkout')}/complete`, { status: 'kept', statusValue: 'blue' })
    assert.equal(completed.status, 200, completed.text)
    assert.equal(completed.text, '')
    const [event] = await eventsOfType(pennon, 'feature-completed')
    assert.deepEqual(
      { type: event.type, featureName: event.featureName, project: event.project, data: event.data, preData: event.preData },
      {
        type: 'feature-completed',
        featureName: 'checkout',
        project: 'default',
        data: { status: 'kept', statusValue: 'blue', kept: true },
        preData: null,
      },
    )
    assert.deepEqual(await stages(pennon, 'checkout'), [
      { stage: 'initial', enteredStageAt: flag.createdAt },
      { stage: 'completed', status: 'kept', enteredStageAt: event.createdAt },
    ])
    assert.deepEqual((await call(pennon, 'GET', flagPath('checkout'))).body.lifecycle, {
      stage: 'completed',
      status: 'kept',
      enteredStageAt: event.createdAt,
    })
    assert.deepEqual((await call(pennon, 'GET', COUNT)).body, { initial: 0, preLive: 0, live: 0, completed: 1, archived: 0 })

    // Completed already: it stays as it was completed, and nothing is recorded.
    const again = await call(pennon, 'POST', `${lifecyclePath('checkout')}/complete`, { status: 'discarded' })
    assert.equal(again.status, 200)
    assert.equal((await eventsOfType(pennon, 'feature-completed')).length, 1)
    assert.equal((await stages(pennon, 'checkout'))[1].status, 'kept')

    const uncompleted = await call(pennon, 'POST', `${lifecyclePath('checkout')}/uncomplete`)
    assert.equal(uncompleted.status, 200, uncompleted.text)
    assert.equal(uncompleted.text, '')
    const [undo] = await eventsOfType(pennon, 'feature-uncompleted')
    assert.deepEqual([undo.featureName, undo.project, undo.data, undo.preData], ['checkout', 'default', null, null])
    assert.deepEqual(await stages(pennon, 'checkout'), [{ stage: 'initial', enteredStageAt: flag.createdAt }])
    assert.equal((await call(pennon, 'POST', `${lifecyclePath('checkout')}/uncomplete`)).status, 200)
    assert.equal((await eventsOfType(pennon, 'feature-uncompleted')).length, 1, 'not completed: nothing to record')

    const discarded = await call(pennon, 'POST', `${lifecyclePath('checkout')}/complete`, { status: 'discarded' })
    assert.equal(discarded.status, 200)
    const [, second] = await eventsOfType(pennon, 'feature-completed')
    assert.deepEqual(second.data, { status: 'discarded', kept: false })
  })

  test('archived when archived; a revive starts over at initial; the count follows each flag', async (t) => {
    const pennon = await useTestApp(t, database)
    const flag = await createFlag(pennon, 'old')
    await createFlag(pennon, 'young')
    assert.equal((await call(pennon, 'DELETE', flagPath('old'))).status, 202)
    const [archived] = await eventsOfType(pennon, 'feature-archived')
    assert.deepEqual(await stages(pennon, 'old'), [
      { stage: 'initial', enteredStageAt: flag.createdAt },
      { stage: 'archived', enteredStageAt: archived.createdAt },
    ])
    assert.deepEqual((await call(pennon, 'GET', COUNT)).body, { initial: 1, preLive: 0, live: 0, completed: 0, archived: 1 })

    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/revive', { features: ['old'] })).status, 200)
    const [revived] = await eventsOfType(pennon, 'feature-revived')
    assert.deepEqual(await stages(pennon, 'old'), [{ stage: 'initial', enteredStageAt: revived.createdAt }])
    assert.deepEqual((await call(pennon, 'GET', COUNT)).body, { initial: 2, preLive: 0, live: 0, completed: 0, archived: 0 })

    // Deleted for good: its stages go with it.
    assert.equal((await call(pennon, 'DELETE', flagPath('old'))).status, 202)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/delete', { features: ['old'] })).status, 200)
    assert.deepEqual((await call(pennon, 'GET', COUNT)).body, { initial: 1, preLive: 0, live: 0, completed: 0, archived: 0 })
  })

  test('SDK reports through the metrics API: pre-live from any environment, live from production once the flag is on there', async (t) => {
    const pennon = await useTestApp(t, database)
    const flag = await createFlag(pennon, 'rollout')
    const development = await clientToken(pennon, 'development')
    const production = await clientToken(pennon, 'production')

    await sendMetrics(pennon, development, ['rollout'])
    const afterDevelopment = await stages(pennon, 'rollout')
    assert.deepEqual(
      afterDevelopment.map((entered) => entered.stage),
      ['initial', 'pre-live'],
    )
    assert.match(afterDevelopment[1].enteredStageAt, ISO)
    assert.ok(afterDevelopment[1].enteredStageAt >= flag.createdAt)

    // Off in production: seen there, but not live.
    await sendMetrics(pennon, production, ['rollout'])
    assert.deepEqual(await stages(pennon, 'rollout'), afterDevelopment)

    const on = await call(pennon, 'POST', `${flagPath('rollout')}/environments/production/on`)
    assert.equal(on.status, 200, on.text)
    await sendMetrics(pennon, production, ['rollout'])
    const live = await stages(pennon, 'rollout')
    assert.deepEqual(
      live.map((entered) => entered.stage),
      ['initial', 'pre-live', 'live'],
    )
    assert.deepEqual(live.slice(0, 2), afterDevelopment, 'a stage once entered keeps its time')
    assert.deepEqual((await call(pennon, 'GET', flagPath('rollout'))).body.lifecycle, live[2])
    assert.deepEqual((await call(pennon, 'GET', COUNT)).body, { initial: 0, preLive: 0, live: 1, completed: 0, archived: 0 })

    // Further reports change nothing; an archived flag is not moved by reports.
    await sendMetrics(pennon, production, ['rollout'])
    assert.deepEqual(await stages(pennon, 'rollout'), live)
    await createFlag(pennon, 'retired')
    assert.equal((await call(pennon, 'DELETE', flagPath('retired'))).status, 202)
    await sendMetrics(pennon, development, ['retired'])
    assert.deepEqual(
      (await stages(pennon, 'retired')).map((entered) => entered.stage),
      ['initial', 'archived'],
    )
    // Revived, it starts over and reports move it again.
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/revive', { features: ['rollout'] })).status, 200)
    assert.equal((await call(pennon, 'DELETE', flagPath('rollout'))).status, 202)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/revive', { features: ['rollout'] })).status, 200)
    await sendMetrics(pennon, development, ['rollout'])
    assert.deepEqual(
      (await stages(pennon, 'rollout')).map((entered) => entered.stage),
      ['initial', 'pre-live'],
    )
  })

  test('permissions: reads for any admin caller, completion needs UPDATE_FEATURE; 404s; a bad body is a 400', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    await createProject(pennon, 'other')
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2)
    assert.equal((await call(pennon, 'GET', lifecyclePath('checkout'), undefined, { token: viewer })).status, 200)
    assert.equal((await call(pennon, 'GET', COUNT, undefined, { token: viewer })).status, 200)
    for (const [path, body] of [
      [`${lifecyclePath('checkout')}/complete`, { status: 'kept' }],
      [`${lifecyclePath('checkout')}/uncomplete`, undefined],
    ] as const) {
      const refused = await call(pennon, 'POST', path, body, { token: viewer })
      assert.equal(refused.status, 403, refused.text)
      assert.deepEqual(refused.body.permissions, ['UPDATE_FEATURE'])
      assert.equal((await call(pennon, 'POST', path, body, { token: editor })).status, 200)
    }
    assert.deepEqual(
      (await eventsOfType(pennon, 'feature-completed', 'feature-uncompleted')).map((event) => event.type),
      ['feature-completed', 'feature-uncompleted'],
      "the editor's changes, none of the viewer's",
    )

    const missing = (flag: string, project: string, holder?: string) =>
      errorOf(
        'NotFoundError',
        `There's no flag named ${JSON.stringify(flag)} in project ${JSON.stringify(project)}${holder ? `, but there is one in project ${JSON.stringify(holder)}` : ''}.`,
      )
    for (const [project, flag, holder] of [
      ['default', 'ghost', undefined],
      ['nowhere', 'checkout', 'default'],
      ['other', 'checkout', 'default'],
    ] as const) {
      for (const [method, path, body] of [
        ['GET', lifecyclePath(flag, project), undefined],
        ['POST', `${lifecyclePath(flag, project)}/complete`, { status: 'kept' }],
        ['POST', `${lifecyclePath(flag, project)}/uncomplete`, undefined],
      ] as const) {
        const response = await call(pennon, method, path, body)
        assert.equal(response.status, 404, `${method} ${path}`)
        assert.deepEqual(withoutId(response.body), missing(flag, project, holder))
      }
    }

    const before = (await allEvents(pennon)).length
    for (const [body, path] of [
      [{ status: 'maybe' }, '/body/status'],
      [{}, '/body/status'],
      [{ status: 'kept', statusValue: 7 }, '/body/statusValue'],
      [{ status: 'kept', extra: true }, '/body/extra'],
    ] as const) {
      const response = await call(pennon, 'POST', `${lifecyclePath('checkout')}/complete`, body)
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.equal(response.body.name, 'ValidationError')
      assert.ok(
        response.body.details.some((detail: any) => detail.path === path),
        `${JSON.stringify(body)}: ${response.text}`,
      )
    }
    assert.equal((await allEvents(pennon)).length, before)
  })
})
