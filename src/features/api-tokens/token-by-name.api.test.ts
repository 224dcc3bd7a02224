/** GET /api-tokens/:name (the tokens of a name) and PUT /api-tokens/:token (a new expiry, the token named by its secret). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'

const TOKENS = '/api/admin/api-tokens'

onEachDatabase('api tokens by name and by secret', (database) => {
  test('GET /api-tokens/:name: every token of that name, oldest first, never a secret; an unknown name: []', async (t) => {
    const pennon = await useTestApp(t, database)
    const first = await call(pennon, 'POST', TOKENS, { tokenName: 'shared', type: 'client' })
    const second = await call(pennon, 'POST', TOKENS, { tokenName: 'shared', type: 'frontend', environment: 'production' })
    assert.equal((await call(pennon, 'POST', TOKENS, { tokenName: 'other', type: 'client' })).status, 201)
    const { secret: _a, ...firstToken } = first.body
    const { secret: _b, ...secondToken } = second.body

    const shared = await call(pennon, 'GET', `${TOKENS}/shared`)
    assert.equal(shared.status, 200)
    const expected = firstToken.createdAt <= secondToken.createdAt ? [firstToken, secondToken] : [secondToken, firstToken]
    assert.deepEqual(shared.body, { tokens: expected })
    assert.ok(!shared.text.includes('secret'))
    assert.deepEqual((await call(pennon, 'GET', `${TOKENS}/nobody`)).body, { tokens: [] })

    const viewer = await serviceAccountToken(pennon, 3)
    const refused = await call(pennon, 'GET', `${TOKENS}/shared`, undefined, { token: viewer })
    assert.equal(refused.status, 403)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "ADMIN".', { permissions: ['ADMIN'] }),
    )
  })

  test('PUT /api-tokens/:token sets the expiry (api-token-updated), the token working until then; an unknown secret: 200, nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await call(pennon, 'POST', TOKENS, { tokenName: 'ops', type: 'admin' })
    const { secret, ...before } = created.body
    const eventsBefore = (await allEvents(pennon)).length

    const updated = await call(pennon, 'PUT', `${TOKENS}/${secret}`, { expiresAt: '2099-06-01T12:00:00+02:00' })
    assert.equal(updated.status, 200)
    assert.equal(updated.text, '')
    const after = { ...before, expiresAt: '2099-06-01T10:00:00.000Z' }
    assert.deepEqual((await call(pennon, 'GET', `${TOKENS}/ops`)).body, { tokens: [after] })
    const events = (await allEvents(pennon)).slice(eventsBefore)
    assert.deepEqual(
      events.map(({ type, project, environment, data, preData }) => ({ type, project, environment, data, preData })),
      [{ type: 'api-token-updated', project: '*', environment: '*', data: after, preData: before }],
    )
    // The token still works until then.
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: secret })).status, 200)

    const unknown = await call(pennon, 'PUT', `${TOKENS}/*:*.not-a-token`, { expiresAt: '2099-01-01T00:00:00Z' })
    assert.equal(unknown.status, 200)
    assert.equal((await allEvents(pennon)).length, eventsBefore + 1)
  })

  test('PUT /api-tokens/:token: expiresAt is required, a date-time, in the future; ADMIN only', async (t) => {
    const pennon = await useTestApp(t, database)
    const { secret } = (await call(pennon, 'POST', TOKENS, { tokenName: 'ci', type: 'client' })).body
    const missing = await call(pennon, 'PUT', `${TOKENS}/${secret}`, {})
    assert.equal(missing.status, 400)
    assert.deepEqual(
      missing.body.details.map((d: { path: string }) => d.path),
      ['/body/expiresAt'],
    )
    const notADate = await call(pennon, 'PUT', `${TOKENS}/${secret}`, { expiresAt: 'tomorrow' })
    assert.equal(notADate.status, 400)
    assert.deepEqual(
      notADate.body.details.map((d: { path: string }) => d.path),
      ['/body/expiresAt'],
    )
    const past = await call(pennon, 'PUT', `${TOKENS}/${secret}`, { expiresAt: '2000-01-01T00:00:00.000Z' })
    assert.equal(past.status, 400)
    const message = 'The `/body/expiresAt` property must be in the future. You sent "2000-01-01T00:00:00.000Z".'
    assert.deepEqual(withoutId(past.body), { name: 'ValidationError', message, details: [{ path: '/body/expiresAt', message }] })

    const editor = await serviceAccountToken(pennon, 2)
    const refused = await call(pennon, 'PUT', `${TOKENS}/${secret}`, { expiresAt: '2099-01-01T00:00:00Z' }, { token: editor })
    assert.equal(refused.status, 403)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "ADMIN".', { permissions: ['ADMIN'] }),
    )
    assert.deepEqual((await call(pennon, 'GET', `${TOKENS}/ci`)).body.tokens[0].expiresAt, null)
  })
})
