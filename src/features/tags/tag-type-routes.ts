import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { tagTypeRules } from './tag-rules.ts'
import {
  OneTagTypeResponse,
  TagTypeBody,
  TagTypeListResponse,
  TagTypeParams,
  TagTypeResponse,
  UpdateTagTypeBody,
  ValidTagTypeResponse,
} from './tag-schemas.ts'
import type { TagTypeService } from './tag-type-service.ts'

const tags = ['Tags']

export const tagTypeRoutes: FastifyPluginAsyncTypebox<{ tagTypes: TagTypeService }> = async (app, { tagTypes }) => {
  app.get(
    '/tag-types',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Every tag type',
        description: 'By name (code point order); `simple` is built in.',
        response: { 200: TagTypeListResponse, ...errorResponses(401, 403) },
      },
    },
    async () => ({ version: 1 as const, tagTypes: await tagTypes.list() }),
  )

  app.post(
    '/tag-types',
    {
      config: { permission: 'CREATE_TAG_TYPE', bodyRules: tagTypeRules },
      schema: {
        tags,
        summary: 'Create a tag type',
        description: 'Answers 201 with the tag type and `Location: tag-types/<name>`.',
        body: TagTypeBody,
        response: { 201: TagTypeResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await tagTypes.create(request.body, request.principal)
      return reply.status(201).header('location', `tag-types/${created.name}`).send(created)
    },
  )

  app.post(
    '/tag-types/validate',
    {
      config: { permission: 'NONE', bodyRules: tagTypeRules },
      schema: {
        tags,
        summary: 'Whether a tag type could be created with this body',
        description:
          'A 400 for an invalid body and a 409 for a name taken, as a create would answer; otherwise the body. Nothing is written.',
        body: TagTypeBody,
        response: { 200: ValidTagTypeResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => ({ valid: true as const, tagType: await tagTypes.validate(request.body) }),
  )

  app.get(
    '/tag-types/:name',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'One tag type',
        params: TagTypeParams,
        response: { 200: OneTagTypeResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ version: 1 as const, tagType: await tagTypes.get(request.params.name) }),
  )

  app.put(
    '/tag-types/:name',
    {
      config: { permission: 'UPDATE_TAG_TYPE' },
      schema: {
        tags,
        summary: 'Change a tag type',
        description: 'The description, icon and color sent replace the old ones; those not sent are kept. The name cannot change.',
        params: TagTypeParams,
        body: UpdateTagTypeBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      await tagTypes.update(request.params.name, request.body, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/tag-types/:name',
    {
      config: { permission: 'DELETE_TAG_TYPE' },
      schema: {
        tags,
        summary: 'Delete a tag type, its tags, and those tags from every flag',
        description: 'As the reference. Each flag that loses a tag gets a `feature-untagged` event, each tag a `tag-deleted` one.',
        params: TagTypeParams,
        response: { 200: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await tagTypes.delete(request.params.name, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
