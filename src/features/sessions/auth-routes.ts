/**
 * `/auth` and `/logout`: signing in with a password, signing out, and the one-time links that set
 * a password (docs/security.md). No pipeline covers these paths: they take no credential but what
 * they are sent, and check their content type themselves.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Config } from '../../config.ts'
import type { Principal } from '../../http/permissions.ts'
import type { FastifyRequest } from 'fastify'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { AppError } from '../../http/errors.ts'
import { checkContentType } from '../../http/json-body.ts'
import { addressKey } from '../../http/client-address.ts'
import { crossSiteRefused, isCrossSite } from '../../http/same-origin.ts'
import { checkPasswordRules } from '../users/password.ts'
import type { PasswordAttempts } from '../users/password-attempts.ts'
import { UserResponse } from '../users/user-schemas.ts'
import { rootRoleOf, type UserService } from '../users/user-service.ts'
import type { ResetEmailLimits } from './reset-email-limits.ts'
import { baseUrlOf } from '../users/user-routes.ts'
import { clearSessionCookie, setSessionCookie } from './session-cookie.ts'
import type { SessionService } from './session-service.ts'

const tags = ['Auth']

const LoginBody = Type.Object(
  { username: Type.String({ maxLength: 255, description: 'A username or an email' }), password: Type.String({ maxLength: 1000 }) },
  { additionalProperties: false },
)
const ResetBody = Type.Object(
  { token: Type.String({ maxLength: 200 }), password: Type.String({ maxLength: 1000 }) },
  { additionalProperties: false },
)
const ValidateLinkBody = Type.Object({ token: Type.String({ maxLength: 200 }) }, { additionalProperties: false })
// The reference's emailSchema; what is not an address is answered alike, and mails nobody.
const EmailBody = Type.Object({ email: Type.String({ maxLength: 255 }) }, { additionalProperties: false })
const ValidatePasswordBody = Type.Object({ password: Type.String({ maxLength: 1000 }) }, { additionalProperties: false })
const TokenUserResponse = Type.Object({
  id: Type.Integer(),
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  username: Type.Union([Type.String(), Type.Null()]),
  token: Type.String(),
  createdBy: Type.String({ description: 'Who made the link' }),
  role: Type.Object({ id: Type.Integer(), type: Type.Literal('root'), name: Type.String() }),
})

export interface AuthRoutesOptions {
  config: Config
  sessions: SessionService
  users: UserService
  /** Failed sign-ins and link guesses per address: an address past its limit is refused before any work. */
  attempts: PasswordAttempts
  /** How often password emails may be asked for, per client and per email address. */
  resetEmails: ResetEmailLimits
  /** The signed-in user of a request's session cookie (session-authentication.ts). */
  sessionOf: (request: FastifyRequest) => Promise<Principal | undefined>
  /** Whether password sign-in is allowed now (sso/: it can be turned off while single sign-on is on). */
  passwordSignIn: () => Promise<boolean>
  /**
   * Single sign-out (sso/): read before the session ends, what answers, once it ended, where the
   * browser goes next (the provider's end-session endpoint); undefined when nowhere.
   */
  signOut: (sessionHash: string, request: FastifyRequest) => Promise<(() => Promise<string | undefined>) | undefined>
}

const SignOutResponse = Type.Union([
  NoContent,
  Type.Object(
    { redirectUrl: Type.String({ description: "Where to send the browser next: the sign-in provider's end-session page" }) },
    { additionalProperties: false },
  ),
])

export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (
  app,
  { config, sessions, users, attempts, resetEmails, sessionOf, passwordSignIn, signOut },
) => {
  app.addHook('onRequest', async (request) => {
    // Before anything is read or hashed: an address that failed too often waits, whatever it asks.
    attempts.check(addressKey(request.ip))
    if (request.routeOptions.schema?.body) checkContentType(request)
  })

  app.post(
    '/auth/simple/login',
    {
      schema: {
        tags,
        summary: 'Sign in with a username (or email) and password; starts a session (an HttpOnly cookie)',
        description:
          'Sign-ins are counted from the moment they start, per account and address (LOGIN_FAILURES_PER_ACCOUNT failures per 15 minutes, and four times that per address over all accounts and links): past that, 429 with Retry-After for that address only, on every /auth request. ' +
          "A sign-in posted by another site's page is refused (403), as is any while password sign-in is turned off (POST /api/admin/auth/simple/settings).",
        body: LoginBody,
        response: { 200: UserResponse, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      // Signing a victim's browser into the attacker's account is a cross-site attack too.
      if (isCrossSite(request, config.publicUrl)) throw crossSiteRefused()
      if (!(await passwordSignIn()))
        throw new AppError(403, 'NoAccessError', 'Password sign-in is turned off on this Pennon: sign in with single sign-on.')
      const { user, secret } = await sessions.login(request.body.username, request.body.password, addressKey(request.ip))
      setSessionCookie(reply, request, config, secret, config.sessionMaxAgeMs)
      return user
    },
  )

  app.post(
    '/logout',
    {
      schema: {
        tags,
        summary: 'Sign out: ends the session of the cookie sent, and clears the cookie',
        description:
          'With single sign-out on (enableSingleSignOut) and a session begun by single sign-on, the answer is `{redirectUrl}`: ' +
          "the provider's end-session page, where the browser goes next to sign out there too. Otherwise no body.",
        response: { 200: SignOutResponse, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      // The session itself (and the cross-site check that comes with it); no session, nothing to end.
      const principal = await sessionOf(request)
      let redirectUrl: string | undefined
      if (principal?.session) {
        // Read before the session ends (what single sign-out needs goes with it); the provider asked only after.
        const singleSignOut = await signOut(principal.session, request)
        await sessions.logout(principal.session)
        redirectUrl = await singleSignOut?.()
      }
      clearSessionCookie(reply, request, config)
      return redirectUrl === undefined ? sendEmpty(reply, 200) : { redirectUrl }
    },
  )

  /** Who a link is for, in the shape both routes answer. */
  const linkHolder = async (token: string, ip: string) => {
    const { user, createdBy } = await users.linkHolder(token, addressKey(ip))
    const role = rootRoleOf(user.rootRole)
    return {
      id: user.id,
      name: user.name,
      email: user.email,
      username: user.username,
      token,
      createdBy,
      role: { id: role.id, type: role.type, name: role.name },
    }
  }

  app.get(
    '/auth/reset/validate',
    {
      schema: {
        tags,
        summary: 'Who an invite or password-reset link is for (the token in the URL: prefer POST)',
        description:
          "Kept for tools written for Unleash. It puts the link's secret in the URL, where proxies and access logs record it: " +
          "POST /auth/reset/validate answers the same with the token in the body. Pennon's own pages never use this one.",
        querystring: Type.Object({ token: Type.String({ maxLength: 200 }) }),
        response: { 200: TokenUserResponse, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => linkHolder(request.query.token, request.ip),
  )

  // The link's secret in the body: a URL is written down by proxies and access logs, a body is not.
  app.post(
    '/auth/reset/validate',
    {
      schema: {
        tags,
        summary: 'Who an invite or password-reset link is for (the token in the body)',
        body: ValidateLinkBody,
        response: { 200: TokenUserResponse, ...errorResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request) => linkHolder(request.body.token, request.ip),
  )

  app.post(
    '/auth/reset/password',
    {
      schema: {
        tags,
        summary: 'Set a password with an invite or reset link; the link is then used up, and every session of the user ends',
        body: ResetBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      await users.setPasswordWithLink(request.body.token, request.body.password, addressKey(request.ip))
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/auth/reset/password-email',
    {
      schema: {
        tags,
        summary: 'Email a password-reset link to the user with this address, if there is one',
        description:
          'Always 200 (when not throttled), whether or not a user has the address, and without waiting for the email: the answer tells nothing about who has an account. ' +
          'Sends nothing without SMTP configured (EMAIL_HOST). One email per address per minute (further asks are answered alike and dropped); ' +
          'ten asks per client address per 15 minutes, then 429 with Retry-After.',
        body: EmailBody,
        response: { 200: NoContent, ...errorResponses(400, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { email } = request.body
      if (resetEmails.take(addressKey(request.ip), email)) {
        // Not awaited: a known address must not answer slower than an unknown one.
        users.emailResetLink(email, baseUrlOf(request, config)).catch((error: unknown) => {
          request.log.error({ err: error }, 'password email not sent')
        })
      }
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/auth/reset/validate-password',
    {
      schema: {
        tags,
        summary:
          'Whether a password meets the rules (at least 10 characters; upper and lower case, a number and a symbol; no character three times in a row)',
        body: ValidatePasswordBody,
        response: { 200: NoContent, ...errorResponses(400, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      checkPasswordRules(request.body.password)
      return sendEmpty(reply, 200)
    },
  )
}
