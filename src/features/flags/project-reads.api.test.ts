import assert from 'node:assert/strict'
import { test } from 'node:test'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'

const flagPath = (project: string, name = '') => `/api/admin/projects/${project}/features${name ? `/${name}` : ''}`

onEachDatabase('project reads: flag creators, dependencies, parent variants', (database) => {
  test('flag-creators: the users who created active flags, by name, the admin tokens as the reference’s user -42; archived flags left out', async (t) => {
    const pennon = await useTestApp(t, database)
    const aliceId = await createUser(pennon, 'alice@example.com', 2, { name: 'Alice' })
    const bobId = await createUser(pennon, 'bob@example.com', 2)
    const alice = asBrowser(await signIn(pennon, 'alice@example.com'))
    const bob = asBrowser(await signIn(pennon, 'bob@example.com'))
    assert.equal((await call(pennon, 'POST', flagPath('default'), { name: 'a1' }, alice)).status, 201)
    assert.equal((await call(pennon, 'POST', flagPath('default'), { name: 'a2' }, alice)).status, 201)
    assert.equal((await call(pennon, 'POST', flagPath('default'), { name: 'b1' }, bob)).status, 201)
    assert.equal((await call(pennon, 'POST', flagPath('default'), { name: 'by-token' })).status, 201)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' })).status, 201)

    const creators = await call(pennon, 'GET', '/api/admin/projects/default/flag-creators')
    assert.equal(creators.status, 200)
    const adminTokens = { id: -42, name: 'Unleash Admin Token User' }
    assert.deepEqual(creators.body, [{ id: aliceId, name: 'Alice' }, adminTokens, { id: bobId, name: 'bob@example.com' }])
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/projects/other/flag-creators')).body, [])

    // Bob's only flag archived, then deleted and created again by the admin token: Bob is no creator any more.
    assert.equal((await call(pennon, 'DELETE', flagPath('default', 'b1'))).status, 202)
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/projects/default/flag-creators')).body, [
      { id: aliceId, name: 'Alice' },
      adminTokens,
    ])
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/delete', { features: ['b1'] })).status, 200)
    assert.equal((await call(pennon, 'POST', flagPath('default'), { name: 'b1' })).status, 201)
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/projects/default/flag-creators')).body, [
      { id: aliceId, name: 'Alice' },
      adminTokens,
    ])

    const missing = await call(pennon, 'GET', '/api/admin/projects/ghost/flag-creators')
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))
  })

  test('dependencies: whether any flag depends on another, in the whole instance', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    const check = async (project: string) => {
      const response = await call(pennon, 'GET', `/api/admin/projects/${project}/dependencies`, undefined, { token: viewer })
      assert.equal(response.status, 200)
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      return response.text
    }
    assert.equal(await check('default'), 'false')
    assert.equal((await call(pennon, 'POST', flagPath('default'), { name: 'parent' })).status, 201)
    assert.equal((await call(pennon, 'POST', flagPath('default'), { name: 'child' })).status, 201)
    assert.equal(await check('default'), 'false')
    assert.equal((await call(pennon, 'POST', `${flagPath('default', 'child')}/dependencies`, { feature: 'parent' })).status, 200)
    assert.equal(await check('default'), 'true')
    // As the reference: the project of the path is not consulted.
    assert.equal(await check('ghost'), 'true')
    assert.equal((await call(pennon, 'DELETE', `${flagPath('default', 'child')}/dependencies`)).status, 200)
    assert.equal(await check('default'), 'false')
  })

  test("parent-variants: the names of the parent's environment and strategy variants, unique and sorted", async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', flagPath('default'), { name: 'parent' })).status, 201)
    const url = `${flagPath('default', 'parent')}/parent-variants`
    const viewer = await serviceAccountToken(pennon, 3)
    const empty = await call(pennon, 'GET', url, undefined, { token: viewer })
    assert.equal(empty.status, 200)
    assert.deepEqual(empty.body, [])

    const environment = (name: string) => `${flagPath('default', 'parent')}/environments/${name}`
    const put = await call(pennon, 'PUT', `${environment('development')}/variants`, [
      { name: 'red', weightType: 'variable', weight: 500, stickiness: 'default' },
      { name: 'blue', weightType: 'variable', weight: 500, stickiness: 'default' },
    ])
    assert.equal(put.status, 200, put.text)
    const strategy = await call(pennon, 'POST', `${environment('production')}/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: '100', stickiness: 'default', groupId: 'parent' },
      variants: [
        { name: 'red', weightType: 'variable', weight: 500, stickiness: 'default' },
        { name: 'amber', weightType: 'variable', weight: 500, stickiness: 'default' },
      ],
    })
    assert.equal(strategy.status, 200, strategy.text)
    assert.deepEqual((await call(pennon, 'GET', url)).body, ['amber', 'blue', 'red'])

    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' })).status, 201)
    const elsewhere = await call(pennon, 'GET', '/api/admin/projects/other/features/parent/parent-variants')
    assert.equal(elsewhere.status, 404)
    assert.deepEqual(
      withoutId(elsewhere.body),
      errorOf('NotFoundError', `There's no flag named "parent" in project "other", but there is one in project "default".`),
    )
    const ghost = await call(pennon, 'GET', '/api/admin/projects/default/features/ghost/parent-variants')
    assert.equal(ghost.status, 404)
    assert.deepEqual(withoutId(ghost.body), errorOf('NotFoundError', `There's no flag named "ghost" in project "default".`))
  })
})
