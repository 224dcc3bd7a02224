/** `/api/admin/invite-link/tokens`: public sign-up tokens, for admins only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../../config.ts'
import { errorResponses } from '../../http/common-schemas.ts'
import { baseUrlOf } from '../users/user-routes.ts'
import { CreateTokenBody, SignupTokenResponse, SignupTokensResponse, TokenParams, UpdateTokenBody } from './invite-link-schemas.ts'
import type { InviteLinkService } from './invite-link-service.ts'

const tags = ['Public signup tokens']

export const inviteLinkRoutes: FastifyPluginAsyncTypebox<{ inviteLinks: InviteLinkService; config: Config }> = async (
  app,
  { inviteLinks, config },
) => {
  app.get(
    '/invite-link/tokens',
    {
      config: { permission: 'ADMIN' },
      schema: { tags, summary: 'Every invite link, oldest first', response: { 200: SignupTokensResponse, ...errorResponses(401, 403) } },
    },
    async () => ({ tokens: await inviteLinks.list() }),
  )

  app.post(
    '/invite-link/tokens',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Make an invite link: whoever holds it may sign up, with the Viewer root role, until it expires (at most a month)',
        body: CreateTokenBody,
        response: { 201: SignupTokenResponse, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const token = await inviteLinks.create(request.body, request.principal, baseUrlOf(request, config))
      return reply.status(201).header('location', `tokens/${token.secret}`).send(token)
    },
  )

  app.get(
    '/invite-link/tokens/:token',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'An invite link, by its secret',
        params: TokenParams,
        response: { 200: SignupTokenResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => inviteLinks.get(request.params.token),
  )

  app.put(
    '/invite-link/tokens/:token',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: "Change an invite link's expiry (at most a month away) or turn it off or on",
        params: TokenParams,
        body: UpdateTokenBody,
        response: { 200: SignupTokenResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => inviteLinks.update(request.params.token, request.body, request.principal),
  )
}
