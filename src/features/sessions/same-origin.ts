/**
 * Cross-site request protection for requests a session cookie authenticates (docs/security.md):
 * besides the cookie's SameSite=Lax, a state-changing request must come from Pennon's own
 * origin. Browsers name the origin of every cross-origin POST, PUT, PATCH and DELETE (`Origin`),
 * and modern ones say where a request comes from (`Sec-Fetch-Site`); a request with neither
 * comes from no browser page (curl with a saved cookie), so no other site can have made it.
 */
import type { FastifyRequest } from 'fastify'

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
