/**
 * CORS, off unless CORS_ORIGINS lists the browser origins allowed to call the API.
 * Preflight requests are answered here, before authentication: browsers send them
 * without credentials.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { addVary } from './vary.ts'

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE'
const ALLOWED_HEADERS = 'Authorization, Content-Type'

/** Returns true when the request was a preflight and has been answered. */
export function createCorsHandler(origins: readonly string[]) {
  const allowed = new Set(origins)
  return function handleCors(request: FastifyRequest, reply: FastifyReply): boolean {
    // Every answer depends on the Origin, including one without CORS headers (no Origin, or one
    // not listed): a shared cache must not give it to a listed origin, nor one origin's to another.
    addVary(reply, 'Origin')
    const origin = request.headers.origin
    if (origin === undefined || !allowed.has(origin)) return false
    reply.header('access-control-allow-origin', origin)
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return false
    reply
      .code(204)
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .send()
    return true
  }
}
