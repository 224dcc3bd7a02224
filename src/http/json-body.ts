import type { FastifyRequest } from 'fastify'
import { AppError, cut, invalid, LONG_ECHO_LIMIT, quote } from './errors.ts'

/** JSON-body routes take `application/json` (with parameters) only: 415 otherwise. */
export function checkContentType(request: FastifyRequest): void {
  const sent = request.headers['content-type']
  const essence = sent?.split(';')[0]?.trim().toLowerCase()
  if (essence === 'application/json') return
  const what = sent === undefined || sent === '' ? 'No content type was sent' : `The content type ${quote(sent)} is not accepted`
  throw new AppError(415, 'ContentTypeerror', `${what}. Accepted content types: application/json.`)
}

/**
 * Finds the first string (value or key) that neither database can store alike:
 * a NUL character or an unpaired surrogate. Also refuses `__proto__` keys, which
 * only ever arrive to poison an object. Returns a 400 to throw, or undefined. The path is
 * made of the caller's keys: the error shows it cut, like the value.
 */
export function findHostileInput(value: unknown, path: string): Error | undefined {
  // Nearly every body is clean: check it without building a path per key (a tenth of the cost on
  // a 50-flag metrics body), and search again for the place only when something was found.
  return hasHostileInput(value) ? locateHostileInput(value, path) : undefined
}

/** Whether findHostileInput would refuse `value`. */
export function hasHostileInput(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000') || !value.isWellFormed()
  if (typeof value !== 'object' || value === null) return false
  if (Array.isArray(value)) {
    for (const item of value) if (hasHostileInput(item)) return true
    return false
  }
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || hasHostileInput(key) || hasHostileInput((value as Record<string, unknown>)[key])) return true
  }
  return false
}

/** The search that names the place, on any document (findHostileInput runs it only on one hasHostileInput refused). */
export function locateHostileInput(value: unknown, path: string): Error | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000') || !value.isWellFormed()) {
      const shown = cut(path)
      return invalid(
        `The \`${shown}\` property contains a NUL character or an unpaired surrogate, which cannot be stored. You sent ${quote(value)}.`,
        shown,
      )
    }
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = locateHostileInput(value[i], `${path}/${i}`)
      if (found) return found
    }
    return undefined
  }
  for (const key of Object.keys(value)) {
    const keyPath = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
    if (key === '__proto__') return invalid(`The \`${cut(keyPath)}\` property is not allowed.`, cut(keyPath))
    const found = locateHostileInput(key, keyPath) ?? locateHostileInput((value as Record<string, unknown>)[key], keyPath)
    if (found) return found
  }
  return undefined
}

/**
 * How deep arrays and objects may nest in a body. Pennon's deepest documents (a JSON Patch of
 * strategies, an import) nest under 10; every step after parsing (schema validation, the
 * hostile-input walk, quoting a value in an error) recurses, so a deeper body is refused first.
 */
export const MAX_JSON_DEPTH = 64

/**
 * Whether a JSON text nests arrays and objects deeper than `max`: one pass over its characters,
 * skipping strings, before anything recurses into it. Brackets of malformed JSON are counted as
 * they come; JSON.parse judges the rest.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  // A text can only nest as deep as it has opening brackets, which need a character each.
  if (text.length <= max) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // Skip the string: to the next quote not escaped.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === BACKSLASH) i++
        else if (d === QUOTE) break
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--
    }
  }
  return false
}
const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/** The `application/json` parser: a clear 400 that says where the JSON broke, or that it nests too deep. */
export function parseJsonBody(request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  // Routes without a body schema ignore whatever was sent (e.g. curl -X DELETE with a JSON header).
  if (!request.routeOptions.schema?.body) {
    done(null, undefined)
    return
  }
  if (body.trim() === '') {
    done(invalid('The request body is empty: send a JSON document.', '/body'))
    return
  }
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    done(invalid(`The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep: send a flatter document.`, '/body'))
    return
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch (error) {
    done(invalid(`The request body is not valid JSON: ${cut((error as Error).message, LONG_ECHO_LIMIT)}.`, '/body'))
    return
  }
  const error = mayHoldHostileInput(body) ? (findHostileInput(parsed, '/body') ?? null) : null
  // Parsing a large body took milliseconds, and validating it will take as many again: not both
  // in one turn of the event loop, so that other requests are answered in between. The body ended
  // in the loop's poll phase, whose own check phase comes before any other I/O is read: the
  // second setImmediate is the one that runs after it.
  if (body.length >= LARGE_BODY) setImmediate(() => setImmediate(() => done(error, parsed)))
  else done(error, parsed)
}

/** A body of this many characters or more (an import of some 70 flags) takes a millisecond or more to parse. */
const LARGE_BODY = 64 * 1024

/**
 * Whether a JSON text may parse into something findHostileInput refuses. JSON refuses raw control
 * characters, so a NUL can only come from a `\u` escape; a lone surrogate too, or from a text that
 * is not well formed (a body decoded from UTF-8 never is); and a `__proto__` key is spelled out or
 * escaped. A text with none of these (nearly every body) needs no walk of what it parsed into.
 */
export function mayHoldHostileInput(text: string): boolean {
  return text.includes('\\u') || text.includes('__proto__') || !text.isWellFormed()
}
