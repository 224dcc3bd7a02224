/**
 * The same admin calls as on Unleash 8.2 serve the same definitions to SDKs, so users keep their
 * buckets and variants after a migration: an empty flexibleRollout groupId is the flag's name,
 * variants are stored and served sorted by name (SDKs pick a variant by its position), and
 * `PUT …/variants-batch` sets variants in several environments. Checked on the served JSON
 * (GET /api/client/features with a client token), on each database.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { createFlag, eventMark, projectPath } from '../../../test/helpers/flags.ts'
import {
  addStrategy,
  at,
  fromOneRequestIn,
  placeEvent,
  placePath,
  strategiesPath,
  toggle,
  validationError,
} from '../../../test/helpers/strategies.ts'

async function served(pennon: TestApp, feature: string): Promise<any> {
  const token = await apiToken(pennon, 'client', `client-${feature}`)
  const response = await call(pennon, 'GET', '/api/client/features', undefined, { token })
  assert.equal(response.status, 200, response.text)
  return response.body.features.find((flag: { name: string }) => flag.name === feature)
}

const batchPath = (feature: string) => `${projectPath()}/features/${feature}/variants-batch`

onEachDatabase('served definitions as the reference serves them', (database) => {
  test('flexibleRollout with groupId "" (POST, PUT, PATCH) is stored and served grouped by the flag\'s name', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const created = await addStrategy(pennon, 'checkout', 'development', {
      name: 'flexibleRollout',
      parameters: { rollout: 40, stickiness: 'userId', groupId: '' },
    })
    assert.deepEqual(created.parameters, { rollout: '40', stickiness: 'userId', groupId: 'checkout' })
    assert.equal((await toggle(pennon, 'checkout', 'development', 'on')).status, 200)
    assert.deepEqual((await served(pennon, 'checkout')).strategies[0].parameters, {
      rollout: '40',
      stickiness: 'userId',
      groupId: 'checkout',
    })

    const strategy = `${strategiesPath('checkout', 'development')}/${created.id}`
    const put = await call(pennon, 'PUT', strategy, { name: 'flexibleRollout', parameters: { rollout: 60, groupId: 'other' } })
    assert.deepEqual(put.body.parameters, { rollout: '60', stickiness: 'default', groupId: 'other' })
    const cleared = await call(pennon, 'PUT', strategy, { name: 'flexibleRollout', parameters: { groupId: '', rollout: 60 } })
    assert.deepEqual(cleared.body.parameters, { rollout: '60', stickiness: 'default', groupId: 'checkout' })
    const patched = await call(pennon, 'PATCH', strategy, [{ op: 'replace', path: '/parameters/groupId', value: '' }])
    assert.equal(patched.status, 200, patched.text)
    assert.deepEqual(patched.body.parameters, { rollout: '60', stickiness: 'default', groupId: 'checkout' })
    assert.deepEqual((await served(pennon, 'checkout')).strategies[0].parameters, {
      rollout: '60',
      stickiness: 'default',
      groupId: 'checkout',
    })
  })

  test('strategy and environment variants are stored and served sorted by name; weights spread in the order sent', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'banner')
    // Three variable variants share 1000: the first sent (zeta) takes the one left over.
    const sent = [{ name: 'zeta' }, { name: 'alpha', stickiness: 'userId' }, { name: 'Beta', payload: { type: 'string', value: 'b' } }]
    const sorted = [
      { name: 'alpha', weight: 333, weightType: 'variable', stickiness: 'userId' },
      { name: 'Beta', weight: 333, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'b' } },
      { name: 'zeta', weight: 334, weightType: 'variable', stickiness: 'default' },
    ]
    const created = await addStrategy(pennon, 'banner', 'development', { name: 'default', variants: sent })
    assert.deepEqual(created.variants, sorted)
    const put = await call(pennon, 'PUT', `${placePath('banner', 'development')}/variants`, sent)
    const withOverrides = sorted.map((variant) => ({ ...variant, overrides: [] }))
    assert.deepEqual(put.body, { version: 1, variants: withOverrides })
    assert.equal((await toggle(pennon, 'banner', 'development', 'on')).status, 200)
    const flag = await served(pennon, 'banner')
    assert.deepEqual(flag.strategies[0].variants, sorted)
    assert.deepEqual(flag.variants, withOverrides)
  })

  test('PUT variants-batch: the same variants in every environment named, all or none, an event each', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'menu')
    const mark = await eventMark(pennon)
    const body = { variants: [{ name: 'b' }, { name: 'a', weightType: 'fix', weight: 200 }], environments: ['production', 'development'] }
    const stored = [
      { name: 'a', weight: 200, weightType: 'fix', stickiness: 'default', overrides: [] },
      { name: 'b', weight: 800, weightType: 'variable', stickiness: 'default', overrides: [] },
    ]
    const response = await call(pennon, 'PUT', batchPath('menu'), body)
    assert.equal(response.status, 200, response.text)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(response.body, { version: 1, variants: stored })
    for (const environment of ['development', 'production']) {
      assert.deepEqual((await call(pennon, 'GET', `${placePath('menu', environment)}/variants`)).body, { version: 1, variants: stored })
    }
    assert.deepEqual(fromOneRequestIn(await mark.since()), [
      placeEvent('feature-environment-variants-updated', 'menu', 'development', { variants: stored }, { variants: [] }),
      placeEvent('feature-environment-variants-updated', 'menu', 'production', { variants: stored }, { variants: [] }),
    ])

    // No environment: a 400, as the reference; an unknown one: a 404, and nothing is written.
    const none = 'The `/body/environments` property must name at least one environment: no environments were provided.'
    for (const refused of [{ variants: [] }, { variants: [], environments: [] }]) {
      const answer = await call(pennon, 'PUT', batchPath('menu'), refused)
      assert.equal(answer.status, 400)
      assert.deepEqual(withoutId(answer.body), validationError(at('/body/environments', none)))
    }
    const unknown = await call(pennon, 'PUT', batchPath('menu'), { variants: [], environments: ['development', 'staging'] })
    assert.equal(unknown.status, 404, unknown.text)
    assert.deepEqual((await call(pennon, 'GET', `${placePath('menu', 'development')}/variants`)).body, { version: 1, variants: stored })
    const badWeights = await call(pennon, 'PUT', batchPath('menu'), {
      variants: [{ name: 'a', weightType: 'fix', weight: 10 }],
      environments: ['development'],
    })
    assert.deepEqual(
      withoutId(badWeights.body),
      validationError(
        at(
          '/body/variants',
          "The `/body/variants` property's weights must sum to 1000 when every variant's weight is fixed. Yours sum to 10.",
        ),
      ),
    )

    // A Viewer may not.
    const viewer = await call(pennon, 'PUT', batchPath('menu'), body, { token: await serviceAccountToken(pennon, 3) })
    assert.equal(viewer.status, 403)
    assert.deepEqual(viewer.body.permissions, ['UPDATE_FEATURE_ENVIRONMENT_VARIANTS'])
  })
})
