import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { errorResponses } from '../../http/common-schemas.ts'
import { EventsQuery, EventsResponse, FeatureEventsParams, FeatureEventsResponse } from './event-schemas.ts'
import type { EventService, ResponseBody } from './event-service.ts'

/**
 * Sends JSON bytes as they are: a Buffer or a stream bypasses Fastify's serializer, so the
 * response schema documents the shape without re-encoding a body that is already JSON.
 */
function sendJsonText(reply: FastifyReply, body: ResponseBody): FastifyReply {
  if (!Buffer.isBuffer(body)) {
    // Too late for an error response: the client sees a cut body. (A client leaving is no error.)
    body.once('error', (error) => reply.log.error({ err: error }, 'event stream failed after the response began; the response was cut'))
  }
  return reply.type('application/json; charset=utf-8').send(body)
}

export const eventRoutes: FastifyPluginAsyncTypebox<{ events: EventService }> = async (app, { events }) => {
  app.get('/events', {
    config: { permission: 'ADMIN' },
    schema: {
      tags: ['Events'],
      summary: 'The last 100 events, or every event of one project',
      querystring: EventsQuery,
      response: { 200: EventsResponse, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { project } = request.query
    // An empty `project=` is the same as none.
    const body = project ? await events.byProject(project, request.dataVersion) : await events.latest(request.dataVersion)
    return sendJsonText(reply as FastifyReply, body)
  })

  app.get('/events/:featureName', {
    config: { permission: 'NONE' },
    schema: {
      tags: ['Events'],
      summary: 'Every event of one feature flag',
      params: FeatureEventsParams,
      response: { 200: FeatureEventsResponse, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    // `/events/` names no flag: an unknown path, as everywhere else a trailing slash is.
    if (request.params.featureName === '') return reply.callNotFound()
    return sendJsonText(reply as FastifyReply, await events.byFeature(request.params.featureName, request.dataVersion))
  })
}
