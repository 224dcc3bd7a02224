/**
 * `GET /api/client/streaming`: server-sent events for SDKs in streaming mode (unleash-client's
 * `experimentalMode: { type: 'streaming' }`): `unleash-connected` with the scope's state (or what
 * was missed since `Last-Event-ID`), then `unleash-updated` with each change's events; a comment
 * every STREAMING_HEARTBEAT_MS. Past STREAMING_MAX_CONNECTIONS, or the token's
 * STREAMING_MAX_CONNECTIONS_PER_TOKEN: 429, which sends the SDK back to polling; with streaming
 * off (0): a `fetch-mode` event saying `polling` (docs/client-api.md).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { tooManyRequests, type AppError } from '../../http/errors.ts'
import { readScope } from './client-features-service.ts'
import { filtersOf } from './client-routes.ts'
import { ClientDeltaQuery } from './client-schemas.ts'
import { knownState } from './delta-routes.ts'
import { sseMessage, streamOwner, type StreamingHub } from './streaming-hub.ts'

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // nginx and the like buffer responses unless told not to.
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
}

// A slot frees when some stream ends, which nothing predicts: the SDK polls meanwhile (it does on
// any 429), and a minute of polling before asking again costs little.
const STREAM_RETRY_AFTER_SECONDS = 60

export const tooManyStreams = (max: number): AppError =>
  tooManyRequests(
    STREAM_RETRY_AFTER_SECONDS,
    `This server holds at most ${max} streaming connections, and has that many open: poll /api/client/features or /api/client/delta instead.`,
  )

export const tooManyStreamsOfToken = (max: number): AppError =>
  tooManyRequests(
    STREAM_RETRY_AFTER_SECONDS,
    `This token holds at most ${max} streaming connections on this server, and has that many open: poll /api/client/features or /api/client/delta instead.`,
  )

export const streamingRoutes: FastifyPluginAsyncTypebox<{ hub: StreamingHub; maxConnections: number; maxPerToken: number }> = async (
  app,
  { hub, maxConnections, maxPerToken },
) => {
  app.get(
    '/streaming',
    {
      config: { sdkApi: 'client' },
      schema: {
        tags: ['Client API'],
        summary: 'The flags a client token reads, then each change to them, as server-sent events',
        description:
          'Scoped as `/api/client/features`. Events: `unleash-connected` (a hydration, or the events since `Last-Event-ID` when this instance holds them), ' +
          '`unleash-updated` (the events of a change), each with the state it leaves as its id; an SSE comment as heartbeat; `fetch-mode` (`polling`) when streaming is off. ' +
          "Past the connection limit, or the token's: 429 with Retry-After.",
        querystring: ClientDeltaQuery,
        response: { 200: Type.String({ description: 'text/event-stream' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      if (maxConnections === 0) {
        reply.hijack()
        reply.raw.writeHead(200, SSE_HEADERS)
        reply.raw.end(sseMessage('fetch-mode', undefined, 'polling'))
        return
      }
      if (!hub.hasRoom()) throw tooManyStreams(maxConnections)
      const owner = streamOwner(request.principal)
      if (!hub.hasRoom(owner)) throw tooManyStreamsOfToken(maxPerToken)
      const scope = readScope(request.principal.scope, request.query.environment)
      const filters = filtersOf(request.query)
      reply.hijack()
      reply.raw.writeHead(200, SSE_HEADERS)
      reply.raw.flushHeaders()
      hub.open(reply.raw, scope, filters, knownState(request.headers['last-event-id']), owner)
    },
  )
}
