import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

onEachDatabase('api tokens and service accounts', (database) => {
  test('API tokens: created once with a secret, listed without it, deleted by name', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await call(pennon, 'POST', '/api/admin/api-tokens', {
      tokenName: 'ci',
      type: 'client',
      environment: 'production',
      projects: ['default'],
    })
    assert.equal(created.status, 201)
    const { secret, createdAt, ...token } = created.body
    assert.match(secret, /^default:production\.[0-9a-f]{64}$/)
    assert.match(createdAt, ISO)
    assert.deepEqual(token, { tokenName: 'ci', type: 'client', environment: 'production', projects: ['default'], expiresAt: null })

    const admin = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'ops', type: 'admin' })
    assert.match(admin.body.secret, /^\*:\*\.[0-9a-f]{64}$/)
    assert.deepEqual([admin.body.environment, admin.body.projects], ['*', ['*']])
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: admin.body.secret })).status, 200)

    const list = await call(pennon, 'GET', '/api/admin/api-tokens')
    assert.equal(list.status, 200)
    assert.deepEqual(list.body.tokens.map((t: { tokenName: string }) => t.tokenName).sort(), ['admin', 'ci', 'ops'])
    assert.ok(!list.text.includes(secret) && !list.text.includes('secret'))

    const deleted = await call(pennon, 'DELETE', '/api/admin/api-tokens/ops')
    assert.equal(deleted.status, 200)
    assert.equal(deleted.text, '')
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: admin.body.secret })).status, 401)
    const again = await call(pennon, 'DELETE', '/api/admin/api-tokens/ops')
    assert.equal(again.status, 404)
    assert.deepEqual(withoutId(again.body), errorOf('NotFoundError', 'No API token is named "ops".'))

    const events = (await allEvents(pennon)).filter((e) => e.type.startsWith('api-token'))
    assert.deepEqual(
      events.map((e) => [e.type, e.project, e.environment, e.createdBy, e.groupType]),
      [
        ['api-token-created', '*', '*', 'system', 'system'],
        ['api-token-created', 'default', 'production', 'admin', 'transaction'],
        ['api-token-created', '*', '*', 'admin', 'transaction'],
        ['api-token-deleted', '*', '*', 'admin', 'transaction'],
      ],
    )
    assert.deepEqual(events[1].data, { ...token, createdAt })
    assert.equal(events[0].createdByUserId, -1337)
  })

  test('API token bodies are validated', async (t) => {
    const pennon = await useTestApp(t, database)
    const badType = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'x', type: 'root' })
    assert.equal(badType.status, 400)
    assert.equal(badType.body.details.at(-1).path, '/body/type')
    const past = await call(pennon, 'POST', '/api/admin/api-tokens', {
      tokenName: 'x',
      type: 'client',
      expiresAt: '2001-01-01T00:00:00.000Z',
    })
    assert.equal(past.status, 400)
    assert.deepEqual(withoutId(past.body), {
      name: 'ValidationError',
      message: 'The `/body/expiresAt` property must be in the future. You sent "2001-01-01T00:00:00.000Z".',
      details: [
        { path: '/body/expiresAt', message: 'The `/body/expiresAt` property must be in the future. You sent "2001-01-01T00:00:00.000Z".' },
      ],
    })
  })

  test('`project`, the older field Unleash documents, scopes the token to that one project; with `projects` too it is refused', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'shop', name: 'Shop' })).status, 201)
    const created = await call(pennon, 'POST', '/api/admin/api-tokens', {
      tokenName: 'shop-client',
      type: 'client',
      environment: 'development',
      project: 'shop',
    })
    assert.equal(created.status, 201, created.text)
    const { secret, createdAt, ...token } = created.body
    assert.match(secret, /^shop:development\.[0-9a-f]{64}$/)
    assert.deepEqual(token, { tokenName: 'shop-client', type: 'client', environment: 'development', projects: ['shop'], expiresAt: null })

    const bothFields = { tokenName: 'both', type: 'client', project: 'shop', projects: ['default'] }
    const both = await call(pennon, 'POST', '/api/admin/api-tokens', bothFields)
    assert.equal(both.status, 400)
    const message = 'Send either `project` or `projects`, not both: `projects` lists every project the token reads.'
    assert.deepEqual(withoutId(both.body), { name: 'ValidationError', message, details: [{ path: '/body/project', message }] })
    const names = (await call(pennon, 'GET', '/api/admin/api-tokens')).body.tokens.map((t: { tokenName: string }) => t.tokenName)
    assert.deepEqual(names.sort(), ['admin', 'shop-client'])
  })

  test('a client or frontend token for an environment or a project that does not exist is refused: it would answer no flags', async (t) => {
    const pennon = await useTestApp(t, database)
    const refused = async (url: string, body: object, path: string, message: string) => {
      const response = await call(pennon, 'POST', url, body)
      assert.equal(response.status, 400, response.text)
      assert.deepEqual(withoutId(response.body), { name: 'ValidationError', message, details: [{ path, message }] })
    }
    const TOKENS = '/api/admin/api-tokens'
    await refused(
      TOKENS,
      { tokenName: 'a', type: 'frontend', environment: 'prodution' },
      '/body/environment',
      'Environment "prodution" does not exist.',
    )
    await refused(
      TOKENS,
      { tokenName: 'b', type: 'client', projects: ['default', 'shop'] },
      '/body/projects',
      'Project "shop" does not exist.',
    )
    await refused(TOKENS, { tokenName: 'c', type: 'client', project: 'shop' }, '/body/project', 'Project "shop" does not exist.')
    await refused(
      '/api/admin/projects/default/api-tokens',
      { tokenName: 'd', type: 'backend', environment: 'prodution' },
      '/body/environment',
      'Environment "prodution" does not exist.',
    )
    const names = (await call(pennon, 'GET', TOKENS)).body.tokens.map((t: { tokenName: string }) => t.tokenName)
    assert.deepEqual(names, ['admin'])
    // Every project and every environment name nothing in particular; an admin token reads everything.
    assert.equal(
      (await call(pennon, 'POST', TOKENS, { tokenName: 'e', type: 'client', projects: ['*'], environment: 'production' })).status,
      201,
    )
    assert.equal((await call(pennon, 'POST', TOKENS, { tokenName: 'f', type: 'admin', environment: 'nowhere' })).status, 201)
  })

  test('an expired token is refused with 401', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await call(pennon, 'POST', '/api/admin/api-tokens', {
      tokenName: 'soon',
      type: 'admin',
      expiresAt: '2999-01-01T00:00:00.000Z',
    })
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: created.body.secret })).status, 200)
    await pennon.database.db
      .updateTable('api_tokens')
      .set({ expires_at: '2001-01-01T00:00:00.000Z' })
      .where('token_name', '=', 'soon')
      .execute()
    const refused = await call(pennon, 'GET', '/api/admin/projects', undefined, { token: created.body.secret })
    assert.equal(refused.status, 401)
    assert.equal(refused.body.name, 'AuthenticationRequired')
  })

  test('service accounts: roles decide permissions; deleting one stops its tokens at once', async (t) => {
    const pennon = await useTestApp(t, database)
    const account = await call(pennon, 'POST', '/api/admin/service-account', { username: 'deployer', name: 'Deployer', rootRole: 2 })
    assert.equal(account.status, 201)
    assert.deepEqual({ ...account.body, createdAt: 'x' }, { id: 1, username: 'deployer', name: 'Deployer', rootRole: 2, createdAt: 'x' })
    const duplicate = await call(pennon, 'POST', '/api/admin/service-account', { username: 'deployer', name: 'Other', rootRole: 3 })
    assert.equal(duplicate.status, 409)
    assert.deepEqual(withoutId(duplicate.body), errorOf('NameExistsError', 'A service account with username "deployer" already exists.'))

    const token = await call(pennon, 'POST', '/api/admin/service-account/1/token', { description: 'ci', expiresAt: null })
    assert.equal(token.status, 201)
    assert.match(token.body.secret, /^user:[0-9a-f]{64}$/)
    assert.deepEqual(
      { ...token.body, secret: 's', createdAt: 'c' },
      { id: 1, description: 'ci', expiresAt: null, createdAt: 'c', secret: 's' },
    )

    const editor = token.body.secret
    assert.equal((await call(pennon, 'POST', '/api/admin/projects', { id: 'ed', name: 'Ed' }, { token: editor })).status, 201)
    const forbidden = await call(pennon, 'GET', '/api/admin/api-tokens', undefined, { token: editor })
    assert.equal(forbidden.status, 403)
    assert.deepEqual(
      withoutId(forbidden.body),
      errorOf('NoAccessError', 'Missing permission: this operation needs "ADMIN".', { permissions: ['ADMIN'] }),
    )

    const listed = await call(pennon, 'GET', '/api/admin/service-account')
    assert.deepEqual(listed.body.serviceAccounts, [account.body])

    assert.equal((await call(pennon, 'DELETE', '/api/admin/service-account/1')).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: editor })).status, 401)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/service-account/1')).status, 404)
    const badId = await call(pennon, 'DELETE', '/api/admin/service-account/abc')
    assert.equal(badId.status, 400)
    assert.deepEqual(withoutId(badId.body), {
      name: 'ValidationError',
      message: 'The `/params/id` property must be an integer from 1 to 2147483647. You sent "abc".',
      details: [{ path: '/params/id', message: 'The `/params/id` property must be an integer from 1 to 2147483647. You sent "abc".' }],
    })

    const projectEvent = (await allEvents(pennon)).find((e) => e.type === 'project-created')
    assert.deepEqual([projectEvent.createdBy, projectEvent.createdByUserId], ['deployer', 1])
    const types = (await allEvents(pennon)).map((e) => e.type).filter((type) => type.startsWith('service-account'))
    assert.deepEqual(types, ['service-account-created', 'service-account-token-created', 'service-account-deleted'])
    const tokenEvent = (await allEvents(pennon)).find((e) => e.type === 'service-account-token-created')
    assert.deepEqual(tokenEvent.data, { id: 1, description: 'ci', expiresAt: null, userId: 1 })
  })

  test('a viewer may call only NONE endpoints', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects', undefined, { token: viewer })).status, 200)
    assert.equal((await call(pennon, 'GET', '/api/admin/service-account', undefined, { token: viewer })).status, 403)
    const admin = await serviceAccountToken(pennon, 1)
    assert.equal((await call(pennon, 'GET', '/api/admin/service-account', undefined, { token: admin })).status, 200)
  })

  test('no secret or hash ever appears in a response after creation, an event, or a log line', async (t) => {
    // At debug level every request is logged too: the Authorization header must still not show.
    const pennon = await useTestApp(t, database, { env: { LOG_LEVEL: 'debug' } })
    const secrets = [pennon.adminToken]
    secrets.push((await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'a', type: 'frontend' })).body.secret)
    await call(pennon, 'POST', '/api/admin/service-account', { username: 'u', name: 'u', rootRole: 1 })
    secrets.push((await call(pennon, 'POST', '/api/admin/service-account/1/token', { description: 'd', expiresAt: null })).body.secret)
    // Failed authentications and server errors are where secrets usually leak into logs.
    await call(pennon, 'GET', '/api/admin/projects', undefined, { token: `${secrets[1]}x` })
    const hashes = [
      ...(await pennon.database.db.selectFrom('api_tokens').select('secret_hash').execute()).map((r) => r.secret_hash),
      ...(await pennon.database.db.selectFrom('service_account_tokens').select('secret_hash').execute()).map((r) => r.secret_hash),
    ]
    const responses = [
      (await call(pennon, 'GET', '/api/admin/api-tokens')).text,
      (await call(pennon, 'GET', '/api/admin/service-account')).text,
    ]
    assert.ok(pennon.logs.length > 10, 'requests were logged')
    const everything = [...responses, JSON.stringify(await allEvents(pennon)), ...pennon.logs].join('\n')
    for (const needle of [...secrets, ...hashes]) {
      assert.ok(!everything.includes(needle), 'a secret or hash leaked')
      assert.ok(!everything.includes(needle.split('.').at(-1)!.slice(0, 32)), 'part of a secret leaked')
    }
  })
})
