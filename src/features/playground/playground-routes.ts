/**
 * POST /api/admin/playground and /playground/advanced: how every flag evaluates for a context,
 * and why. Any admin-API credential may ask (permission NONE, as the reference).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, sendJsonText } from '../../http/common-schemas.ts'
import { AdvancedPlaygroundBody, AdvancedPlaygroundResponse, PlaygroundBody, PlaygroundResponse } from './playground-schemas.ts'
import type { PlaygroundService } from './playground-service.ts'

const tags = ['Playground']

export const playgroundRoutes: FastifyPluginAsyncTypebox<{ playground: PlaygroundService }> = async (app, { playground }) => {
  app.post(
    '/playground',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Evaluate a context against the flags of an environment, and explain each answer',
        description:
          "Every flag of the projects (default: all) in the environment, evaluated for the context as the SDKs' APIs evaluate it, with each strategy's constraints, segments and rollout, and why the flag is what it is (`explanation`). Unknown environments and projects are a 400.",
        body: PlaygroundBody,
        response: { 200: PlaygroundResponse, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => sendJsonText(reply, await playground.evaluate(request.body)),
  )

  app.post(
    '/playground/advanced',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Evaluate every combination of context values against the flags of several environments',
        description:
          'Context fields and properties may hold several values separated by commas (`"userId": "1,2,3"`): every combination is evaluated in every environment. At most 15000 evaluations (environments × flags × combinations) unless the server sets another limit (PLAYGROUND_MAX_EVALUATIONS); top-level context values that are not text are left out and listed in `warnings.invalidContextProperties`.',
        body: AdvancedPlaygroundBody,
        response: { 200: AdvancedPlaygroundResponse, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => sendJsonText(reply, await playground.evaluateAdvanced(request.body)),
  )
}
