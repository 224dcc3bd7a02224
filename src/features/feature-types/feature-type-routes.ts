import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { FeatureTypeParams, FeatureTypeResponse, FeatureTypesResponse, UpdateLifetimeBody } from './feature-type-schemas.ts'
import type { FeatureTypeService } from './feature-type-service.ts'

const tags = ['Feature Types']

export const featureTypeRoutes: FastifyPluginAsyncTypebox<{ featureTypes: FeatureTypeService }> = async (app, { featureTypes }) => {
  app.get(
    '/feature-types',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'The flag types, with their expected lifetimes',
        response: { 200: FeatureTypesResponse, ...errorResponses(401, 403) },
      },
    },
    async () => featureTypes.list(),
  )

  app.put(
    '/feature-types/:id/lifetime',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: "Change a flag type's expected lifetime",
        description:
          'Flags of the type older than the lifetime are potentially stale (computed when read, so the change counts at once). null or 0: never.',
        params: FeatureTypeParams,
        body: UpdateLifetimeBody,
        response: { 200: FeatureTypeResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => featureTypes.setLifetime(request.params.id, request.body, request.principal),
  )
}
