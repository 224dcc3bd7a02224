import type { FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import type { Principal } from '../../http/permissions.ts'
import { changesState, crossSiteRefused, isCrossSite } from '../../http/same-origin.ts'
import { sessionSecretOf } from './session-cookie.ts'
import type { SessionService } from './session-service.ts'

/**
 * The signed-in user of a request's session cookie (authenticator.ts asks when no Authorization
 * header is sent); a state-changing request from another site's page is refused (403) rather
 * than carried out in the user's name.
 */
export function createSessionAuthentication(sessions: SessionService, config: Config) {
  return async (request: FastifyRequest): Promise<Principal | undefined> => {
    const secret = sessionSecretOf(request.headers.cookie)
    if (secret === undefined) return undefined
    const principal = await sessions.principalOf(secret)
    if (principal && changesState(request) && isCrossSite(request, config.publicUrl)) throw crossSiteRefused()
    return principal
  }
}
