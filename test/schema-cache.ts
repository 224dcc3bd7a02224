/**
 * Fastify's own schema compilers (Ajv for request schemas, fast-json-stringify for response
 * schemas), with what they compile kept for the whole test process. Compiling the routes' schemas
 * is most of building an app — about a second of CPU, at each `app.ready()` — and the suite builds
 * a fresh app for nearly every test: with this, the apps of a test file after its first compile
 * (almost) nothing. A compiled function depends only on its schema (plain data, so its JSON says
 * all of it), on the part of the request or response it is for, and on the shared schemas and the
 * compiler's options: all of them are in its key.
 */
import { createRequire } from 'node:module'
import type { FastifyServerOptions } from 'fastify'

// The compilers Fastify itself uses (its dependencies), as Fastify resolves them.
const fromFastify = createRequire(import.meta.resolve('fastify'))
const { AjvCompiler } = fromFastify('@fastify/ajv-compiler')
const { SerializerSelector } = fromFastify('@fastify/fast-json-stringify-compiler')

interface RouteSchema {
  schema: object
  method: string
  url: string
  httpPart?: string
  httpStatus?: string
  contentType?: string
}
type Compile = (route: RouteSchema) => unknown
type CompilerFactory = (externalSchemas: unknown, options: unknown) => Compile

function kept(factory: CompilerFactory): CompilerFactory {
  const compiled = new Map<string, unknown>()
  return (externalSchemas, options) => {
    const compile = factory(externalSchemas, options)
    const shared = JSON.stringify([externalSchemas, options])
    return (route) => {
      const key = JSON.stringify([shared, route.httpPart, route.httpStatus, route.contentType, route.schema])
      let done = compiled.get(key)
      if (done === undefined) {
        done = compile(route)
        compiled.set(key, done)
      }
      return done
    }
  }
}

/** For `buildApp({ schemaController })`: one per process, shared by every app it builds. */
export const keptSchemaCompilers = {
  compilersFactory: { buildValidator: kept(AjvCompiler()), buildSerializer: kept(SerializerSelector()) },
} as FastifyServerOptions['schemaController']
