/**
 * `GET /api/client/delta`: the delta polling of the SDKs (unleash-client's
 * `experimentalMode: { type: 'polling', format: 'delta' }`). The ETag names the state the answer
 * leaves the SDK in; sent back in `If-None-Match`, it is answered 304 when nothing the scope
 * reads changed, the events since then when this instance still holds the steps from it, and a
 * hydration otherwise (docs/client-api.md, "Delta polling").
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { errorResponses, sendJsonText } from '../../http/common-schemas.ts'
import type { Principal } from '../../http/permissions.ts'
import { readScope } from './client-features-service.ts'
import { filtersOf } from './client-routes.ts'
import { ClientDeltaQuery, ClientDeltaResponse } from './client-schemas.ts'
import type { DeltaService } from './delta-service.ts'
import { eventsBody } from './delta-state.ts'

/** The state an `If-None-Match` (or `Last-Event-ID`) names: the first entry, unquoted. */
export function knownState(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (value === undefined) return undefined
  const first = value.split(',')[0]!.trim().replace(/^W\//, '')
  const state = first.startsWith('"') && first.endsWith('"') && first.length >= 2 ? first.slice(1, -1) : first
  return state === '' ? undefined : state
}

export const deltaRoutes: FastifyPluginAsyncTypebox<{ delta: DeltaService; suggestStreaming: (principal: Principal) => boolean }> = async (
  app,
  { delta, suggestStreaming },
) => {
  app.get(
    '/delta',
    {
      config: { sdkApi: 'client' },
      schema: {
        tags: ['Client API'],
        summary: 'What changed in the flags a client token reads, since the state its ETag names',
        description:
          'Scoped as `/api/client/features`. Without `If-None-Match` (or naming a state this instance no longer holds): one `hydration` event. ' +
          'Otherwise the `feature-updated`, `feature-removed`, `segment-updated` and `segment-removed` events since that state, or 304 when nothing changed. ' +
          'Segments are always sent apart. `fetch-mode: streaming` tells SDKs to stream instead, when the server is configured so.',
        querystring: ClientDeltaQuery,
        response: {
          200: ClientDeltaResponse,
          304: Type.Null({ description: 'Not modified: the state the ETag names is current' }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const answer = await delta.since(
        readScope(request.principal.scope, request.query.environment),
        filtersOf(request.query),
        knownState(request.headers['if-none-match']),
      )
      reply.header('etag', `"${answer.hash}"`)
      if (suggestStreaming(request.principal)) reply.header('fetch-mode', 'streaming')
      if (answer.kind === 'current') return (reply as FastifyReply).code(304).send()
      return sendJsonText(reply, Buffer.from(eventsBody(answer.events)))
    },
  )
}
