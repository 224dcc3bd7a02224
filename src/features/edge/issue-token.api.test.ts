/**
 * POST /edge/issue-token through the real app on each database: Pennon has no Edge clients, so
 * every well-formed request is refused with the reference's 401 for the first check it fails; a
 * bad body is a 400 first; no token is made.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, useTestApp, withoutId } from '../../../test/test-app.ts'

const ISSUE = '/edge/issue-token'
const body = { tokens: [{ environment: 'development', projects: ['default'] }] }

onEachDatabase('Edge token issue', (database) => {
  test('refused with 401 in the reference order: no HMAC header, no content headers, stale, unknown client', async (t) => {
    const pennon = await useTestApp(t, database)
    const tokensBefore = await pennon.database.db.selectFrom('api_tokens').select('token_name').execute()
    const sha = createHash('sha256').update(JSON.stringify(body)).digest('hex')
    const signed = { authorization: 'HMAC enterprise-edge:c2lnbmF0dXJl', 'x-nonce': 'n-1', 'content-sha256': sha }
    for (const [headers, message] of [
      [{}, 'Missing HMAC authorization header'],
      [{ authorization: 'Bearer x' }, 'Missing HMAC authorization header'],
      [{ authorization: 'HMAC enterprise-edge:sig' }, 'Missing content headers'],
      [{ ...signed, 'x-timestamp': new Date(Date.now() - 6 * 60_000).toISOString() }, 'Stale request'],
      [{ ...signed, 'x-timestamp': new Date().toISOString() }, 'Unknown client'],
    ] as const) {
      const answer = await call(pennon, 'POST', ISSUE, body, { token: null, headers })
      assert.equal(answer.status, 401, message)
      assert.deepEqual(withoutId(answer.body), errorOf('AuthenticationRequired', message))
    }
    // An admin token is no Edge client either.
    const admin = await call(pennon, 'POST', ISSUE, body)
    assert.equal(admin.status, 401)
    assert.equal(admin.body.message, 'Missing HMAC authorization header')
    assert.deepEqual(await pennon.database.db.selectFrom('api_tokens').select('token_name').execute(), tokensBefore)
  })

  test('a bad body is a 400 before any check; JSON only', async (t) => {
    const pennon = await useTestApp(t, database)
    const bad = await call(pennon, 'POST', ISSUE, { tokens: [{ environment: 'development' }] }, { token: null })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.name, 'ValidationError')
    assert.equal(
      (await call(pennon, 'POST', ISSUE, { tokens: [{ environment: 'x', projects: [], extra: 1 }] }, { token: null })).status,
      400,
    )
    assert.equal((await call(pennon, 'POST', ISSUE, {}, { token: null })).status, 400)
    const text = await call(pennon, 'POST', ISSUE, undefined, { token: null, raw: 'x', headers: { 'content-type': 'text/plain' } })
    assert.equal(text.status, 415)
  })
})
