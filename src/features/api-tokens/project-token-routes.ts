import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { ProjectParams } from '../projects/project-schemas.ts'
import { ApiTokenListResponse, CreatedApiTokenResponse, CreateProjectApiTokenBody, ProjectTokenParams } from './token-schemas.ts'
import { expiresAtRule, type TokenService } from './token-service.ts'

const tags = ['API tokens']

/** A project's own API tokens (`/api/admin/projects/:projectId/api-tokens`), through the token service's rules and events. */
export const projectTokenRoutes: FastifyPluginAsyncTypebox<{ tokens: TokenService }> = async (app, { tokens }) => {
  app.get(
    '/projects/:projectId/api-tokens',
    {
      config: { permission: 'READ_PROJECT_API_TOKEN' },
      schema: {
        tags,
        summary: "List a project's API tokens (never their secrets)",
        description: 'The client, backend and frontend tokens whose projects name this one, whoever asks.',
        params: ProjectParams,
        response: { 200: ApiTokenListResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ tokens: await tokens.listProjectApiTokens(request.params.projectId) }),
  )

  app.post(
    '/projects/:projectId/api-tokens',
    {
      config: { permission: 'CREATE_PROJECT_API_TOKEN', bodyRules: expiresAtRule },
      schema: {
        tags,
        summary: 'Create an API token of this project; the response is the only time its secret is shown',
        params: ProjectParams,
        body: CreateProjectApiTokenBody,
        response: { 201: CreatedApiTokenResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await tokens.createProjectApiToken(request.params.projectId, request.body, request.principal)
      return reply.status(201).header('location', 'api-tokens').send(created)
    },
  )

  app.delete(
    '/projects/:projectId/api-tokens/:token',
    {
      config: { permission: 'DELETE_PROJECT_API_TOKEN' },
      schema: {
        tags,
        summary: 'Delete the API token of this project with that secret',
        description:
          "404 when none of the project's tokens has that secret; 400 when that token reads other projects too (DELETE /api/admin/api-tokens/:tokenName deletes it).",
        params: ProjectTokenParams,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await tokens.deleteProjectApiToken(request.params.projectId, request.params.token, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
