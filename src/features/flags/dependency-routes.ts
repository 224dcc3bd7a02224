import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { ProjectParams } from '../projects/project-schemas.ts'
import { ChildParams, CreateDependencyBody, DependenciesExistResponse, DependencyParams, PossibleParentsResponse } from './flag-schemas.ts'
import type { FlagService } from './flag-service.ts'

export const dependencyRoutes: FastifyPluginAsyncTypebox<{ flags: FlagService }> = async (app, { flags }) => {
  app.post(
    '/projects/:projectId/features/:child/dependencies',
    {
      config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
      schema: {
        tags: ['Dependencies'],
        summary: 'Make a flag depend on another one (replacing its previous parent)',
        params: ChildParams,
        body: CreateDependencyBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { projectId, child } = request.params
      await flags.addDependency({ project: projectId, child, ...request.body }, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/projects/:projectId/features/:child/dependencies/:parent',
    {
      config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
      schema: {
        tags: ['Dependencies'],
        summary: 'Remove one dependency',
        params: DependencyParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { projectId, child, parent } = request.params
      await flags.removeDependency(projectId, child, parent, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/projects/:projectId/features/:child/dependencies',
    {
      config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
      schema: {
        tags: ['Dependencies'],
        summary: 'Remove every dependency of a flag',
        params: ChildParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await flags.removeDependencies(request.params.projectId, request.params.child, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.get(
    '/projects/:projectId/features/:child/parents',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Dependencies'],
        summary: 'The flags this one could depend on: active, in the same project, not itself, not a child',
        params: ChildParams,
        response: { 200: PossibleParentsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => flags.possibleParents(request.params.projectId, request.params.child),
  )

  app.get(
    '/projects/:projectId/dependencies',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Dependencies'],
        summary: 'Whether any dependency exists',
        description:
          'As the reference: any dependency of the whole instance counts, whatever the project of the path (which is not checked).',
        params: ProjectParams,
        response: { 200: DependenciesExistResponse, ...errorResponses(401, 403) },
      },
    },
    async () => flags.anyDependencyExists(),
  )
}
