/** The reference's routes that name a flag without its project: POST /features/validate and the legacy archive routes. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { createFlag, createProject, eventMark, flagEvent, fromOneRequest, getFlag, projectPath } from '../../../test/helpers/flags.ts'

const VALIDATE = '/api/admin/features/validate'

onEachDatabase('flag routes by name', (database) => {
  test('POST /features/validate: 200 with no body for a free name; 409 for a taken one (archived too); 400 for a bad one', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'taken', 'other')
    await createFlag(pennon, 'retired')
    assert.equal((await call(pennon, 'DELETE', `${projectPath()}/features/retired`)).status, 202)

    const free = await call(pennon, 'POST', VALIDATE, { name: 'free', projectId: 'default' })
    assert.equal(free.status, 200)
    assert.equal(free.text, '')
    // projectId may be null or absent; a Viewer may ask.
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'POST', VALIDATE, { name: 'free', projectId: null }, { token: viewer })).status, 200)

    const taken = await call(pennon, 'POST', VALIDATE, { name: 'taken' })
    assert.equal(taken.status, 409)
    assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', 'A flag named "taken" already exists in project "other".'))
    const archived = await call(pennon, 'POST', VALIDATE, { name: 'retired' })
    assert.equal(archived.status, 409)
    assert.deepEqual(
      withoutId(archived.body),
      errorOf('NameExistsError', 'An archived flag named "retired" already exists in project "default".'),
    )

    const bad = await call(pennon, 'POST', VALIDATE, { name: 'a b' })
    assert.equal(bad.status, 400)
    const message =
      'The `/body/name` property must be URL-friendly (letters, digits and - _ . ! ~ * \' ( ) only, not "." or ".."). You sent "a b".'
    assert.deepEqual(withoutId(bad.body), { name: 'ValidationError', message, details: [{ path: '/body/name', message }] })
    const missing = await call(pennon, 'POST', VALIDATE, { projectId: 'default' })
    assert.equal(missing.status, 400)
    assert.equal(missing.body.details[0].path, '/body/name')
  })

  test('POST /archive/revive/:name revives an archived flag in its own project with feature-revived; 404 for an unknown one', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'sleeper', 'other')
    assert.equal((await call(pennon, 'DELETE', `${projectPath('other')}/features/sleeper`)).status, 202)

    const mark = await eventMark(pennon)
    const revived = await call(pennon, 'POST', '/api/admin/archive/revive/sleeper')
    assert.equal(revived.status, 200)
    assert.equal(revived.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [flagEvent('feature-revived', 'sleeper', 'other')])
    assert.equal((await getFlag(pennon, 'sleeper', 'other')).archived, false)

    // An active flag: nothing to do, no event.
    const again = await eventMark(pennon)
    assert.equal((await call(pennon, 'POST', '/api/admin/archive/revive/sleeper')).status, 200)
    assert.deepEqual(await again.since(), [])

    const unknown = await call(pennon, 'POST', '/api/admin/archive/revive/ghost')
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'There\'s no flag named "ghost".'))
  })

  test('DELETE /archive/:name deletes an archived flag for good with feature-deleted; an active or unknown one is left (200)', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'gone', 'other')
    await createFlag(pennon, 'active', 'other')
    assert.equal((await call(pennon, 'DELETE', `${projectPath('other')}/features/gone`)).status, 202)
    const {
      environments: _e,
      dependencies: _d,
      children: _c,
      potentiallyStale: _p,
      lastSeenAt: _l,
      links: _k,
      lifecycle: _s,
      favorite: _f,
      ...preData
    } = await getFlag(pennon, 'gone', 'other')

    const mark = await eventMark(pennon)
    const deleted = await call(pennon, 'DELETE', '/api/admin/archive/gone')
    assert.equal(deleted.status, 200)
    assert.equal(deleted.text, '')
    assert.deepEqual(fromOneRequest(await mark.since()), [flagEvent('feature-deleted', 'gone', 'other', null, preData)])
    assert.equal((await call(pennon, 'GET', `${projectPath('other')}/features/gone`)).status, 404)

    const untouched = await eventMark(pennon)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/archive/active')).status, 200)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/archive/ghost')).status, 200)
    assert.deepEqual(await untouched.since(), [])
    assert.equal((await getFlag(pennon, 'active', 'other')).archived, false)
  })

  test('permissions: the legacy delete needs DELETE_FEATURE, the legacy revive UPDATE_FEATURE', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'f1')
    assert.equal((await call(pennon, 'DELETE', `${projectPath()}/features/f1`)).status, 202)
    const viewer = await serviceAccountToken(pennon, 3)
    const needs = (permission: string) =>
      errorOf('NoAccessError', `Missing permission: this operation needs "${permission}".`, { permissions: [permission] })
    const revive = await call(pennon, 'POST', '/api/admin/archive/revive/f1', undefined, { token: viewer })
    assert.equal(revive.status, 403)
    assert.deepEqual(withoutId(revive.body), needs('UPDATE_FEATURE'))
    const remove = await call(pennon, 'DELETE', '/api/admin/archive/f1', undefined, { token: viewer })
    assert.equal(remove.status, 403)
    assert.deepEqual(withoutId(remove.body), needs('DELETE_FEATURE'))
    assert.equal((await getFlag(pennon, 'f1')).archived, true)
    const editor = await serviceAccountToken(pennon, 2)
    assert.equal((await call(pennon, 'POST', '/api/admin/archive/revive/f1', undefined, { token: editor })).status, 200)
  })
})
