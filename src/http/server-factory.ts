/**
 * The HTTP server under Fastify, made as Fastify makes its own (lib/server.js: the `http`
 * options, keep-alive, request and connection timeouts), with one difference: a request may be
 * answered before Fastify by a fast path (client-features-fast-path.ts) that says it did.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyServerFactory } from 'fastify'
import { mayTakeFastPath, type HostCheck } from './allowed-hosts.ts'

// Node's http module as CommonJS: an ESM import of 'node:http' reads every export, which loads Node's
// fetch (undici) for its WebSocket getters: about 12 MB resident that Pennon never uses.
const { createServer } = process.getBuiltinModule('node:http')

/** Answers the request and returns true, or returns false having written nothing. */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean

/**
 * `current()` is asked on every request: undefined (no fast path) until the app is built, and once
 * it closes. With a Host allow-list (allowed-hosts.ts), only requests it allows may take the fast
 * path; the others go to Fastify, which refuses them.
 */
export function serverWithFastPath(current: () => FastPath | undefined, hosts?: HostCheck): FastifyServerFactory {
  return (handler, options) => {
    const server = createServer((options.http ?? {}) as Parameters<typeof createServer>[0] & object, (request, response) => {
      const fastPath = current()
      if (fastPath !== undefined && (hosts === undefined || mayTakeFastPath(hosts, request)) && fastPath(request, response)) return
      handler(request, response)
    })
    server.keepAliveTimeout = options.keepAliveTimeout as number
    server.requestTimeout = options.requestTimeout as number
    server.setTimeout(options.connectionTimeout as number)
    if ((options.maxRequestsPerSocket as number) > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket as number
    return server
  }
}
