import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { bulkTagsRules, tagRules, updateTagsRules } from './tag-rules.ts'
import {
  FlagTagListResponse,
  FlagTagParams,
  FlagTagsParams,
  OneTagResponse,
  ProjectTagsParams,
  TagBody,
  TagListResponse,
  TagParams,
  TagResponse,
  TagsBulkAddBody,
  TagsOfTypeParams,
  UpdateTagsBody,
} from './tag-schemas.ts'
import type { TagService } from './tag-service.ts'

const tags = ['Tags']

export const tagRoutes: FastifyPluginAsyncTypebox<{ tagService: TagService }> = async (app, { tagService }) => {
  app.get(
    '/tags',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Every tag',
        description: 'By type, then value.',
        response: { 200: TagListResponse, ...errorResponses(401, 403) },
      },
    },
    async () => ({ version: 1 as const, tags: await tagService.list() }),
  )

  app.post(
    '/tags',
    {
      config: { permission: 'UPDATE_FEATURE', bodyRules: tagRules },
      schema: {
        tags,
        summary: 'Create a tag',
        description: 'Of an existing type; the value is stored trimmed. Answers 201 with `Location: tags/<type>/<value>`.',
        body: TagBody,
        response: { 201: OneTagResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const tag = await tagService.create(request.body, request.principal)
      return reply
        .status(201)
        .header('location', `tags/${encodeURIComponent(tag.type)}/${encodeURIComponent(tag.value)}`)
        .send({ version: 1 as const, tag })
    },
  )

  app.get(
    '/tags/:type',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'The tags of a type',
        description: 'An unknown type has none (200), as the reference.',
        params: TagsOfTypeParams,
        response: { 200: TagListResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ version: 1 as const, tags: await tagService.list(request.params.type) }),
  )

  app.get(
    '/tags/:type/:value',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Whether a tag exists',
        params: TagParams,
        response: { 200: OneTagResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ version: 1 as const, tag: await tagService.get(request.params) }),
  )

  app.delete(
    '/tags/:type/:value',
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags,
        summary: 'Delete a tag, and remove it from every flag',
        description: 'Each flag that had it gets a `feature-untagged` event.',
        params: TagParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await tagService.delete(request.params, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.get(
    '/features/:featureName/tags',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Tags', 'Flags'],
        summary: "A flag's tags, with their type's color",
        description: 'By type, then value. Archived flags keep their tags.',
        params: FlagTagsParams,
        response: { 200: FlagTagListResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ version: 1 as const, tags: await tagService.flagTags(request.params.featureName) }),
  )

  app.post(
    '/features/:featureName/tags',
    {
      config: { permission: 'UPDATE_FEATURE', bodyRules: tagRules },
      schema: {
        tags: ['Tags', 'Flags'],
        summary: 'Tag a flag',
        description:
          'The tag is created if it does not exist (its type must). Adding a tag the flag has already changes nothing. Answers 201 with the tag and `Location: <featureName>/tags`.',
        params: FlagTagsParams,
        body: TagBody,
        response: { 201: TagResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const tag = await tagService.addToFlag(request.params.featureName, request.body, request.principal)
      return reply.status(201).header('location', `${request.params.featureName}/tags`).send(tag)
    },
  )

  app.put(
    '/features/:featureName/tags',
    {
      config: { permission: 'UPDATE_FEATURE', bodyRules: updateTagsRules },
      schema: {
        tags: ['Tags', 'Flags'],
        summary: "Add and remove a flag's tags",
        description: "`addedTags` are added (created if needed), then `removedTags` removed. Answers the flag's tags after.",
        params: FlagTagsParams,
        body: UpdateTagsBody,
        response: { 200: FlagTagListResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => ({
      version: 1 as const,
      tags: await tagService.updateFlagTags(request.params.featureName, request.body, request.principal),
    }),
  )

  app.delete(
    '/features/:featureName/tags/:type/:value',
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags: ['Tags', 'Flags'],
        summary: 'Remove a tag from a flag',
        description: 'A flag without that tag is left as it is (200, no event); an unknown flag is a 404.',
        params: FlagTagParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { featureName, type, value } = request.params
      await tagService.removeFromFlag(featureName, { type, value }, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.put(
    '/projects/:projectId/tags',
    {
      config: { permission: 'UPDATE_FEATURE', bodyRules: bulkTagsRules },
      schema: {
        tags,
        summary: 'Add and remove tags of several flags of a project',
        description: "All or none: every flag named must be one of the project's (400 otherwise). Tags to add are created if needed.",
        params: ProjectTagsParams,
        body: TagsBulkAddBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      await tagService.updateProjectTags(request.params.projectId, request.body, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
