/**
 * `/invite/:token/…`: signing up with an invite link. No credential: anyone may call these, so a
 * client address that sends unusable tokens too often, or signs up too often, gets 429 (per
 * instance, in memory), and answers say no more than the reference's (a token unusable for any
 * reason is one 400).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { createAuthThrottle } from '../../http/auth-throttle.ts'
import { addressKey } from '../../http/client-address.ts'
import { tooManyRequests } from '../../http/errors.ts'
import { checkContentType } from '../../http/json-body.ts'
import { UserResponse } from '../users/user-schemas.ts'
import { SignupBody, TokenParams } from './invite-link-schemas.ts'
import { unusableToken, type InviteLinkService } from './invite-link-service.ts'

const tags = ['Public signup tokens']
const WINDOW_MS = 15 * 60_000
// Tokens are 128 random bits: these bound the work a client makes us do, not the guessing (hopeless anyway).
const UNUSABLE_TOKENS_PER_CLIENT = 20
// An office behind one address may sign up together; a script making accounts may not.
const SIGNUPS_PER_CLIENT = 30

export const publicInviteRoutes: FastifyPluginAsyncTypebox<{ inviteLinks: InviteLinkService }> = async (app, { inviteLinks }) => {
  const unusable = createAuthThrottle(UNUSABLE_TOKENS_PER_CLIENT, WINDOW_MS)
  const signups = createAuthThrottle(SIGNUPS_PER_CLIENT, WINDOW_MS)

  app.addHook('onRequest', async (request) => {
    const seconds = unusable.retryAfter(addressKey(request.ip))
    if (seconds > 0) throw tooManyRequests(seconds, `Too many unusable invite links from this address: try again in ${seconds} seconds.`)
    if (request.routeOptions.schema?.body) checkContentType(request)
  })

  /** 400 for a token that cannot be used, counted for the client. */
  async function checkUsable(secret: string, client: string): Promise<void> {
    if (await inviteLinks.isUsable(secret)) return
    unusable.recordFailure(client)
    throw unusableToken()
  }

  app.get(
    '/invite/:token/validate',
    {
      schema: {
        tags,
        summary: 'Whether an invite link can be used: it exists, is enabled and has not expired',
        params: TokenParams,
        response: { 200: NoContent, ...errorResponses(400, 429) },
      },
    },
    async (request, reply) => {
      await checkUsable(request.params.token, addressKey(request.ip))
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/invite/:token/signup',
    {
      schema: {
        tags,
        summary: "Sign up with an invite link: a user with the link's root role (Viewer), who may then sign in",
        description:
          'The password must meet the rules (POST /auth/reset/validate-password); 400 for an email or username already taken (as the reference). ' +
          `${SIGNUPS_PER_CLIENT} sign-ups per client address per 15 minutes, then 429.`,
        params: TokenParams,
        body: SignupBody,
        response: { 201: UserResponse, ...errorResponses(400, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const client = addressKey(request.ip)
      await checkUsable(request.params.token, client)
      if (signups.reserve(client, 1) === 0) {
        const seconds = signups.retryAfter(client)
        throw tooManyRequests(seconds, `Too many sign-ups from this address: try again in ${seconds} seconds.`)
      }
      try {
        return reply.status(201).send(await inviteLinks.signUp(request.params.token, request.body, client))
      } catch (error) {
        // Only sign-ups that made an account count.
        signups.forgive(client, 1)
        throw error
      }
    },
  )
}
