import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { errorResponses, sendJsonText } from '../../http/common-schemas.ts'
import { EventCreatorsResponse, EventSearchQuery, EventSearchResponse } from './event-schemas.ts'
import { parseEventSearch, type EventSearchService } from './event-search-service.ts'

export const eventSearchRoutes: FastifyPluginAsyncTypebox<{ search: EventSearchService }> = async (app, { search }) => {
  app.get(
    '/search/events',
    {
      // As in the reference: anyone may search; without ADMIN, only events that belong to a project.
      config: { permission: 'NONE' },
      schema: {
        tags: ['Events'],
        summary: 'Search events: filters, a page newest first, and the total that match',
        querystring: EventSearchQuery,
        response: { 200: EventSearchResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const parsed = parseEventSearch(request.query, !request.principal.permissions.has('ADMIN'))
      return sendJsonText(reply as FastifyReply, await search.search(parsed))
    },
  )

  app.get(
    '/event-creators',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Events'],
        summary: 'Everyone who made an event, with their name',
        response: { 200: EventCreatorsResponse, ...errorResponses(401, 403) },
      },
    },
    async () => search.creators(),
  )
}
