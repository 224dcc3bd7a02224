/**
 * The admin console at `/`: index.html (revalidated on every load) and its assets under a
 * versioned path (cached for a year). It reads and writes only through the admin API.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { consoleAssets, type ConsoleFile } from './console-assets.ts'
import { addVary } from '../../http/vary.ts'

/** Nothing inline, nothing from elsewhere: scripts, styles and API calls come from this origin only. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ')

const IMMUTABLE = 'public, max-age=31536000, immutable'

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile): FastifyReply {
  const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')
  reply.header('content-type', file.type)
  addVary(reply, 'Accept-Encoding')
  if (gzip) reply.header('content-encoding', 'gzip')
  return reply.send(gzip ? file.gzip : file.body)
}

export const consoleRoutes: FastifyPluginAsync<{ authType: string; dir?: string }> = async (app, { authType, dir }) => {
  const assets = consoleAssets(dir)
  const index = assets.index(authType)
  const etag = `"${assets.version}-${authType === 'none' ? 'n' : 't'}"`

  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('cache-control', 'no-cache')
      .header('etag', etag)
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('cross-origin-opener-policy', 'same-origin')
    addVary(reply, 'Accept-Encoding') // on a 304 too: it names what the 200 varies on
    if (request.headers['if-none-match'] === etag) return reply.code(304).send()
    return send(request, reply, index)
  })

  app.get('/console/:version/*', { schema: { hide: true } }, async (request, reply) => {
    const { version, '*': path } = request.params as { version: string; '*': string }
    const file = version === assets.version ? assets.files.get(path) : undefined
    // An old version's address after an upgrade is gone: index.html names the current one.
    if (!file) return reply.callNotFound()
    reply.header('cache-control', IMMUTABLE)
    return send(request, reply, file)
  })
}
