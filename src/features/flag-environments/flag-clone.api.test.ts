import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'

const F = '/api/admin/projects/default/features'
const strategyBody = {
  name: 'flexibleRollout',
  title: 'Half',
  parameters: { rollout: '50', stickiness: 'default', groupId: 'source' },
  constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'], caseInsensitive: false, inverted: false }],
  variants: [{ name: 'red', weightType: 'variable', weight: 1000, stickiness: 'default' }],
}

onEachDatabase('cloning a flag', (database) => {
  test('copies metadata, strategies, variants and the dependency; environments start off; its events', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', F, { name: 'parent' })).status, 201)
    const source = await call(pennon, 'POST', F, { name: 'source', type: 'experiment', description: 'd', impressionData: true })
    assert.equal(source.status, 201)
    const segment = await call(pennon, 'POST', '/api/admin/segments', { name: 'beta', constraints: [] })
    assert.equal(segment.status, 201, segment.text)
    const strategy = await call(pennon, 'POST', `${F}/source/environments/production/strategies`, {
      ...strategyBody,
      segments: [segment.body.id],
    })
    assert.equal(strategy.status, 200, strategy.text)
    const variants = [{ name: 'blue', weightType: 'variable', weight: 1000, stickiness: 'default' }]
    assert.equal((await call(pennon, 'PUT', `${F}/source/environments/development/variants`, variants)).status, 200)
    assert.equal((await call(pennon, 'POST', `${F}/source/environments/development/on`)).status, 200)
    assert.equal((await call(pennon, 'POST', `${F}/source/dependencies`, { feature: 'parent', variants: ['x'] })).status, 200)
    const before = (await allEvents(pennon)).length

    const copy = await call(pennon, 'POST', `${F}/source/clone`, { name: 'copy' })
    assert.equal(copy.status, 201, copy.text)
    assert.deepEqual(copy.body, { ...source.body, name: 'copy', createdAt: copy.body.createdAt })

    const read = (await call(pennon, 'GET', `${F}/copy`)).body
    assert.deepEqual(read.dependencies, [{ feature: 'parent', enabled: true, variants: ['x'] }])
    assert.deepEqual(
      read.environments.map((e: { name: string; enabled: boolean; variants: unknown[] }) => [
        e.name,
        e.enabled,
        e.variants.map((v: any) => v.name),
      ]),
      [
        ['development', false, ['blue']],
        ['production', false, []],
      ],
    )
    const [copied] = (await call(pennon, 'GET', `${F}/copy/environments/production/strategies`)).body
    const { id: _a, ...original } = strategy.body
    const { id: _b, ...rest } = copied
    assert.deepEqual(rest, { ...original, parameters: { ...original.parameters, groupId: 'copy' } })

    const events = (await allEvents(pennon)).slice(before)
    assert.deepEqual(
      events.map((e) => [e.type, e.featureName, e.environment]),
      [
        ['feature-created', 'copy', null],
        // Switching development on gave the source its default strategy: copied too.
        ['feature-strategy-add', 'copy', 'development'],
        ['feature-strategy-add', 'copy', 'production'],
        ['feature-dependency-added', 'copy', null],
      ],
    )
    assert.deepEqual(events[0].data, copy.body)
    assert.deepEqual(events[2].data, copied)

    // replaceGroupId false keeps the source's groupId.
    assert.equal((await call(pennon, 'POST', `${F}/source/clone`, { name: 'kept', replaceGroupId: false })).status, 201)
    const [kept] = (await call(pennon, 'GET', `${F}/kept/environments/production/strategies`)).body
    assert.equal(kept.parameters.groupId, 'source')
  })

  test('a taken or bad name, an unknown source, a viewer: refused, nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', F, { name: 'source' })).status, 201)
    const viewer = await serviceAccountToken(pennon, 3)
    const before = (await allEvents(pennon)).length
    const taken = await call(pennon, 'POST', `${F}/source/clone`, { name: 'source' })
    assert.equal(taken.status, 409)
    assert.equal(withoutId(taken.body).name, 'NameExistsError')
    const bad = await call(pennon, 'POST', `${F}/source/clone`, { name: 'has space' })
    assert.equal(bad.status, 400)
    assert.equal(withoutId(bad.body).name, 'ValidationError')
    const missing = await call(pennon, 'POST', `${F}/ghost/clone`, { name: 'x' })
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', `There's no flag named "ghost" in project "default".`))
    const refused = await call(pennon, 'POST', `${F}/source/clone`, { name: 'x' }, { token: viewer })
    assert.equal(refused.status, 403)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "CREATE_FEATURE".', { permissions: ['CREATE_FEATURE'] }),
    )
    assert.equal((await allEvents(pennon)).length, before)
  })
})
