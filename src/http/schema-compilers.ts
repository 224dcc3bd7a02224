/**
 * Fastify's own schema compilers (Ajv for request schemas, fast-json-stringify for response
 * schemas), each route's compiled on its first request instead of at start-up. Compiling them all
 * in `app.ready()` cost about a second of CPU and raised the peak RSS of a start by 14–29 MB
 * (generated source and code for some 200 routes, most of which an instance serving SDKs never
 * sees); compiled lazily, a start peaks at ~115 MB rather than 132–164 (docs/performance.md).
 * `test/schema-compilers.api.test.ts` compiles every route's schemas eagerly, so a schema that
 * does not compile still fails the suite rather than its first request.
 */
import { createRequire } from 'node:module'
import type { FastifyServerOptions } from 'fastify'

// The compilers Fastify itself uses (its dependencies), as Fastify resolves them.
const fromFastify = createRequire(import.meta.resolve('fastify'))
const { AjvCompiler } = fromFastify('@fastify/ajv-compiler')
const { SerializerSelector } = fromFastify('@fastify/fast-json-stringify-compiler')

/** What Fastify hands a compiler for one schema of one route. */
export interface RouteSchema {
  schema: object
  method: string
  url: string
  httpPart?: string
  httpStatus?: string
  contentType?: string
}
export type Compile = (route: RouteSchema) => unknown
export type CompilerFactory = (externalSchemas: unknown, options: unknown) => Compile

type Validate = ((data: unknown) => unknown) & { errors?: unknown }

/** Validators made on first use; Fastify reads `errors` from the function it was given, so the stub mirrors them. */
function lazyValidators(factory: CompilerFactory): CompilerFactory {
  return (externalSchemas, options) => {
    let compile: Compile | undefined
    return (route) => {
      let validate: Validate | undefined
      const stub: Validate = (data) => {
        validate ??= (compile ??= factory(externalSchemas, options))(route) as Validate
        const valid = validate(data)
        stub.errors = validate.errors
        return valid
      }
      return stub
    }
  }
}

function lazySerializers(factory: CompilerFactory): CompilerFactory {
  return (externalSchemas, options) => {
    let compile: Compile | undefined
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined
      return (data: unknown) => (serialize ??= (compile ??= factory(externalSchemas, options))(route) as (data: unknown) => string)(data)
    }
  }
}

/** Fastify's compiler factories, for wrappers (the tests keep what they compile across apps: test/schema-cache.ts). */
export const fastifyCompilers = { validator: AjvCompiler() as CompilerFactory, serializer: SerializerSelector() as CompilerFactory }

/** `schemaController` from compiler factories, each route's compiled on its first use. */
export function lazySchemaController(factories = fastifyCompilers): FastifyServerOptions['schemaController'] {
  return {
    compilersFactory: { buildValidator: lazyValidators(factories.validator), buildSerializer: lazySerializers(factories.serializer) },
  } as FastifyServerOptions['schemaController']
}
