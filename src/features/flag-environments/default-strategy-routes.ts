import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { BulkParams } from './flag-environment-schemas.ts'
import type { DefaultStrategyService } from './default-strategy-service.ts'
import { CreateStrategyBody } from './strategy-schemas.ts'
import type { StrategyService } from './strategy-service.ts'

/** The strategy as it was sent and kept. */
const StoredStrategyResponse = Type.Object({ name: Type.String() }, { additionalProperties: true })

export const defaultStrategyRoutes: FastifyPluginAsyncTypebox<{ defaults: DefaultStrategyService; strategies: StrategyService }> = async (
  app,
  { defaults, strategies },
) => {
  app.post(
    '/projects/:projectId/environments/:environment/default-strategy',
    {
      config: { permission: 'UPDATE_PROJECT', bodyRules: strategies.bodyRules },
      // The strategy names a body may use are read again, if they may have changed, before it is validated.
      preValidation: async () => strategies.refreshNames(),
      schema: {
        tags: ['Projects'],
        summary: "Set the project's default strategy in an environment",
        description:
          'What switching a flag on in that environment adds where the flag has no active strategy (instead of flexibleRollout 100%). Only flexibleRollout, and it must pass the rules of any strategy (known segments, constraints, variants). Answers the strategy as kept. Event default-strategy-updated. The reference\'s wildcard environment "*" is not supported: it names no environment.',
        params: BulkParams,
        body: CreateStrategyBody,
        response: { 200: StoredStrategyResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => defaults.set(request.params.projectId, request.params.environment, request.body, request.principal),
  )
}
