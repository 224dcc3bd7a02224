import type { FastifyRequest } from 'fastify'
import { cut, invalid, LONG_ECHO_LIMIT, quote } from './errors.ts'

/**
 * Finds the first string (value or key) that neither database can store alike:
 * a NUL character or an unpaired surrogate. Also refuses `__proto__` keys, which
 * only ever arrive to poison an object. Returns a 400 to throw, or undefined. The path is
 * made of the caller's keys: the error shows it cut, like the value.
 */
export function findHostileInput(value: unknown, path: string): Error | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000') || !value.isWellFormed()) {
      const shown = cut(path)
      return invalid(`The \`${shown}\` property contains a NUL character or an unpaired surrogate, which cannot be stored. You sent ${quote(value)}.`, shown)
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
    if (key === '__proto__') return invalid(`The \`${cut(keyPath)}\` property is not allowed.`, cut(keyPath))
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
    return done(invalid(`The request body is not valid JSON: ${cut((error as Error).message, LONG_ECHO_LIMIT)}.`, '/body'))
  }
  done(findHostileInput(parsed, '/body') ?? null, parsed)
}
