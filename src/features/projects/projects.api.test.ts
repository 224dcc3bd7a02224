import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'

onEachDatabase('projects', (database) => {
  test('default exists; create, list, delete with events', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await call(pennon, 'POST', '/api/admin/projects', { id: 'team-a', name: 'Team A', description: 'A team' })
    assert.equal(created.status, 201)
    assert.equal(created.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(created.body, { id: 'team-a', name: 'Team A', description: 'A team', createdAt: created.body.createdAt })
    assert.match(created.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

    const list = await call(pennon, 'GET', '/api/admin/projects')
    assert.equal(list.status, 200)
    assert.deepEqual(
      list.body.projects.map((p: { id: string }) => p.id),
      ['default', 'team-a'],
    )
    assert.equal(list.body.version, 1)
    // The reference's `?archived=true`: Pennon deletes projects, so there are none, never the active ones.
    const archived = await call(pennon, 'GET', '/api/admin/projects?archived=true')
    assert.equal(archived.status, 200)
    assert.deepEqual(archived.body, { version: 1, projects: [] })
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/projects?archived=false')).body, list.body)
    const unclear = await call(pennon, 'GET', '/api/admin/projects?archived=yes')
    assert.equal(unclear.status, 400)
    assert.deepEqual(unclear.body.details, [
      { path: '/query/archived', message: 'The `/query/archived` property must be one of "true", "false". You sent "yes".' },
    ])

    const deleted = await call(pennon, 'DELETE', '/api/admin/projects/team-a')
    assert.equal(deleted.status, 200)
    assert.equal(deleted.text, '')

    const events = (await allEvents(pennon)).filter((e) => e.type.startsWith('project-'))
    assert.deepEqual(
      events.map((e) => [e.type, e.project, e.createdBy, e.createdByUserId]),
      [
        ['project-created', 'team-a', 'admin', -42],
        ['project-deleted', 'team-a', 'admin', -42],
      ],
    )
    assert.deepEqual(events[0].data, created.body)
    assert.deepEqual(events[1].preData, created.body)
    assert.equal(events[1].data, null)
  })

  test('duplicate id is a 409, a bad id a 400, unknown delete a 404, default cannot go', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'dup', name: 'x' })).status, 201)
    const dup = await call(pennon, 'POST', '/api/admin/projects', { id: 'dup', name: 'y' })
    assert.equal(dup.status, 409)
    assert.deepEqual(withoutId(dup.body), errorOf('NameExistsError', 'A project with id "dup" already exists.'))

    const bad = await call(pennon, 'POST', '/api/admin/projects', { id: 'has space', name: 'y' })
    assert.equal(bad.status, 400)
    const message = `The \`/body/id\` property must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or ".."). You sent "has space".`
    assert.deepEqual(withoutId(bad.body), { name: 'ValidationError', message, details: [{ path: '/body/id', message }] })

    const missing = await call(pennon, 'DELETE', '/api/admin/projects/ghost')
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))

    const defaultProject = await call(pennon, 'DELETE', '/api/admin/projects/default')
    assert.equal(defaultProject.status, 409)
    assert.deepEqual(withoutId(defaultProject.body), errorOf('InvalidOperationError', 'The "default" project cannot be deleted.'))
  })

  test('viewers may list but not create', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: viewer })).status, 200)
    const refused = await call(pennon, 'POST', '/api/admin/projects', { id: 'v', name: 'v' }, { token: viewer })
    assert.equal(refused.status, 403)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "CREATE_PROJECT".', { permissions: ['CREATE_PROJECT'] }),
    )
    const editor = await serviceAccountToken(pennon, 2)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'e', name: 'e' }, { token: editor })).status, 201)
  })
})
