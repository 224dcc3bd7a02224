/**
 * The reference's routes between segments and one strategy known by its id:
 * GET /segments/strategies/:strategyId (its segments) and POST /segments/strategies (set them).
 * Here, not in segments/, because a strategy's segments change through the strategy service.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { SegmentResponse } from '../segments/segment-schemas.ts'
import type { StrategyService } from './strategy-service.ts'

const UpdateStrategySegmentsBody = Type.Object({
  projectId: Type.String({ maxLength: 1000, description: "The strategy's project" }),
  strategyId: Type.String({ maxLength: 1000 }),
  environmentId: Type.String({ maxLength: 1000, description: "The strategy's environment" }),
  segmentIds: Type.Array(Type.Integer({ minimum: 0, maximum: 2147483647 }), {
    maxItems: 1000,
    description: 'Exactly the segments the strategy uses from now on',
  }),
})

export const strategySegmentRoutes: FastifyPluginAsyncTypebox<{ strategies: StrategyService }> = async (app, { strategies }) => {
  app.get(
    '/segments/strategies/:strategyId',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Segments'],
        summary: 'The segments a strategy uses',
        description: 'By id; an empty list when there is no such strategy, as the reference.',
        params: Type.Object({ strategyId: Type.String({ maxLength: 1000 }) }),
        response: { 200: Type.Object({ segments: Type.Array(SegmentResponse) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ segments: await strategies.segmentsOf(request.params.strategyId) }),
  )

  app.post(
    '/segments/strategies',
    {
      config: { permission: 'UPDATE_FEATURE_STRATEGY' },
      schema: {
        tags: ['Strategies'],
        summary: "Set a strategy's segments",
        description:
          "The strategy gets exactly `segmentIds` (existing segments, of no project or of the strategy's); the rest of it is kept. 404 when the project has no such strategy in that environment. 201 with the body sent and `Location: strategies/<strategyId>`, as the reference. Event: `feature-strategy-update`, as a PUT of the same change (none when nothing changes; the reference records none).",
        body: UpdateStrategySegmentsBody,
        response: { 201: UpdateStrategySegmentsBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { projectId, environmentId, strategyId, segmentIds } = request.body
      await strategies.setSegments(projectId, environmentId, strategyId, segmentIds, request.principal)
      return reply.code(201).header('location', `strategies/${strategyId}`).send(request.body)
    },
  )
}
