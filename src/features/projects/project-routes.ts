import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { field } from '../../http/body-rules.ts'
import { errorResponses, NoContent, sendEmpty, urlFriendlyNameProblems } from '../../http/common-schemas.ts'
import {
  CreateProjectBody,
  ProjectListQuery,
  ProjectListResponse,
  ProjectParams,
  ProjectResponse,
  UpdateProjectBody,
} from './project-schemas.ts'
import type { ProjectService } from './project-service.ts'

export const projectRoutes: FastifyPluginAsyncTypebox<{ projects: ProjectService }> = async (app, { projects }) => {
  app.get(
    '/projects',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Projects'],
        summary: 'List projects',
        querystring: ProjectListQuery,
        response: { 200: ProjectListResponse, ...errorResponses(400, 401, 403) },
      },
    },
    // Not the projects there are: a script asking for archived ones (to delete them, say) must not get those.
    async (request) => ({
      version: 1 as const,
      projects: request.query.archived === 'true' ? [] : await projects.list(request.principal),
    }),
  )

  app.post(
    '/projects',
    {
      config: { permission: 'CREATE_PROJECT', bodyRules: field('id', urlFriendlyNameProblems) },
      schema: {
        tags: ['Projects'],
        summary: 'Create a project',
        body: CreateProjectBody,
        response: { 201: ProjectResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      reply.status(201)
      return projects.create(request.body, request.principal)
    },
  )

  app.put(
    '/projects/:projectId',
    {
      config: { permission: 'UPDATE_PROJECT' },
      schema: {
        tags: ['Projects'],
        summary: "Change a project's name and description",
        description:
          'The id never changes. Event project-updated; none when nothing changes. (Enterprise-only in the reference; Pennon answers the project.)',
        params: ProjectParams,
        body: UpdateProjectBody,
        response: { 200: ProjectResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => projects.update(request.params.projectId, request.body, request.principal),
  )

  app.delete(
    '/projects/:projectId',
    {
      config: { permission: 'DELETE_PROJECT' },
      schema: {
        tags: ['Projects'],
        summary: 'Delete a project that holds no flags or segments',
        params: ProjectParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await projects.delete(request.params.projectId, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
