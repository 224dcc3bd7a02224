/**
 * Favorites through the real app on each database: a signed-in user marks flags and projects,
 * which their flag reads, flag search (the answer, the `favorite` filter, `favoritesFirst`),
 * projects list and project health report show; another user's are not theirs; callers who are no person are refused; 404s.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { createFlag, createProject } from '../../../test/helpers/flags.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'

const P = '/api/admin/projects'
const flagFavorites = (flag: string, project = 'default') => `${P}/${project}/features/${flag}/favorites`
const NO_PERSON = errorOf(
  'NoAccessError',
  'Favorites belong to a signed-in user (a session or a personal access token); an API token, a service account or AUTH_TYPE=none has none.',
  { permissions: [] },
)

async function person(pennon: TestApp, email: string, rootRole: 1 | 2 | 3 = 3) {
  await createUser(pennon, email, rootRole)
  return asBrowser(await signIn(pennon, email))
}

async function ok(pennon: TestApp, method: 'POST' | 'DELETE', url: string, as: object): Promise<void> {
  const response = await call(pennon, method, url, undefined, as)
  assert.equal(response.status, 200, `${method} ${url}: ${response.text}`)
  assert.equal(response.text, '')
}

const names = async (pennon: TestApp, query: string, as?: object) => {
  const response = await call(pennon, 'GET', `/api/admin/search/features${query}`, undefined, as)
  assert.equal(response.status, 200, response.text)
  return response.body.features.map((flag: any) => [flag.name, flag.favorite])
}

onEachDatabase('favorites', (database) => {
  test("a user's favorite flags and projects: in the flag read, the search and the projects list, and only theirs", async (t) => {
    const pennon = await useTestApp(t, database)
    for (const name of ['alpha', 'beta', 'gamma']) await createFlag(pennon, name)
    await createProject(pennon, 'web')
    const ada = await person(pennon, 'ada@example.com')
    const bob = await person(pennon, 'bob@example.com', 2)

    await ok(pennon, 'POST', flagFavorites('gamma'), ada)
    await ok(pennon, 'POST', flagFavorites('gamma'), ada)
    await ok(pennon, 'POST', `${P}/web/favorites`, ada)
    const read = async (as?: object) => (await call(pennon, 'GET', `${P}/default/features/gamma`, undefined, as)).body.favorite
    assert.deepEqual([await read(ada), await read(bob), await read()], [true, false, false])

    assert.deepEqual(await names(pennon, '', ada), [
      ['alpha', false],
      ['beta', false],
      ['gamma', true],
    ])
    assert.deepEqual(await names(pennon, '?favoritesFirst=true', ada), [
      ['gamma', true],
      ['alpha', false],
      ['beta', false],
    ])
    assert.deepEqual(await names(pennon, '?favoritesFirst=true&sortBy=name&sortOrder=desc', ada), [
      ['gamma', true],
      ['beta', false],
      ['alpha', false],
    ])
    assert.deepEqual(await names(pennon, '?favorite=IS:true', ada), [['gamma', true]])
    assert.deepEqual(await names(pennon, '?favorite=IS_NOT:true', ada), [
      ['alpha', false],
      ['beta', false],
    ])
    assert.deepEqual(await names(pennon, '?favorite=IS:false&favoritesFirst=true', ada), [
      ['alpha', false],
      ['beta', false],
    ])
    assert.deepEqual(await names(pennon, '?favorite=IS_NONE_OF:true,false', ada), [])
    // Not bob's, and the admin token has none: all flags, none a favorite; favorites only finds none.
    assert.deepEqual(await names(pennon, '?favoritesFirst=true', bob), [
      ['alpha', false],
      ['beta', false],
      ['gamma', false],
    ])
    assert.deepEqual(await names(pennon, '?favorite=IS:true', bob), [])
    assert.deepEqual(await names(pennon, '?favorite=IS:true'), [])
    assert.deepEqual((await names(pennon, '?favorite=IS:false')).length, 3)

    const projects = async (as?: object) =>
      (await call(pennon, 'GET', P, undefined, as)).body.projects.map((project: any) => [project.id, project.favorite])
    assert.deepEqual(await projects(ada), [
      ['default', false],
      ['web', true],
    ])
    assert.deepEqual(await projects(bob), [
      ['default', false],
      ['web', false],
    ])
    assert.deepEqual(await projects(), [
      ['default', false],
      ['web', false],
    ])
    const health = async (as?: object) => (await call(pennon, 'GET', `${P}/web/health-report`, undefined, as)).body.favorite
    assert.deepEqual([await health(ada), await health(bob), await health()], [true, false, false])
    const [web] = (await call(pennon, 'GET', P, undefined, ada)).body.projects.filter((project: any) => project.id === 'web')
    assert.deepEqual(Object.keys(web), ['id', 'name', 'description', 'createdAt', 'favorite'])

    await ok(pennon, 'DELETE', flagFavorites('gamma'), ada)
    await ok(pennon, 'DELETE', flagFavorites('gamma'), ada)
    await ok(pennon, 'DELETE', `${P}/web/favorites`, ada)
    assert.equal(await read(ada), false)
    assert.deepEqual(await projects(ada), [
      ['default', false],
      ['web', false],
    ])

    // A flag deleted for good, or a project deleted, takes its favorites along.
    await ok(pennon, 'POST', flagFavorites('beta'), ada)
    await ok(pennon, 'POST', `${P}/web/favorites`, ada)
    assert.equal((await call(pennon, 'DELETE', `${P}/default/features/beta`)).status, 202)
    assert.equal((await call(pennon, 'POST', `${P}/default/delete`, { features: ['beta'] })).status, 200)
    assert.equal((await call(pennon, 'DELETE', `${P}/web`)).status, 200)
    assert.deepEqual(await names(pennon, '?favorite=IS:true', ada), [])
    assert.deepEqual(await projects(ada), [['default', false]])
  })

  test('callers who are no person are refused with a 403; unknown projects and flags are a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'alpha')
    await createProject(pennon, 'web')
    const viewerAccount = await serviceAccountToken(pennon, 3)
    const routes = [
      ['POST', flagFavorites('alpha')],
      ['DELETE', flagFavorites('alpha')],
      ['POST', `${P}/web/favorites`],
      ['DELETE', `${P}/web/favorites`],
    ] as const
    for (const [method, url] of routes) {
      for (const token of [undefined, viewerAccount]) {
        const refused = await call(pennon, method, url, undefined, token === undefined ? {} : { token })
        assert.equal(refused.status, 403, `${method} ${url}`)
        assert.deepEqual(withoutId(refused.body), NO_PERSON)
      }
    }

    const ada = await person(pennon, 'ada@example.com')
    const missingFlag = (flag: string, project: string, holder?: string) =>
      errorOf(
        'NotFoundError',
        `There's no flag named ${JSON.stringify(flag)} in project ${JSON.stringify(project)}${holder ? `, but there is one in project ${JSON.stringify(holder)}` : ''}.`,
      )
    for (const method of ['POST', 'DELETE'] as const) {
      for (const [url, error] of [
        [flagFavorites('ghost'), missingFlag('ghost', 'default')],
        [flagFavorites('alpha', 'web'), missingFlag('alpha', 'web', 'default')],
        [flagFavorites('alpha', 'nowhere'), missingFlag('alpha', 'nowhere', 'default')],
        [`${P}/nowhere/favorites`, errorOf('NotFoundError', 'Project "nowhere" does not exist.')],
      ] as const) {
        const response = await call(pennon, method, url, undefined, ada)
        assert.equal(response.status, 404, `${method} ${url}`)
        assert.deepEqual(withoutId(response.body), error)
      }
    }
  })
})
