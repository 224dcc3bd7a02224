import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'

const P = '/api/admin/projects'

onEachDatabase("a project's API tokens", (database) => {
  test('created with the project as its only project, listed without secrets, deleted by secret', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', P, { id: 'shop', name: 'Shop' })).status, 201)
    const created = await call(pennon, 'POST', `${P}/shop/api-tokens`, {
      tokenName: 'checkout',
      type: 'Backend',
      environment: 'production',
      expiresAt: '2999-01-01T00:00:00Z',
    })
    assert.equal(created.status, 201)
    assert.equal(created.headers.location, 'api-tokens')
    const { secret, createdAt, ...token } = created.body
    assert.match(secret, /^shop:production\.[0-9a-f]{64}$/)
    assert.deepEqual(token, {
      tokenName: 'checkout',
      type: 'backend',
      environment: 'production',
      projects: ['shop'],
      expiresAt: '2999-01-01T00:00:00.000Z',
    })
    const frontend = await call(pennon, 'POST', `${P}/shop/api-tokens`, { tokenName: 'web', type: 'FRONTEND' })
    assert.equal(frontend.status, 201)
    assert.match(frontend.body.secret, /^shop:development\.[0-9a-f]{64}$/)
    // Tokens of other projects, of several projects (this one among them) and admin tokens.
    await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'elsewhere', type: 'client', projects: ['default'] })
    const shared = await call(pennon, 'POST', '/api/admin/api-tokens', {
      tokenName: 'shared',
      type: 'client',
      projects: ['default', 'shop'],
    })
    await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'all', type: 'client' })

    const listed = await call(pennon, 'GET', `${P}/shop/api-tokens`)
    assert.equal(listed.status, 200)
    const { secret: _shared, ...sharedToken } = shared.body
    const { secret: _web, ...webToken } = frontend.body
    assert.deepEqual(listed.body, { tokens: [{ ...token, createdAt }, webToken, sharedToken] })
    assert.ok(!listed.text.includes('secret'))
    assert.equal((await call(pennon, 'GET', '/api/client/features', undefined, { token: secret })).status, 200)

    const refused = await call(pennon, 'DELETE', `${P}/shop/api-tokens/${shared.body.secret}`)
    assert.equal(refused.status, 400)
    assert.deepEqual(withoutId(refused.body), {
      name: 'ValidationError',
      message:
        'API token "shared" belongs to several projects ("default", "shop"): delete it with DELETE /api/admin/api-tokens/:tokenName.',
      details: [
        {
          path: '/params/token',
          message:
            'API token "shared" belongs to several projects ("default", "shop"): delete it with DELETE /api/admin/api-tokens/:tokenName.',
        },
      ],
    })
    const deleted = await call(pennon, 'DELETE', `${P}/shop/api-tokens/${secret}`)
    assert.equal(deleted.status, 200)
    assert.equal(deleted.text, '')
    assert.equal((await call(pennon, 'GET', '/api/client/features', undefined, { token: secret })).status, 401)
    assert.deepEqual((await call(pennon, 'GET', `${P}/shop/api-tokens`)).body, { tokens: [webToken, sharedToken] })
    const again = await call(pennon, 'DELETE', `${P}/shop/api-tokens/${secret}`)
    assert.equal(again.status, 404)
    assert.deepEqual(withoutId(again.body), errorOf('NotFoundError', 'Project "shop" has no API token with that secret.'))
    assert.ok(!again.text.includes(secret.slice(-32)))

    const events = (await allEvents(pennon)).filter((e) => e.type.startsWith('api-token') && e.project === 'shop')
    assert.deepEqual(
      events.map((e) => [e.type, e.environment, e.data?.tokenName ?? e.preData.tokenName]),
      [
        ['api-token-created', 'production', 'checkout'],
        ['api-token-created', 'development', 'web'],
        ['api-token-deleted', 'production', 'checkout'],
      ],
    )
    assert.deepEqual(events[2].preData, { ...token, createdAt })
  })

  test("a token of another project, or an admin token, is not this project's to delete", async (t) => {
    const pennon = await useTestApp(t, database)
    await call(pennon, 'POST', P, { id: 'shop', name: 'Shop' })
    const other = await call(pennon, 'POST', `${P}/default/api-tokens`, { tokenName: 'd', type: 'client' })
    const notShop = await call(pennon, 'DELETE', `${P}/shop/api-tokens/${other.body.secret}`)
    assert.equal(notShop.status, 404)
    assert.deepEqual(withoutId(notShop.body), errorOf('NotFoundError', 'Project "shop" has no API token with that secret.'))
    const admin = await call(pennon, 'DELETE', `${P}/shop/api-tokens/${pennon.adminToken}`)
    assert.equal(admin.status, 404)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects')).status, 200)
    assert.equal((await call(pennon, 'DELETE', `${P}/default/api-tokens/${other.body.secret}`)).status, 200)
  })

  test('an unknown project is a 404 on every route; bad bodies are 400s', async (t) => {
    const pennon = await useTestApp(t, database)
    const ghost = errorOf('NotFoundError', 'Project "ghost" does not exist.')
    for (const [method, url, body] of [
      ['GET', `${P}/ghost/api-tokens`, undefined],
      ['POST', `${P}/ghost/api-tokens`, { tokenName: 'x', type: 'client' }],
      ['DELETE', `${P}/ghost/api-tokens/ghost:development.abc`, undefined],
    ] as const) {
      const response = await call(pennon, method, url, body)
      assert.equal(response.status, 404, url)
      assert.deepEqual(withoutId(response.body), ghost)
    }
    const admin = await call(pennon, 'POST', `${P}/default/api-tokens`, { tokenName: 'x', type: 'admin' })
    assert.equal(admin.status, 400)
    assert.deepEqual(
      admin.body.details.map((d: { path: string }) => d.path),
      ['/body/type'],
    )
    const noName = await call(pennon, 'POST', `${P}/default/api-tokens`, { type: 'client' })
    assert.equal(noName.status, 400)
    assert.deepEqual(
      noName.body.details.map((d: { path: string }) => d.path),
      ['/body/tokenName'],
    )
    const past = await call(pennon, 'POST', `${P}/default/api-tokens`, {
      tokenName: 'x',
      type: 'client',
      expiresAt: '2001-01-01T00:00:00.000Z',
    })
    assert.equal(past.status, 400)
    assert.deepEqual(
      withoutId(past.body),
      errorOf('ValidationError', 'The `/body/expiresAt` property must be in the future. You sent "2001-01-01T00:00:00.000Z".', {
        details: [
          {
            path: '/body/expiresAt',
            message: 'The `/body/expiresAt` property must be in the future. You sent "2001-01-01T00:00:00.000Z".',
          },
        ],
      }),
    )
    assert.equal((await allEvents(pennon)).filter((e) => e.type === 'api-token-created').length, 1)
    // The path names the project: `projects` in the body is no field of this route and changes nothing.
    const projects = await call(pennon, 'POST', `${P}/default/api-tokens`, { tokenName: 'x', type: 'client', projects: ['other'] })
    assert.equal(projects.status, 201)
    assert.deepEqual(projects.body.projects, ['default'])
  })

  test('Editors hold the three permissions; Viewers, client tokens hold none', async (t) => {
    const pennon = await useTestApp(t, database)
    const editor = await serviceAccountToken(pennon, 2)
    const created = await call(pennon, 'POST', `${P}/default/api-tokens`, { tokenName: 'e', type: 'client' }, { token: editor })
    assert.equal(created.status, 201)
    assert.equal((await call(pennon, 'GET', `${P}/default/api-tokens`, undefined, { token: editor })).body.tokens.length, 1)
    const viewer = await serviceAccountToken(pennon, 3)
    for (const [method, url, body, permission] of [
      ['GET', `${P}/default/api-tokens`, undefined, 'READ_PROJECT_API_TOKEN'],
      ['POST', `${P}/default/api-tokens`, { tokenName: 'v', type: 'client' }, 'CREATE_PROJECT_API_TOKEN'],
      ['DELETE', `${P}/default/api-tokens/${created.body.secret}`, undefined, 'DELETE_PROJECT_API_TOKEN'],
    ] as const) {
      for (const token of [viewer, created.body.secret]) {
        const response = await call(pennon, method, url, body, { token })
        assert.equal(response.status, 403, url)
        assert.deepEqual(
          withoutId(response.body),
          errorOf('NoAccessError', `Missing permission: this operation needs "${permission}".`, { permissions: [permission] }),
        )
      }
    }
    assert.equal((await call(pennon, 'DELETE', `${P}/default/api-tokens/${created.body.secret}`, undefined, { token: editor })).status, 200)
  })

  test("a deleted token's secret never reaches a log line", async (t) => {
    const pennon = await useTestApp(t, database, { env: { LOG_LEVEL: 'debug' } })
    const created = await call(pennon, 'POST', `${P}/default/api-tokens`, { tokenName: 'logged', type: 'client' })
    assert.equal((await call(pennon, 'DELETE', `${P}/default/api-tokens/${created.body.secret}`)).status, 200)
    const logs = pennon.logs.join('\n')
    assert.ok(logs.includes('/api/admin/projects/default/api-tokens/[redacted]'), 'the delete was logged')
    assert.ok(!logs.includes(created.body.secret.split('.')[1].slice(0, 32)), 'the secret leaked')
  })
})
