import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseCookie, stringifySetCookie } from 'cookie'
import type { Config } from '../../config.ts'

export const SESSION_COOKIE = 'pennon-session'

// Longer than any session secret Pennon issues (64 hex characters).
const MAX_SECRET_LENGTH = 128

/** The session secret a request's Cookie header carries, if any. */
export function sessionSecretOf(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined || !cookieHeader.includes(SESSION_COOKIE)) return undefined
  const secret = parseCookie(cookieHeader)[SESSION_COOKIE]
  return secret && secret.length <= MAX_SECRET_LENGTH ? secret : undefined
}

/** HttpOnly (no script reads it), SameSite=Lax, and Secure over HTTPS (or when SECURE_COOKIES=true). */
export function setSessionCookie(reply: FastifyReply, request: FastifyRequest, config: Config, secret: string, maxAgeMs: number): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: SESSION_COOKIE,
      value: secret,
      httpOnly: true,
      sameSite: 'lax',
      secure: config.secureCookies || request.protocol === 'https',
      path: '/',
      maxAge: Math.floor(maxAgeMs / 1000),
    }),
  )
}

export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest, config: Config): void {
  setSessionCookie(reply, request, config, '', 0)
}
