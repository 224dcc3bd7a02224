import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { BodyPool } from '../../http/body-pool.ts'
import { errorResponses, sendJsonText } from '../../http/common-schemas.ts'
import { notFound, quote } from '../../http/errors.ts'
import type { Principal } from '../../http/permissions.ts'
import { parseTagFilter } from '../tags/tag-filter.ts'
import { ClientFeatureResponse, ClientFeaturesQuery, ClientFeaturesResponse } from './client-schemas.ts'
import { readScope, takesSegmentsApart, type ClientFeaturesService, type FeatureFilters } from './client-features-service.ts'

const tags = ['Client API']
const asList = (value: string | string[] | undefined) => (value === undefined ? undefined : Array.isArray(value) ? value : [value])

/** The filters of a client API query (`/features`, `/delta`, `/streaming` take the same). */
export function filtersOf(query: { project?: string | string[]; namePrefix?: string; tag?: string | string[] }): FeatureFilters {
  return {
    ...(query.project === undefined ? {} : { project: asList(query.project)! }),
    ...(query.namePrefix === undefined ? {} : { namePrefix: query.namePrefix }),
    ...(query.tag === undefined ? {} : { tag: parseTagFilter(asList(query.tag)!) }),
  }
}

/** `If-None-Match` names this ETag (one of a list, weak or not, or `*`). */
export function notModified(request: FastifyRequest, etag: string): boolean {
  return etagMatches(request.headers['if-none-match'], etag)
}

/** An `If-None-Match` header's value names this ETag. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (typeof header !== 'string') return false
  // What an SDK sends back is the ETag it was given, as it was given.
  if (header === etag) return true
  return header.split(',').some((candidate) => {
    const tag = candidate.trim()
    return tag === '*' || tag === etag || tag === `W/${etag}`
  })
}

/** Answers 304 when the client has this ETag already; otherwise sends the bytes with it. `pool`: where `body` was taken from, to go back to. */
export function sendWithEtag(request: FastifyRequest, reply: FastifyReply, body: Buffer, etag: string, pool?: BodyPool): FastifyReply {
  reply.header('etag', etag)
  if (notModified(request, etag)) {
    pool?.giveBack(body)
    return reply.code(304).send()
  }
  pool?.giveBackWhenSent(reply, body)
  return sendJsonText(reply, body)
}

export const clientRoutes: FastifyPluginAsyncTypebox<{
  clientFeatures: ClientFeaturesService
  suggestStreaming: (principal: Principal) => boolean
}> = async (app, { clientFeatures, suggestStreaming }) => {
  app.get(
    '/features',
    {
      config: { sdkApi: 'client' },
      schema: {
        tags,
        summary: 'Every flag a client token may read, as server SDKs evaluate them',
        description:
          "The token's environment and projects (an admin token: every project, in `?environment=`, default development). " +
          'Segments are sent apart (ids in strategies, each segment once) to SDKs that send `Unleash-Client-Spec` 4.2.0 or later, as the reference does; ' +
          'otherwise their constraints are inlined. Answers carry an ETag; `If-None-Match` with it answers 304. ' +
          '`tag=type:value` (repeatable) keeps the flags with any of those tags. ' +
          '`fetch-mode: streaming` tells SDKs to switch to `/api/client/streaming`, when the server is configured so (CLIENT_FETCH_MODE).',
        querystring: ClientFeaturesQuery,
        response: {
          200: ClientFeaturesResponse,
          304: Type.Null({ description: 'Not modified: the ETag sent is current' }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const query = request.query
      const filters = filtersOf(query)
      const segmentsApart =
        query.inlineSegmentConstraints !== 'true' && takesSegmentsApart(request.headers['unleash-client-spec'] as string | undefined)
      const { body, etag } = await clientFeatures.features(readScope(request.principal.scope, query.environment), filters, segmentsApart)
      if (suggestStreaming(request.principal)) reply.header('fetch-mode', 'streaming')
      return sendWithEtag(request, reply, body, etag)
    },
  )

  app.get(
    '/features/:featureName',
    {
      config: { sdkApi: 'client' },
      schema: {
        tags,
        summary: 'One flag a client token may read',
        params: Type.Object({ featureName: Type.String({ maxLength: 1000 }) }),
        querystring: Type.Object({ environment: Type.Optional(Type.String({ maxLength: 1000 })) }),
        response: { 200: ClientFeatureResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const scope = readScope(request.principal.scope, request.query.environment)
      const feature = await clientFeatures.feature(
        scope,
        request.params.featureName,
        takesSegmentsApart(request.headers['unleash-client-spec'] as string | undefined),
      )
      if (!feature) throw notFound(`There's no flag named ${quote(request.params.featureName)} that this token may read.`)
      return feature
    },
  )
}
