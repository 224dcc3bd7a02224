import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { errorResponses, sendJsonText } from '../../http/common-schemas.ts'
import { EventsQuery, EventsResponse, FeatureEventsParams, FeatureEventsResponse } from './event-schemas.ts'
import type { EventService } from './event-service.ts'

export const eventRoutes: FastifyPluginAsyncTypebox<{ events: EventService }> = async (app, { events }) => {
  app.get(
    '/events',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags: ['Events'],
        summary: 'The last 100 events, or every event of one project',
        querystring: EventsQuery,
        response: { 200: EventsResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { project } = request.query
      // An empty `project=` is the same as none.
      const body = project ? await events.byProject(project, request.dataVersion) : await events.latest(request.dataVersion)
      return sendJsonText(reply as FastifyReply, body)
    },
  )

  app.get(
    '/events/:featureName',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Events'],
        summary: 'Every event of one feature flag',
        params: FeatureEventsParams,
        response: { 200: FeatureEventsResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      // `/events/` names no flag: an unknown path, as everywhere else a trailing slash is.
      if (request.params.featureName === '') return reply.callNotFound()
      return sendJsonText(reply as FastifyReply, await events.byFeature(request.params.featureName, request.dataVersion))
    },
  )
}
