/** `/api/admin/user/tokens`: the signed-in user's personal access tokens. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses, IntegerIdParam, NoContent, parseIntegerId, sendEmpty } from '../../http/common-schemas.ts'
import { forbidden } from '../../http/errors.ts'
import { personOf } from '../users/profile-routes.ts'
import { expiresAtRule } from '../api-tokens/token-service.ts'
import type { PatService } from './pat-service.ts'

const tags = ['Personal access tokens']
const DateTime = Type.String({ format: 'date-time' })
const PatResponse = Type.Object({
  id: Type.Integer(),
  description: Type.String(),
  expiresAt: DateTime,
  createdAt: DateTime,
  seenAt: Type.Union([DateTime, Type.Null()]),
  userId: Type.Integer(),
})
const CreatedPatResponse = Type.Object({ ...PatResponse.properties, secret: Type.String({ description: 'Shown only in this answer' }) })
const CreatePatBody = Type.Object({ description: Type.String({ maxLength: 255 }), expiresAt: DateTime }, { additionalProperties: false })

export const patRoutes: FastifyPluginAsyncTypebox<{ pats: PatService }> = async (app, { pats }) => {
  app.get(
    '/user/tokens',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Your personal access tokens',
        response: { 200: Type.Object({ pats: Type.Array(PatResponse) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ pats: await pats.list(personOf(request.principal)) }),
  )

  app.post(
    '/user/tokens',
    {
      config: { permission: 'NONE', bodyRules: expiresAtRule },
      schema: {
        tags,
        summary:
          'Create a personal access token: it acts as you, with your root role, until it expires; its secret is shown only in this answer',
        description:
          'Only in a signed-in session (403 for a personal access token). The expiry is required, in the future, and at most PAT_MAX_LIFETIME_DAYS (365 by default) away.',
        body: CreatePatBody,
        response: { 201: CreatedPatResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const userId = personOf(request.principal)
      // A stolen personal token must not be able to outlive its own deletion by minting others.
      if (request.principal.session === undefined)
        throw forbidden(
          'Personal access tokens are made by a signed-in person (a session): a personal access token cannot make another.',
          [],
        )
      return reply.status(201).send(await pats.create(userId, request.body, request.principal))
    },
  )

  app.delete(
    '/user/tokens/:id',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Delete one of your personal access tokens',
        params: Type.Object({ id: IntegerIdParam }),
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await pats.delete(personOf(request.principal), parseIntegerId(request.params.id, '/params/id'), request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
