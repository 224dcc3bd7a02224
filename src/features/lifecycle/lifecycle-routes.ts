import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { CompleteBody, LifecycleParams, LifecycleResponse, StageCountResponse } from './lifecycle-schemas.ts'
import type { LifecycleService } from './lifecycle-service.ts'

const tags = ['Flags']
const PATH = '/projects/:projectId/features/:featureName/lifecycle'

/** The reference's lifecycle routes: reads for any admin caller, completion with UPDATE_FEATURE. */
export const lifecycleRoutes: FastifyPluginAsyncTypebox<{ lifecycle: LifecycleService }> = async (app, { lifecycle }) => {
  app.get(
    PATH,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'The lifecycle stages a flag entered',
        description:
          'initial when created; pre-live when an SDK first reported it from any environment; live when first reported from a production environment where it is on; completed; archived. In the order entered.',
        params: LifecycleParams,
        response: { 200: LifecycleResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => lifecycle.stages(request.params.projectId, request.params.featureName),
  )

  app.post(
    `${PATH}/complete`,
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags,
        summary: 'Mark a flag completed',
        description: 'Event feature-completed (data: status, statusValue, kept); none when the flag is completed already.',
        params: LifecycleParams,
        body: CompleteBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      await lifecycle.complete(request.params.projectId, request.params.featureName, request.body, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    `${PATH}/uncomplete`,
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags,
        summary: 'Take a flag out of the completed stage',
        description: 'Event feature-uncompleted; none when the flag was not completed.',
        params: LifecycleParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await lifecycle.uncomplete(request.params.projectId, request.params.featureName, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.get(
    '/lifecycle/count',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'How many flags are in each lifecycle stage',
        description: "Every project's flags, archived ones too, each counted in the stage it entered last.",
        response: { 200: StageCountResponse, ...errorResponses(401, 403) },
      },
    },
    async () => lifecycle.counts(),
  )
}
