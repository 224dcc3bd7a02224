import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { errorResponses, NoContent, sendEmpty, sendJsonText } from '../../http/common-schemas.ts'
import { BatchFeaturesBody, FeatureNameParams, FlagParams, ProjectFlagsParams, ValidateArchiveResponse } from './flag-schemas.ts'
import type { FlagService } from './flag-service.ts'

export const archiveRoutes: FastifyPluginAsyncTypebox<{ flags: FlagService }> = async (app, { flags }) => {
  app.delete(
    '/projects/:projectId/features/:name',
    {
      config: { permission: 'DELETE_FEATURE' },
      schema: {
        tags: ['Archive'],
        summary: 'Archive a flag',
        params: FlagParams,
        response: { 202: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await flags.archiveOne(request.params.projectId, request.params.name, request.principal)
      return sendEmpty(reply, 202)
    },
  )

  app.post(
    '/projects/:projectId/archive',
    {
      config: { permission: 'DELETE_FEATURE' },
      schema: {
        tags: ['Archive'],
        summary: 'Archive flags of a project (all or none)',
        params: ProjectFlagsParams,
        body: BatchFeaturesBody,
        response: { 202: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await flags.archiveMany(request.params.projectId, request.body.features, request.principal)
      return sendEmpty(reply, 202)
    },
  )

  app.post(
    '/projects/:projectId/archive/validate',
    {
      config: { permission: 'DELETE_FEATURE' },
      schema: {
        tags: ['Archive'],
        summary: 'What archiving these flags would affect (read-only)',
        params: ProjectFlagsParams,
        body: BatchFeaturesBody,
        response: { 200: ValidateArchiveResponse, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) =>
      sendJsonText(
        reply as FastifyReply,
        await flags.validateArchive(request.params.projectId, request.body.features, request.dataVersion),
      ),
  )

  app.post(
    '/projects/:projectId/revive',
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags: ['Archive'],
        summary: 'Revive archived flags of a project',
        params: ProjectFlagsParams,
        body: BatchFeaturesBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await flags.revive(request.params.projectId, request.body.features, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/projects/:projectId/delete',
    {
      config: { permission: 'DELETE_FEATURE' },
      schema: {
        tags: ['Archive'],
        summary: 'Delete archived flags of a project for good',
        params: ProjectFlagsParams,
        body: BatchFeaturesBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await flags.delete(request.params.projectId, request.body.features, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  // The reference's legacy routes, by flag name alone: the same rules and events as the project routes above.
  app.delete(
    '/archive/:featureName',
    {
      config: { permission: 'DELETE_FEATURE' },
      schema: {
        tags: ['Archive'],
        summary: 'Delete an archived flag for good (legacy)',
        description: 'An active or unknown flag is left as it is (200, no event), as the reference.',
        params: FeatureNameParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 409) },
      },
    },
    async (request, reply) => {
      await flags.deleteByName(request.params.featureName, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/archive/revive/:featureName',
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags: ['Archive'],
        summary: 'Revive an archived flag (legacy)',
        description: 'An active flag is left as it is (200, no event); an unknown one is a 404.',
        params: FeatureNameParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await flags.reviveByName(request.params.featureName, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
