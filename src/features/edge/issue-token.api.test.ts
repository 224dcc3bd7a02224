/**
 * POST /edge/issue-token through the real app on each database: requests signed as Unleash Edge
 * signs them (HMAC with EDGE_CLIENT_SECRET) get new backend tokens that work; every other request
 * is refused with the reference's 401 for the first check it fails (always "Unknown client"
 * without EDGE_CLIENT_SECRET); a bad body is a 400 first.
 */
import assert from 'node:assert/strict'
import { createHash, createHmac, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'

const ISSUE = '/edge/issue-token'
const body = { tokens: [{ environment: 'development', projects: ['default'] }] }
const SECRET = randomBytes(32).toString('base64url')

/** The headers Unleash Edge sends with a signed request for `sent` (the body as it is sent). */
function signed(sent: string, options: { secret?: string; nonce?: string; timestamp?: string; client?: string } = {}) {
  const timestamp = options.timestamp ?? new Date().toISOString()
  const nonce = options.nonce ?? randomBytes(12).toString('hex')
  const sha = createHash('sha256').update(sent).digest('hex')
  const canonical = `POST\n/edge/issue-token\n${timestamp}\n${nonce}\n${sha}`
  const signature = createHmac('sha256', Buffer.from(options.secret ?? SECRET, 'base64url'))
    .update(canonical)
    .digest('base64url')
  return {
    authorization: `HMAC ${options.client ?? 'enterprise-edge'}:${signature}`,
    'x-timestamp': timestamp,
    'x-nonce': nonce,
    'content-sha256': sha,
    'content-type': 'application/json',
  }
}

const issue = (pennon: TestApp, sent: string, headers: Record<string, string>) =>
  call(pennon, 'POST', ISSUE, undefined, { token: null, raw: sent, headers })

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

  test('with EDGE_CLIENT_SECRET: a signed request gets new backend tokens that work; replays, tampering and bad signatures are 401s', async (t) => {
    const pennon = await useTestApp(t, database, { env: { EDGE_CLIENT_SECRET: SECRET } })
    const sent = JSON.stringify({
      tokens: [
        { environment: 'development', projects: ['default'] },
        { environment: 'production', projects: ['*'] },
      ],
    })
    const headers = signed(sent)
    const answer = await issue(pennon, sent, headers)
    assert.equal(answer.status, 200, answer.text)
    assert.deepEqual(
      answer.body.tokens.map(({ token: _token, ...rest }: any) => rest),
      [
        { type: 'backend', projects: ['default'], environment: 'development' },
        { type: 'backend', projects: ['*'], environment: 'production' },
      ],
    )
    const [development, production] = answer.body.tokens.map((issued: any) => issued.token)
    assert.match(development, /^default:development\./)
    assert.match(production, /^\*:production\./)
    assert.equal((await call(pennon, 'GET', '/api/client/features', undefined, { token: development })).status, 200)
    const listed = (await call(pennon, 'GET', '/api/admin/api-tokens')).body.tokens.map((token: any) => token.tokenName).sort()
    for (const name of ['enterprise_edge_development_default', 'enterprise_edge_production_*']) assert.ok(listed.includes(name), name)
    const created = (await allEvents(pennon)).filter(
      (event) => event.type === 'api-token-created' && event.data.tokenName.startsWith('enterprise_edge_'),
    )
    assert.deepEqual(
      created.map((event) => [event.data.tokenName, event.createdBy]),
      [
        ['enterprise_edge_development_default', 'system'],
        ['enterprise_edge_production_*', 'system'],
      ],
    )

    // Asked again (a new nonce): new tokens, as Pennon keeps only their hashes.
    const again = await issue(pennon, sent, signed(sent))
    assert.equal(again.status, 200)
    assert.notEqual(again.body.tokens[0].token, development)

    for (const [sentNow, sentHeaders, message] of [
      [sent, headers, 'Replay detected'],
      [sent.replace('default', 'other'), signed(sent), 'Body tampering detected'],
      [sent, signed(sent, { secret: randomBytes(32).toString('base64url') }), 'Signature mismatch'],
      [sent, signed(sent, { client: 'someone-else' }), 'Unknown client'],
      [sent, signed(sent, { timestamp: new Date(Date.now() + 6 * 60_000).toISOString() }), 'Stale request'],
    ] as const) {
      const refused = await issue(pennon, sentNow, sentHeaders)
      assert.equal(refused.status, 401, message)
      assert.deepEqual(withoutId(refused.body), errorOf('AuthenticationRequired', message))
    }
    const tokens = await pennon.database.db
      .selectFrom('api_tokens')
      .select('token_name')
      .where('token_name', 'like', 'enterprise_edge_%')
      .execute()
    assert.equal(tokens.length, 4)
    const nonces = await pennon.database.db.selectFrom('edge_nonces').select('nonce').execute()
    assert.equal(nonces.length, 2)
  })
})
