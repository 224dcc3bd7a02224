/**
 * Fastify's schema compilers with what they compile kept for the whole test process. Compiling a
 * route's schemas is most of what building an app costs, and the suite builds a fresh app for
 * nearly every test: with this, a test's app reuses what an earlier app of the same file compiled.
 * A compiled function depends only on its schema (plain data, so its JSON says all of it), on the
 * part of the request or response it is for, and on the shared schemas and the compiler's options:
 * all of them are in its key. Compiled on first use, as the app's own compilers are
 * (src/http/schema-compilers.ts); test/schema-compilers.api.test.ts compiles every route eagerly.
 */
import type { FastifyServerOptions } from 'fastify'
import { type CompilerFactory, fastifyCompilers, lazySchemaController } from '../src/http/schema-compilers.ts'

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
export const keptSchemaCompilers: FastifyServerOptions['schemaController'] = lazySchemaController({
  validator: kept(fastifyCompilers.validator),
  serializer: kept(fastifyCompilers.serializer),
})
