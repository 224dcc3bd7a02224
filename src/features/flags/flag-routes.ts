import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TSchema } from '@sinclair/typebox'
import { allOf, field } from '../../http/body-rules.ts'
import { newFlagTagsRules } from '../tags/tag-rules.ts'
import { errorResponses, NoContent, sendEmpty, urlFriendlyNameProblems } from '../../http/common-schemas.ts'
import { archiveRoutes } from './archive-routes.ts'
import { dependencyRoutes } from './dependency-routes.ts'
import {
  CreateFlagBody,
  flagDetailsResponse,
  FlagListResponse,
  FlagParams,
  FlagResponse,
  ProjectFlagsParams,
  ProjectFlagsQuery,
  ValidateFlagNameBody,
} from './flag-schemas.ts'
import type { FlagService } from './flag-service.ts'
import { parseTagFilter } from '../tags/tag-filter.ts'

const PAGING_PARAMETERS = ['query', 'offset', 'limit', 'sortBy', 'sortOrder', 'archived', 'stale'] as const

/** `environmentSchema`: one environment of a flag in the flag read (EnvironmentsOfFlags.schema, handed over by app.ts). */
export const flagRoutes: FastifyPluginAsyncTypebox<{ flags: FlagService; environmentSchema: TSchema }> = async (
  app,
  { flags, environmentSchema },
) => {
  app.post(
    '/projects/:projectId/features',
    {
      config: { permission: 'CREATE_FEATURE', bodyRules: allOf(field('name', urlFriendlyNameProblems), newFlagTagsRules) },
      schema: {
        tags: ['Flags'],
        summary: 'Create a flag',
        params: ProjectFlagsParams,
        body: CreateFlagBody,
        response: { 201: FlagResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      reply.status(201)
      return flags.create(request.params.projectId, request.body, request.principal)
    },
  )

  app.post(
    '/features/validate',
    {
      config: { permission: 'NONE', bodyRules: field('name', urlFriendlyNameProblems) },
      schema: {
        tags: ['Flags'],
        summary: 'Whether a flag could be created with this name',
        description:
          'A 400 for a name that is not URL-friendly, a 409 for a name any flag holds (archived ones included). Nothing is written.',
        body: ValidateFlagNameBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await flags.validateName(request.body.name)
      return sendEmpty(reply, 200)
    },
  )

  app.get(
    '/projects/:projectId/features',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Flags'],
        summary: 'List the active flags of a project, sorted by name, with their tags; with a paging parameter, one page of them',
        params: ProjectFlagsParams,
        querystring: ProjectFlagsQuery,
        response: { 200: FlagListResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { query } = request
      // Other query parameters are ignored, as before paging existed.
      const paged = PAGING_PARAMETERS.some((name) => query[name] !== undefined)
      const tags = query.tag === undefined ? undefined : parseTagFilter(typeof query.tag === 'string' ? [query.tag] : query.tag)
      if (!paged) return { version: 1 as const, features: await flags.list(request.params.projectId, tags) }
      return { version: 1 as const, ...(await flags.page(request.params.projectId, query, tags)) }
    },
  )

  app.get(
    '/projects/:projectId/features/:name',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Flags'],
        summary: 'A flag with its parent (dependencies) and its children',
        params: FlagParams,
        response: { 200: flagDetailsResponse(environmentSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => flags.get(request.params.projectId, request.params.name, request.principal),
  )

  await app.register(dependencyRoutes, { flags })
  await app.register(archiveRoutes, { flags })
}
