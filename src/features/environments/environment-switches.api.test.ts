/** An environment switched on or off for the whole instance (POST /environments/:name/on|off), and the environments' sort order. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { createProject, eventMark } from '../../../test/helpers/flags.ts'
import { checkOneRequest } from '../../../test/helpers/events.ts'

const ENVIRONMENTS = '/api/admin/environments'
const production = { name: 'production', type: 'production', enabled: true, protected: false, sortOrder: 3 }

/** `environment-updated` of one environment, as `fromOneRequest` shows it. */
const updated = (data: { name: string } & Record<string, unknown>, preData: object) => ({
  type: 'environment-updated',
  environment: data.name,
  featureName: null,
  project: null,
  data,
  preData,
})

/** The events of one request (one group, the admin token's), as `updated` shows them. */
const fromOneRequest = (events: readonly any[]) =>
  checkOneRequest(events).map(({ type, environment, featureName, project, data, preData }) => ({
    type,
    environment,
    featureName,
    project,
    data,
    preData,
  }))

onEachDatabase('environment switches and sort order', (database) => {
  test('off: 204, enabled false, environment-updated; new projects leave it out; the same again: no event; on: back', async (t) => {
    const pennon = await useTestApp(t, database)
    const mark = await eventMark(pennon)
    const off = await call(pennon, 'POST', `${ENVIRONMENTS}/production/off`)
    assert.equal(off.status, 204)
    assert.equal(off.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [updated({ ...production, enabled: false }, production)])
    assert.equal((await call(pennon, 'GET', `${ENVIRONMENTS}/production`)).body.enabled, false)
    await createProject(pennon, 'fresh')
    const ofFresh = (await call(pennon, 'GET', `${ENVIRONMENTS}/project/fresh`)).body.environments
    assert.deepEqual(
      ofFresh.map((e: { name: string; visible: boolean }) => [e.name, e.visible]),
      [
        ['development', true],
        ['production', false],
      ],
    )

    const again = await eventMark(pennon)
    assert.equal((await call(pennon, 'POST', `${ENVIRONMENTS}/production/off`)).status, 204)
    assert.deepEqual(await again.since(), [])

    const on = await eventMark(pennon)
    assert.equal((await call(pennon, 'POST', `${ENVIRONMENTS}/production/on`)).status, 204)
    assert.deepEqual(fromOneRequest(await on.since()), [updated(production, { ...production, enabled: false })])
    assert.equal((await call(pennon, 'GET', `${ENVIRONMENTS}/production`)).body.enabled, true)
  })

  test('on/off: 404 for an unknown environment; ADMIN only', async (t) => {
    const pennon = await useTestApp(t, database)
    const unknown = await call(pennon, 'POST', `${ENVIRONMENTS}/nowhere/on`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Environment "nowhere" does not exist.'))
    const editor = await serviceAccountToken(pennon, 2)
    const refused = await call(pennon, 'POST', `${ENVIRONMENTS}/production/off`, undefined, { token: editor })
    assert.equal(refused.status, 403)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "ADMIN".', { permissions: ['ADMIN'] }),
    )
    assert.equal((await call(pennon, 'GET', `${ENVIRONMENTS}/production`)).body.enabled, true)
  })

  test('PUT /environments/sort-order: 200, the list follows it; one event per environment changed; all or none', async (t) => {
    const pennon = await useTestApp(t, database)
    const mark = await eventMark(pennon)
    const sorted = await call(pennon, 'PUT', `${ENVIRONMENTS}/sort-order`, { production: 1, development: 2 })
    assert.equal(sorted.status, 200)
    assert.equal(sorted.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [updated({ ...production, sortOrder: 1 }, production)])
    const names = async () => (await call(pennon, 'GET', ENVIRONMENTS)).body.environments.map((e: { name: string }) => e.name)
    assert.deepEqual(await names(), ['production', 'development'])

    const unknown = await call(pennon, 'PUT', `${ENVIRONMENTS}/sort-order`, { development: 9, nowhere: 1 })
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Environment "nowhere" does not exist.'))
    assert.equal((await call(pennon, 'GET', `${ENVIRONMENTS}/development`)).body.sortOrder, 2)

    for (const body of [{ development: 'first' }, { development: 1.5 }, [1, 2]]) {
      const bad = await call(pennon, 'PUT', `${ENVIRONMENTS}/sort-order`, body)
      assert.equal(bad.status, 400, JSON.stringify(body))
      assert.equal(bad.body.name, 'ValidationError')
    }
    assert.equal((await call(pennon, 'PUT', `${ENVIRONMENTS}/sort-order`, {})).status, 200)
  })
})
