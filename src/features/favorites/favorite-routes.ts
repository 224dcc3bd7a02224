import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import type { FavoriteService } from './favorite-service.ts'

const tags = ['Favorites']
const PathName = Type.String({ maxLength: 1000 })
const ProjectParams = Type.Object({ projectId: PathName })
const FlagParams = Type.Object({ projectId: PathName, featureName: PathName })
const PERSON_ONLY = 'Only a signed-in user has favorites: any other caller gets a 403.'

/** The reference's favorites: permission NONE, the caller's own; 200 with no body. */
export const favoriteRoutes: FastifyPluginAsyncTypebox<{ favorites: FavoriteService }> = async (app, { favorites }) => {
  app.post(
    '/projects/:projectId/features/:featureName/favorites',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Mark a flag a favorite of the signed-in user',
        description: `${PERSON_ONLY} Event feature-favorited, when it was not one yet.`,
        params: FlagParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await favorites.favoriteFeature(request.params.projectId, request.params.featureName, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/projects/:projectId/features/:featureName/favorites',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "Remove a flag from the signed-in user's favorites",
        description: `${PERSON_ONLY} Event feature-unfavorited, when it was one.`,
        params: FlagParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await favorites.unfavoriteFeature(request.params.projectId, request.params.featureName, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/projects/:projectId/favorites',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Mark a project a favorite of the signed-in user',
        description: `${PERSON_ONLY} Event project-favorited, when it was not one yet.`,
        params: ProjectParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await favorites.favoriteProject(request.params.projectId, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/projects/:projectId/favorites',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "Remove a project from the signed-in user's favorites",
        description: `${PERSON_ONLY} Event project-unfavorited, when it was one.`,
        params: ProjectParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await favorites.unfavoriteProject(request.params.projectId, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
