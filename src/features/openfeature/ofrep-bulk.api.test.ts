/**
 * OFREP's bulk evaluation for browsers, through the real app on each database: a strong ETag that
 * follows the answer and is equal on every instance, 304 on If-None-Match, CORS as the frontend
 * API's, and the evaluations counted in the usage metrics of the token's application.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, eventually, onEachDatabase, useTestApp, useTwoInstances } from '../../../test/test-app.ts'
import { createFlag } from '../../../test/helpers/flags.ts'
import { frontendToken } from '../../../test/helpers/frontend.ts'
import { addStrategy, toggle } from '../../../test/helpers/strategies.ts'
import { hourOf } from '../metrics/metrics-aggregate.ts'

const FLAGS = '/ofrep/v1/evaluate/flags'
const ETAG = /^"[A-Za-z0-9_-]{27}"$/

onEachDatabase('OFREP bulk', (database) => {
  test('a strong ETag, equal on every instance, that follows the answer; 304 on If-None-Match, without a body', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    await createFlag(first, 'nordic')
    await addStrategy(first, 'nordic', 'development', {
      name: 'default',
      constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }],
    })
    assert.equal((await toggle(first, 'nordic', 'development', 'on')).status, 200)
    const token = await frontendToken(first, 'development')
    const bulk = (instance: typeof first, context: Record<string, unknown>, headers?: Record<string, string>) =>
      call(instance, 'POST', FLAGS, { context }, { token, ...(headers ? { headers } : {}) })

    const answer = await bulk(first, { country: 'NO' })
    assert.equal(answer.status, 200, answer.text)
    const etag = answer.headers.etag as string
    assert.match(etag, ETAG)
    const other = await bulk(second, { country: 'NO', targetingKey: 'someone' })
    assert.equal(other.headers.etag, etag, 'the same answer, the same ETag, on another instance')
    assert.equal(other.text, answer.text)
    for (const instance of [first, second]) {
      const notModified = await bulk(instance, { country: 'NO' }, { 'if-none-match': etag })
      assert.equal(notModified.status, 304)
      assert.equal(notModified.text, '')
      assert.equal(notModified.headers.etag, etag)
    }
    // Another answer (the context, then the flags): another ETag, and a 200 for the old one.
    const elsewhere = await bulk(first, { country: 'SE' }, { 'if-none-match': etag })
    assert.equal(elsewhere.status, 200)
    assert.notEqual(elsewhere.headers.etag, etag)
    assert.equal((await toggle(first, 'nordic', 'development', 'off')).status, 200)
    await eventually(async () => (await bulk(second, { country: 'NO' }, { 'if-none-match': etag })).status === 200, 'the change seen')
    assert.equal((await bulk(first, { country: 'NO' })).body.flags[0].reason, 'DISABLED')
  })

  test('every flag of the scope: those off in the environment first, each list in the order of the client API', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const name of ['a-off', 'b-on', 'c-off', 'd-unmatched', 'e-off']) await createFlag(pennon, name)
    await addStrategy(pennon, 'b-on', 'development', { name: 'default' })
    await addStrategy(pennon, 'd-unmatched', 'development', {
      name: 'default',
      constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }],
    })
    for (const name of ['b-on', 'd-unmatched']) assert.equal((await toggle(pennon, name, 'development', 'on')).status, 200)
    const token = await frontendToken(pennon, 'development')
    const answer = await call(pennon, 'POST', FLAGS, { context: { country: 'SE' } }, { token })
    assert.equal(answer.status, 200, answer.text)
    const metadata = { project: 'default', type: 'release', stale: false, variantEnabled: false }
    const flag = (key: string, value: boolean, reason: string) => ({ key, value, reason, variant: 'disabled', metadata })
    assert.deepEqual(JSON.parse(answer.text), {
      flags: [
        flag('a-off', false, 'DISABLED'),
        flag('c-off', false, 'DISABLED'),
        flag('e-off', false, 'DISABLED'),
        flag('b-on', true, 'STATIC'),
        flag('d-unmatched', false, 'DEFAULT'),
      ],
      eventStreams: answer.body.eventStreams,
    })
    assert.equal(answer.headers['content-length'], String(Buffer.byteLength(answer.text)))
  })

  test('CORS as on the frontend API: any origin, ETag and Retry-After exposed, preflights answered before authentication', async (t) => {
    const pennon = await useTestApp(t, database)
    const token = await frontendToken(pennon, 'development')
    const posted = await call(pennon, 'POST', FLAGS, { context: {} }, { token, headers: { origin: 'https://shop.example' } })
    assert.equal(posted.status, 200)
    assert.equal(posted.headers['access-control-allow-origin'], '*')
    assert.equal(posted.headers['access-control-expose-headers'], 'ETag, Retry-After')
    for (const url of [FLAGS, `${FLAGS}/some-flag`]) {
      const preflight = await pennon.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
      })
      assert.equal(preflight.statusCode, 204)
      assert.equal(preflight.body, '')
      assert.equal(preflight.headers['access-control-allow-origin'], '*')
      assert.equal(preflight.headers['access-control-allow-methods'], 'GET, POST')
      assert.equal(preflight.headers['access-control-allow-headers'], 'Authorization, Content-Type, X-API-Key')
      assert.equal(preflight.headers['access-control-max-age'], '86400')
    }
    // A refusal carries the CORS headers too, so that the page can read its status.
    const refused = await call(pennon, 'POST', FLAGS, { context: {} }, { token: null, headers: { origin: 'https://shop.example' } })
    assert.equal(refused.status, 401)
    assert.equal(refused.headers['access-control-allow-origin'], '*')
  })

  test("evaluations count in the usage metrics of the token's application (appName, else the token's name), as an SDK's report would", async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'shown')
    await addStrategy(pennon, 'shown', 'development', { name: 'userWithId', parameters: { userIds: 'ann' } })
    assert.equal((await toggle(pennon, 'shown', 'development', 'on')).status, 200)
    await createFlag(pennon, 'hidden')
    const frontend = await frontendToken(pennon, 'development')
    const client = await apiToken(pennon, 'client', 'checkout-service')
    const evaluate = (token: string, url: string, context: Record<string, unknown>) => call(pennon, 'POST', url, { context }, { token })
    assert.equal((await evaluate(frontend, FLAGS, { appName: 'web-shop', targetingKey: 'ann' })).status, 200)
    assert.equal((await evaluate(frontend, FLAGS, { appName: 'web-shop', targetingKey: 'bob' })).status, 200)
    assert.equal((await evaluate(client, `${FLAGS}/shown`, { targetingKey: 'ann' })).status, 200)
    assert.equal((await evaluate(client, `${FLAGS}/nothing`, {})).status, 404)
    await pennon.ofrepUsage.flush()
    await pennon.metrics.flush()

    const usage = async (flag: string) => {
      const response = await call(pennon, 'GET', `/api/admin/client-metrics/features/${flag}`)
      assert.equal(response.status, 200, response.text)
      return response.body
    }
    const hour = hourOf(Date.now())
    assert.deepEqual((await usage('shown')).lastHourUsage, [
      { environment: 'development', timestamp: hour, yes: 2, no: 1, variants: { disabled: 3 } },
    ])
    assert.deepEqual((await usage('shown')).seenApplications, ['checkout-service', 'web-shop'])
    assert.deepEqual((await usage('hidden')).lastHourUsage, [
      { environment: 'development', timestamp: hour, yes: 0, no: 2, variants: { disabled: 2 } },
    ])
    assert.deepEqual((await usage('hidden')).seenApplications, ['web-shop'])
    const applications = await call(pennon, 'GET', '/api/admin/metrics/applications')
    assert.deepEqual(
      applications.body.applications.map((application: { appName: string; sdkVersion: string }) => [
        application.appName,
        application.sdkVersion,
      ]),
      [
        ['checkout-service', 'openfeature-ofrep'],
        ['web-shop', 'openfeature-ofrep'],
      ],
    )
  })

  test('the counts go to the metrics every OFREP_USAGE_FLUSH_MS, an interval of their own', async (t) => {
    const usageOf = async (pennon: Awaited<ReturnType<typeof useTestApp>>) => {
      const response = await call(pennon, 'GET', '/api/admin/client-metrics/features/counted')
      assert.equal(response.status, 200, response.text)
      return response.body.lastHourUsage
    }
    const evaluated = async (env: Record<string, string>) => {
      const pennon = await useTestApp(t, database, { env: { METRICS_FLUSH_MS: '50', ...env } })
      await createFlag(pennon, 'counted')
      const token = await frontendToken(pennon, 'development')
      assert.equal((await call(pennon, 'POST', FLAGS, { context: { appName: 'web-shop' } }, { token })).status, 200)
      return pennon
    }
    const soon = await evaluated({ OFREP_USAGE_FLUSH_MS: '50' })
    const hour = hourOf(Date.now())
    await eventually(async () => (await usageOf(soon)).length > 0, 'counted without a flush asked for')
    assert.deepEqual(await usageOf(soon), [{ environment: 'development', timestamp: hour, yes: 0, no: 1, variants: { disabled: 1 } }])
    const held = await evaluated({ OFREP_USAGE_FLUSH_MS: '3600000' })
    // Six of the metrics' own flushes: none of them took the counts.
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepEqual(await usageOf(held), [])
  })
})
