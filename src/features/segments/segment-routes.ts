import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, parseIntegerId, sendEmpty } from '../../http/common-schemas.ts'
import {
  ConstraintBody,
  SegmentListResponse,
  SegmentNameBody,
  SegmentParams,
  SegmentResponse,
  SegmentStrategiesResponse,
  UpsertSegmentBody,
} from './segment-schemas.ts'
import type { SegmentService } from './segment-service.ts'

const tags = ['Segments']

export const segmentRoutes: FastifyPluginAsyncTypebox<{ segments: SegmentService }> = async (app, { segments }) => {
  app.get(
    '/segments',
    {
      config: { permission: 'NONE' },
      schema: { tags, summary: 'List segments, sorted by name', response: { 200: SegmentListResponse, ...errorResponses(401, 403) } },
    },
    async () => ({ segments: await segments.list() }),
  )

  app.post(
    '/segments/validate',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Whether a segment could be created with this name',
        description: 'A 400 for an empty name, a 409 for a name a segment holds. Nothing is written.',
        body: SegmentNameBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await segments.validateName(request.body.name)
      return sendEmpty(reply, 204)
    },
  )

  // The reference's constraint check lives beside segments here: they own the constraint body schema and its legal-value check.
  app.post(
    '/constraints/validate',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Constraints'],
        summary: 'Whether a constraint is valid',
        description:
          "The rules a strategy's or segment's constraint must follow (its operator's values, its context field's legal values): 204, or a 400 listing every violation.",
        body: ConstraintBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      await segments.validateConstraint(request.body)
      return sendEmpty(reply, 204)
    },
  )

  app.get(
    '/segments/:id',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Get one segment',
        params: SegmentParams,
        response: { 200: SegmentResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => segments.get(parseIntegerId(request.params.id, '/params/id')),
  )

  app.get(
    '/segments/:id/strategies',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'The strategies that use a segment',
        params: SegmentParams,
        response: { 200: SegmentStrategiesResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => segments.strategies(parseIntegerId(request.params.id, '/params/id')),
  )

  app.post(
    '/segments',
    {
      config: { permission: ['CREATE_SEGMENT', 'UPDATE_PROJECT_SEGMENT'], bodyRules: segments.bodyRules },
      schema: {
        tags,
        summary: 'Create a segment',
        description: 'Answers 201 with the segment and a `Location: segments/<id>` header, relative to the request URL.',
        body: UpsertSegmentBody,
        response: { 201: SegmentResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const segment = await segments.create(request.body, request.principal)
      return reply.status(201).header('location', `segments/${segment.id}`).send(segment)
    },
  )

  app.put(
    '/segments/:id',
    {
      config: { permission: ['UPDATE_SEGMENT', 'UPDATE_PROJECT_SEGMENT'], bodyRules: segments.bodyRules },
      schema: {
        tags,
        summary: 'Replace a segment',
        description:
          'Same rules as creation, without the count limit. Omitted `description` and `project` become null (global). Moving it to a project while flags of other projects use it is a 409.',
        params: SegmentParams,
        body: UpsertSegmentBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await segments.update(parseIntegerId(request.params.id, '/params/id'), request.body, request.principal)
      return sendEmpty(reply, 204)
    },
  )

  app.delete(
    '/segments/:id',
    {
      config: { permission: ['DELETE_SEGMENT', 'UPDATE_PROJECT_SEGMENT'] },
      schema: {
        tags,
        summary: 'Delete a segment',
        description: 'A segment that a strategy uses cannot be deleted: 409 naming the flags.',
        params: SegmentParams,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await segments.delete(parseIntegerId(request.params.id, '/params/id'), request.principal)
      return sendEmpty(reply, 204)
    },
  )
}
