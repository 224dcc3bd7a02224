import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import {
  AddProjectEnvironmentBody,
  CreateEnvironmentBody,
  EnvironmentListResponse,
  EnvironmentParams,
  EnvironmentResponse,
  ProjectEnvironmentListResponse,
  ProjectEnvironmentParams,
  ProjectParams,
  SortOrderBody,
} from './environment-schemas.ts'
import { createEnvironmentRules, type EnvironmentService } from './environment-service.ts'

const tags = ['Environments']

export const environmentRoutes: FastifyPluginAsyncTypebox<{ environments: EnvironmentService }> = async (app, { environments }) => {
  app.get(
    '/environments',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'List environments, by sort order',
        response: { 200: EnvironmentListResponse, ...errorResponses(401, 403) },
      },
    },
    async () => ({ version: 1 as const, environments: await environments.list() }),
  )

  app.post(
    '/environments',
    {
      config: { permission: 'ADMIN', bodyRules: createEnvironmentRules },
      schema: {
        tags,
        summary: 'Create an environment (Pennon only: the reference has no such route in its open-source edition)',
        description:
          'Answers 201 with the environment and `Location: environments/<name>`. It is added to no project: add it with POST /projects/{projectId}/environments.',
        body: CreateEnvironmentBody,
        response: { 201: EnvironmentResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await environments.create(request.body, request.principal)
      return reply
        .status(201)
        .header('location', `environments/${created.name}`)
        .send(await environments.get(created.name))
    },
  )

  app.put(
    '/environments/sort-order',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Set the sort order of environments',
        description:
          'A sort order by environment name; all or none: an unknown name is a 404. Each changed environment records environment-updated.',
        body: SortOrderBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      await environments.setSortOrders(request.body, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  for (const [state, enabled] of [
    ['on', true],
    ['off', false],
  ] as const) {
    app.post(
      `/environments/:name/${state}`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          summary: `Switch an environment ${state} for the whole instance`,
          description:
            'Its `enabled`: new projects start in every enabled environment. Records environment-updated; the same again changes nothing.',
          params: EnvironmentParams,
          response: { 204: NoContent, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await environments.setEnabled(request.params.name, enabled, request.principal)
        return sendEmpty(reply, 204)
      },
    )
  }

  app.get(
    '/environments/:name',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Get one environment',
        params: EnvironmentParams,
        response: { 200: EnvironmentResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => environments.get(request.params.name),
  )

  app.get(
    '/environments/project/:projectId',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Every environment, and whether the project has it (visible)',
        params: ProjectParams,
        response: { 200: ProjectEnvironmentListResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ version: 1 as const, environments: await environments.listForProject(request.params.projectId) }),
  )

  app.post(
    '/projects/:projectId/environments',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Add an environment to a project',
        description: "Each of the project's flags gets the environment, disabled and without strategies.",
        params: ProjectParams,
        body: AddProjectEnvironmentBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await environments.addToProject(request.params.projectId, request.body.environment, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/projects/:projectId/environments/:environment',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Remove an environment from a project',
        description: "The project's flags lose their state, strategies and variants there. A project keeps at least one environment (409).",
        params: ProjectEnvironmentParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await environments.removeFromProject(request.params.projectId, request.params.environment, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
