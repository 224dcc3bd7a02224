/**
 * Cross-site request protection where no credential tells a page's request from the user's
 * (docs/security.md): a session cookie, which the browser sends whatever page made the request
 * (besides its SameSite=Lax), and AUTH_TYPE=none, where no credential is needed at all. A
 * state-changing request must come from Pennon's own origin. Browsers name the origin of every
 * cross-origin POST, PUT, PATCH and DELETE (`Origin`), and modern ones say where a request comes
 * from (`Sec-Fetch-Site`); a request with neither comes from no browser page (curl), so no other
 * site can have made it.
 */
import type { FastifyRequest } from 'fastify'
import { AppError } from './errors.ts'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export const changesState = (request: FastifyRequest): boolean => !SAFE_METHODS.has(request.method)

/** Whether a browser page of another origin (or an opaque one, `Origin: null`) sent this request. */
export function isCrossSite(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const origin = request.headers.origin
  if (origin !== undefined) {
    if (publicUrl !== undefined && origin === new URL(publicUrl).origin) return false
    try {
      // Both through URL, which drops a scheme's default port (Host: example.com:443 is https://example.com).
      return new URL(origin).host !== new URL(`${request.protocol}://${request.host}`).host
    } catch {
      return true
    }
  }
  const site = request.headers['sec-fetch-site']
  return site !== undefined && site !== 'same-origin' && site !== 'none'
}

const REFUSED_WITHOUT = {
  session: 'a request signed in with a session cookie',
  none: 'with AUTH_TYPE=none, a request without an API token',
} as const

/** The 403 of a cross-site state change: `session` for one signed in with the cookie, `none` for one taken without a credential. */
export const crossSiteRefused = (how: keyof typeof REFUSED_WITHOUT = 'session') =>
  new AppError(
    403,
    'NoAccessError',
    `Cross-site request refused: ${REFUSED_WITHOUT[how]} that changes something must come from Pennon's own pages.`,
  )
