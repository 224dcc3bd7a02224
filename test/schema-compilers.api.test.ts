// The app compiles each route's schemas on its first request (src/http/schema-compilers.ts). Here
// every one is compiled at start-up instead, as Fastify's own compilers do: a schema that does not
// compile fails this test, not a user's first request.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyServerOptions } from 'fastify'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createDb } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { type CompilerFactory, fastifyCompilers } from '../src/http/schema-compilers.ts'
import { createTestStorage } from './test-app.ts'

interface Operation {
  requestBody?: unknown
  parameters?: { in: 'query' | 'path' | 'header' }[]
  responses?: Record<string, unknown>
}
// The frontend API's own routes answer at '/api/frontend' (in the document) and '/api/frontend/' (hidden): one route to this count.
const withoutTrailingSlash = (url: string) => (url.length > 1 ? url.replace(/\/$/, '') : url)
const PART_OF = { query: 'querystring', path: 'params', header: 'headers' } as const

test('every route’s request and response schemas compile', async (t) => {
  const storage = await createTestStorage({ name: 'sqlite' })
  const database = createDb(storage.options)
  await migrateToLatest(database.db)
  const compiled = new Set<string>()
  const counted =
    (factory: CompilerFactory): CompilerFactory =>
    (externalSchemas, options) => {
      const compile = factory(externalSchemas, options)
      return (route) => {
        const done = compile(route)
        assert.equal(typeof done, 'function', `${route.method} ${route.url} ${route.httpPart ?? route.httpStatus}`)
        compiled.add(`${route.method} ${withoutTrailingSlash(route.url)} ${route.httpPart ?? `response ${route.httpStatus}`}`)
        return done
      }
    }
  const eager = {
    compilersFactory: { buildValidator: counted(fastifyCompilers.validator), buildSerializer: counted(fastifyCompilers.serializer) },
  } as FastifyServerOptions['schemaController']
  const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'warn' }), database, schemaController: eager })
  t.after(async () => {
    await app.close()
    await database.close()
    await storage.drop()
  })
  await app.ready()
  // What the routes declare, as the OpenAPI document shows it (generated from the same schemas).
  const expected = new Set<string>()
  const document = app.swagger() as { paths: Record<string, Record<string, Operation>> }
  for (const [path, operations] of Object.entries(document.paths)) {
    const url = withoutTrailingSlash(path.replace(/\{([^}]+)\}/g, ':$1'))
    for (const [method, operation] of Object.entries(operations)) {
      const route = `${method.toUpperCase()} ${url}`
      if (operation.requestBody) expected.add(`${route} body`)
      for (const parameter of operation.parameters ?? []) expected.add(`${route} ${PART_OF[parameter.in]}`)
      for (const status of Object.keys(operation.responses ?? {})) expected.add(`${route} response ${status}`)
    }
  }
  assert.ok(expected.size > 300, `only ${expected.size} schemas found`)
  assert.deepEqual([...expected].filter((key) => !compiled.has(key)).sort(), [])
})
