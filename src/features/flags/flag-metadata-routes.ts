import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { PatchBody, shapeCheck } from '../../http/json-patch.ts'
import type { FlagMetadataService } from './flag-metadata-service.ts'
import { FlagMetadata, FlagParams, FlagReadResponse, ProjectFlagsParams, StaleBody, UpdateFlagBody } from './flag-schemas.ts'

const tags = ['Flags']

export const flagMetadataRoutes: FastifyPluginAsyncTypebox<{ metadata: FlagMetadataService }> = async (app, { metadata }) => {
  app.put(
    '/projects/:projectId/features/:name',
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags,
        summary: "Replace a flag's description, type, stale and impressionData",
        description:
          'What is not sent takes its default: no description, type release, not stale, no impression data (as the reference). Events: feature-metadata-updated, and feature-stale-on/off when stale changes; none when nothing changes.',
        params: FlagParams,
        body: UpdateFlagBody,
        response: { 200: FlagReadResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => metadata.update(request.params.projectId, request.params.name, request.body, request.principal),
  )

  app.patch(
    '/projects/:projectId/features/:name',
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags,
        summary: "Change a flag's metadata with JSON Patch",
        description:
          'The operations apply to the flag as GET shows it without environments and dependencies; only description, type, stale and impressionData may change. Events as PUT.',
        params: FlagParams,
        body: PatchBody,
        response: { 200: FlagReadResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      metadata.patch(request.params.projectId, request.params.name, request.body, shapeCheck(request, FlagMetadata), request.principal),
  )

  app.post(
    '/projects/:projectId/stale',
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags,
        summary: 'Mark flags of a project stale, or not stale (all or none)',
        description:
          'Names that are no flag are ignored; a flag of another project is a 409, an archived one a 400. An event (feature-stale-on/off) for each flag whose state changes.',
        params: ProjectFlagsParams,
        body: StaleBody,
        response: { 202: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await metadata.markStale(request.params.projectId, request.body.features, request.body.stale, request.principal)
      return sendEmpty(reply, 202)
    },
  )
}
