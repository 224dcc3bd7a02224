/**
 * Every route that takes a JSON body refuses one that nests deeper than MAX_JSON_DEPTH with a 400
 * in the one error shape, before anything recurses into it: 100,000 levels of arrays or of
 * objects (under 1 MiB), sent to each such route the OpenAPI document lists — admin, client,
 * frontend, metrics and Edge routes alike. A body just within the limit is parsed and judged by its
 * schema as usual.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { METRICS_BODY_LIMIT } from '../src/features/metrics/metrics-routes.ts'
import { MAX_JSON_DEPTH } from '../src/http/json-body.ts'
import { call, onEachDatabase, useTestApp, withoutId } from './test-app.ts'

const LEVELS = 100_000
const deepArrays = `${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}`
const deepObjects = `${'{"a":'.repeat(LEVELS)}1${'}'.repeat(LEVELS)}`
// A string full of brackets nests nothing.
const bracketsInAString = JSON.stringify({ name: '['.repeat(LEVELS) })

const message = `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep: send a flatter document.`
const refused = { name: 'ValidationError', message, details: [{ path: '/body', message }] }
const tooLarge = 'The request body is larger than this server accepts.'
// The SDK metrics routes and Edge's take smaller bodies: the 500 KB of deep objects is refused before it is read.
const SMALL_BODY_ROUTES =
  /^(\/api\/(client|frontend\/client)\/(metrics|metrics\/bulk|metrics\/edge|register)|\/edge\/(validate|issue-token))$/

type Method = 'POST' | 'PUT' | 'PATCH'

onEachDatabase('body nesting', (database) => {
  test(`every route with a JSON body: ${LEVELS} levels of arrays or objects → 400 naming the limit`, async (t) => {
    const pennon = await useTestApp(t, database)
    const document = (await call(pennon, 'GET', '/docs/openapi.json')).body as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>
    }
    const routes: Array<{ method: Method; url: string }> = []
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.requestBody === undefined) continue
        // Path parameters get a plausible value: the body is refused before they are looked at.
        routes.push({
          method: method.toUpperCase() as Method,
          url: path.replace(/\{[^}]+\}/g, (name) => (name === '{id}' ? '1' : 'default')),
        })
      }
    }
    const families = new Set(routes.map(({ url }) => url.split('/').slice(0, 3).join('/')))
    assert.deepEqual([...families].sort(), [
      '/api/admin',
      '/api/client',
      '/api/frontend',
      '/auth/reset',
      '/auth/simple',
      '/edge/issue-token',
      '/edge/validate',
      '/invite/default',
      '/ofrep/v1',
    ])
    assert.ok(routes.length >= 30, `${routes.length} routes with a body`)

    for (const { method, url } of routes) {
      for (const raw of [deepArrays, deepObjects]) {
        const response = await call(pennon, method, url, undefined, { raw, headers: { 'content-type': 'application/json' } })
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
        if (url.startsWith('/ofrep/')) {
          // OpenFeature's own error shape; its body limit (64 kB, a context) is reached first.
          assert.equal(response.status, 400, `${method} ${url}: ${response.text.slice(0, 300)}`)
          const key = url.match(/^\/ofrep\/v1\/evaluate\/flags\/(.+)$/)?.[1]
          assert.deepEqual(response.body, { ...(key === undefined ? {} : { key }), errorCode: 'GENERAL', errorDetails: tooLarge }, url)
          continue
        }
        const over = SMALL_BODY_ROUTES.test(url) && raw.length > METRICS_BODY_LIMIT
        assert.equal(response.status, over ? 413 : 400, `${method} ${url}: ${response.text.slice(0, 300)}`)
        assert.deepEqual(
          withoutId(response.body),
          over ? { name: 'PayloadTooLargeError', message: tooLarge, details: [{ message: tooLarge }] } : refused,
          `${method} ${url}`,
        )
      }
    }
  })

  test(`${MAX_JSON_DEPTH} levels are parsed and judged by the schema; brackets inside strings are not nesting`, async (t) => {
    const pennon = await useTestApp(t, database)
    const within = `{"name":"ok","description":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`
    const response = await call(pennon, 'POST', '/api/admin/projects/default/features', undefined, {
      raw: within,
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(response.status, 400)
    assert.equal(response.body.details[0].path, '/body/description')
    assert.notEqual(response.body.message, message)
    const deeper = `{"name":"ok","description":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`
    const tooDeep = await call(pennon, 'POST', '/api/admin/projects/default/features', undefined, {
      raw: deeper,
      headers: { 'content-type': 'application/json' },
    })
    assert.deepEqual(withoutId(tooDeep.body), refused)

    const named = await call(pennon, 'POST', '/api/admin/segments', undefined, {
      raw: bracketsInAString.replace('}', ',"constraints":[]}'),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(named.status, 400)
    assert.equal(named.body.details[0].path, '/body/name')
  })
})
