import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
const mem = () => { const s = readFileSync('/proc/self/status', 'utf8'); return `hwm ${s.match(/VmHWM:\s+(\d+)/)![1]! / 1024 | 0} rss ${s.match(/VmRSS:\s+(\d+)/)![1]! / 1024 | 0} heap ${process.memoryUsage().heapUsed / 1048576 | 0}` }
const fromFastify = createRequire(import.meta.resolve('fastify'))
const { AjvCompiler } = fromFastify('@fastify/ajv-compiler')
const { SerializerSelector } = fromFastify('@fastify/fast-json-stringify-compiler')
let compiled = 0
const lazyValidators = (factory: any) => (externalSchemas: unknown, options: unknown) => {
  let compile: any
  return (route: any) => {
    let validate: any
    const lazy: any = (data: unknown) => {
      validate ??= (compile ??= factory(externalSchemas, options))(route)
      const result = validate(data)
      lazy.errors = validate.errors
      return result
    }
    return lazy
  }
}
const lazySerializers = (factory: any) => (externalSchemas: unknown, options: unknown) => {
  let compile: any
  return (route: any) => {
    let serialize: any
    return (data: unknown) => (serialize ??= (compile ??= factory(externalSchemas, options))(route))(data)
  }
}
const lazy = process.argv[2] === 'lazy'
const schemaController = lazy ? { compilersFactory: { buildValidator: lazyValidators(AjvCompiler()), buildSerializer: lazySerializers(SerializerSelector()) } } : undefined
const { loadConfig } = await import('../src/config.ts')
const { createDb } = await import('../src/db/database.ts')
const { migrateToLatest } = await import('../src/db/migrate.ts')
const { buildApp } = await import('../src/app.ts')
const database = createDb({ databaseFile: `/tmp/lazy-${process.pid}.sqlite` })
await migrateToLatest(database.db)
console.log(process.argv[2], 'modules+migrated', mem())
const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'warn' }), database, ...(schemaController ? { schemaController } : {}) })
await app.ready()
console.log(process.argv[2], 'ready', mem())
;(globalThis as any).gc?.()
console.log(process.argv[2], 'after gc', mem())
const r = await app.inject({ method: 'GET', url: '/api/admin/projects', headers: {} })
console.log('status', r.statusCode)
await app.close(); await database.close()
