import type { FastifyRequest } from 'fastify'
import { invalid, quote } from './errors.ts'

/**
 * Finds the first string (value or key) that neither database can store alike:
 * a NUL character or an unpaired surrogate. Also refuses `__proto__` keys, which
 * only ever arrive to poison an object. Returns a 400 to throw, or undefined.
 */
export function findHostileInput(value: unknown, path: string): Error | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000') || !value.isWellFormed()) {
      return invalid(`The \`${path}\` property contains a NUL character or an unpaired surrogate, which cannot be stored. You sent ${quote(value)}.`, path)
    }
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findHostileInput(value[i], `${path}/${i}`)
      if (found) return found
    }
    return undefined
  }
  for (const key of Object.keys(value)) {
    const keyPath = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
    if (key === '__proto__') return invalid(`The \`${keyPath}\` property is not allowed.`, keyPath)
    const found = findHostileInput(key, keyPath) ?? findHostileInput((value as Record<string, unknown>)[key], keyPath)
    if (found) return found
  }
  return undefined
}

/** The `application/json` parser: a clear 400 that says where the JSON broke. */
export function parseJsonBody(request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  // Routes without a body schema ignore whatever was sent (e.g. curl -X DELETE with a JSON header).
  if (!request.routeOptions.schema?.body) return done(null, undefined)
  if (body.trim() === '') return done(invalid('The request body is empty: send a JSON document.', '/body'))
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch (error) {
    return done(invalid(`The request body is not valid JSON: ${(error as Error).message}.`, '/body'))
  }
  done(findHostileInput(parsed, '/body') ?? null, parsed)
}
