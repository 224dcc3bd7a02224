/**
 * `/auth/oidc/login` and `/auth/oidc/callback`: single sign-on with OpenID Connect
 * (docs/authentication.md). Public, as /auth is: the browser comes here before it has a session.
 * A sign-in that fails ends on a page of its own with a 400, never with a session.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseCookie, stringifySetCookie } from 'cookie'
import { errorResponses } from '../../http/common-schemas.ts'
import type { Config } from '../../config.ts'
import { setSessionCookie } from '../sessions/session-cookie.ts'
import { baseUrlOf } from '../users/user-routes.ts'
import { SignInRefused } from './oidc-provider.ts'
import type { OidcSignIn } from './oidc-sign-in.ts'

const tags = ['Auth']
export const CALLBACK_PATH = '/auth/oidc/callback'
// Ties a sign-in to the browser that began it: the state comes back in the URL and in this cookie.
const STATE_COOKIE = 'pennon-oidc-state'
const STATE_COOKIE_SECONDS = 10 * 60

// The person's page when the sign-in fails; a request not in the route's shape is the API's usual 400.
const Refused = {
  description: 'Sign-in failed: an HTML page saying why (or, for a request not in this shape, the usual error body)',
  content: {
    'text/html': { schema: Type.String() },
    'application/json': { schema: Type.Ref('ErrorResponse') },
  },
}
const Redirect = Type.Null({ description: 'A redirect (Location)' })

function stateCookie(reply: FastifyReply, request: FastifyRequest, config: Config, value: string, maxAge: number): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: STATE_COOKIE,
      value,
      httpOnly: true,
      sameSite: 'lax',
      secure: config.secureCookies || request.protocol === 'https',
      path: '/auth/oidc',
      maxAge,
    }),
  )
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** The page a failed sign-in ends on: what went wrong, and the way back to the sign-in page. */
function refusedPage(reply: FastifyReply, message: string, home: string): FastifyReply {
  return reply
    .code(400)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Sign-in failed · Pennon</title></head>` +
        `<body><h1>Sign-in failed</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(home)}">Back to Pennon's sign-in page</a></p></body></html>\n`,
    )
}

const SignInOptions = Type.Object(
  {
    password: Type.Boolean({ description: 'Whether password sign-in (POST /auth/simple/login) is allowed' }),
    options: Type.Array(
      Type.Object(
        {
          type: Type.Literal('oidc'),
          message: Type.String({ description: 'What the sign-in page may show on the link' }),
          path: Type.String({ description: 'Where the link goes' }),
        },
        { additionalProperties: false },
      ),
      { description: 'The single sign-on ways in that are enabled' },
    ),
  },
  { additionalProperties: false },
)

export const oidcRoutes: FastifyPluginAsyncTypebox<{
  config: Config
  signIn: OidcSignIn
  /** Whether password sign-in is allowed now, and whether OpenID Connect is enabled. */
  ways: () => Promise<{ password: boolean; oidc: boolean }>
}> = async (app, { config, signIn, ways }) => {
  app.get(
    '/auth/options',
    {
      schema: {
        tags,
        summary: 'How one may sign in here: for the sign-in page, before any session',
        response: { 200: SignInOptions, ...errorResponses() },
      },
    },
    async () => {
      const { password, oidc } = await ways()
      return {
        password,
        options: oidc ? [{ type: 'oidc' as const, message: 'Sign in with OpenID Connect', path: '/auth/oidc/login' }] : [],
      }
    },
  )

  /** Runs a step of the sign-in; a refusal becomes the error page, anything else the usual 500. */
  const orRefusedPage = async (request: FastifyRequest, reply: FastifyReply, step: () => Promise<FastifyReply>) => {
    try {
      return await step()
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error
      request.log.info({ reason: error.message }, 'single sign-on refused')
      return refusedPage(reply, error.message, `${baseUrlOf(request, config)}/`)
    }
  }

  app.get(
    '/auth/oidc/login',
    {
      schema: {
        tags,
        summary: "Sign in with OpenID Connect: sends the browser to the provider's sign-in page",
        description:
          'A 302 to the provider (authorization code flow with PKCE, state and nonce), with a short-lived cookie tying the sign-in to this browser. ' +
          `The provider sends the browser back to PUBLIC_URL + ${CALLBACK_PATH} (without PUBLIC_URL, the origin this request reached). ` +
          'An HTML page with 400 when single sign-on is not enabled or the provider cannot be reached.',
        response: { 302: Redirect, 400: Refused, ...errorResponses() },
      },
    },
    (request, reply) =>
      orRefusedPage(request, reply, async () => {
        const { location, state } = await signIn.begin(`${baseUrlOf(request, config)}${CALLBACK_PATH}`)
        stateCookie(reply, request, config, state, STATE_COOKIE_SECONDS)
        return reply.header('cache-control', 'no-store').redirect(location, 302)
      }),
  )

  app.get(
    CALLBACK_PATH,
    {
      schema: {
        tags,
        summary: 'Where the OpenID provider sends the browser back: checks its answer, then signs the person in',
        description:
          "Checks the state (one use, from this browser), the provider's issuer, and the ID token's audience, issuer, nonce, expiry and signature; " +
          'finds the user by their verified email (autoCreate: makes one). Then the session cookie of a password sign-in, and a 302 to the console. ' +
          'Any failure (consent denied, a replayed or forged state, an expired code, a wrong token, an unknown person) ends on an HTML page with 400 and no session.',
        // The parameters of the protocol, and whatever else the provider adds (session_state…): the library reads them all.
        querystring: Type.Object(
          {
            code: Type.Optional(Type.String({ maxLength: 4000, description: 'The authorization code' })),
            state: Type.Optional(Type.String({ maxLength: 4000, description: 'The state sent to the provider' })),
            iss: Type.Optional(Type.String({ maxLength: 4000, description: "The provider's issuer identifier" })),
            error: Type.Optional(Type.String({ maxLength: 4000, description: 'Why the provider refused (e.g. access_denied)' })),
            error_description: Type.Optional(Type.String({ maxLength: 4000 })),
          },
          { additionalProperties: Type.String({ maxLength: 4000 }) },
        ),
        response: { 302: Redirect, 400: Refused, ...errorResponses() },
      },
    },
    (request, reply) =>
      orRefusedPage(request, reply, async () => {
        const cookies = request.headers.cookie === undefined ? {} : parseCookie(request.headers.cookie)
        // The state serves once, whatever happens next: its cookie goes too.
        stateCookie(reply, request, config, '', 0)
        const { secret } = await signIn.finish(new URLSearchParams(request.query), cookies[STATE_COOKIE])
        setSessionCookie(reply, request, config, secret, config.sessionMaxAgeMs)
        return reply.header('cache-control', 'no-store').redirect(`${baseUrlOf(request, config)}/`, 302)
      }),
  )
}
