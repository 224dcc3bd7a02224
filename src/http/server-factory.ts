/**
 * The HTTP server under Fastify, made as Fastify makes its own (lib/server.js: the `http`
 * options, keep-alive, request and connection timeouts), with one difference: a request may be
 * answered before Fastify by a fast path (client-features-fast-path.ts) that says it did.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { FastifyServerFactory } from 'fastify'

/** Answers the request and returns true, or returns false having written nothing. */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean

/** `current()` is asked on every request: undefined (no fast path) until the app is built, and once it closes. */
export function serverWithFastPath(current: () => FastPath | undefined): FastifyServerFactory {
  return (handler, options) => {
    const server = createServer((options.http ?? {}) as Parameters<typeof createServer>[0] & object, (request, response) => {
      const fastPath = current()
      if (fastPath !== undefined && fastPath(request, response)) return
      handler(request, response)
    })
    server.keepAliveTimeout = options.keepAliveTimeout as number
    server.requestTimeout = options.requestTimeout as number
    server.setTimeout(options.connectionTimeout as number)
    if ((options.maxRequestsPerSocket as number) > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket as number
    return server
  }
}
