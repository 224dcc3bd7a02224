import type { Kysely } from 'kysely'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/tables.ts'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Authenticate } from '../../http/auth.ts'
import { createAuthThrottle, type AuthThrottle } from '../../http/auth-throttle.ts'
import { tooManyRequests, unauthenticated } from '../../http/errors.ts'
import { OPEN_ACCESS_PRINCIPAL, type Principal } from '../../http/permissions.ts'
import { changesState, crossSiteRefused, isCrossSite } from '../../http/same-origin.ts'
import { isBrowserApiPath } from '../../http/sdk-pipeline.ts'
import { createTokenStore, type CredentialLookup } from './token-store.ts'
import { hashSecret } from './token-secret.ts'
import { createPrincipalCache, createPrincipalSnapshot } from './principal-cache.ts'

// Longer than any token Pennon issues; anything beyond is not worth hashing.
const MAX_CREDENTIAL_LENGTH = 1024
// Far more SDK tokens than a deployment polls with; emptied when full.
const MAX_REMEMBERED_HEADERS = 1000

export interface AuthenticatorOptions {
  db: Kysely<Database>
  config: Config
  changes: ChangeWatch
  /** Where API and service-account tokens are looked up (tests count the lookups); the store over `db` by default. */
  tokens?: CredentialLookup
  /** Where the rest are: personal access tokens (personal-tokens/pat-principals.ts, wired in app.ts). */
  personalTokens?: CredentialLookup
  /** The signed-in user of a request without an Authorization credential (a session cookie), if any. */
  session?: (request: FastifyRequest) => Promise<Principal | undefined>
  /** Failed authentications per address; shared with the routes that check credentials of their own (Edge's validation). */
  throttle?: AuthThrottle
}

/**
 * Reads the Authorization header (raw token, or `Bearer <token>` in any case), or without one the
 * session cookie, and resolves the caller, or throws 401 and counts the failure against the client address (auth-throttle.ts).
 * Past that address's limit, a credential that does not authenticate gets 429 instead, decided
 * without a token query (remembered principals, then a snapshot of every token); a valid one is
 * answered as ever.
 */
export function createAuthenticator({
  db,
  config,
  changes,
  tokens = createTokenStore(db),
  personalTokens,
  session,
  throttle = createAuthThrottle(config.authFailuresPerMinute),
}: AuthenticatorOptions): Authenticate {
  const lookups = personalTokens ? [tokens, personalTokens] : [tokens]
  const findPrincipal = async (secretHash: string, now: string) => {
    for (const lookup of lookups) {
      const found = await lookup.findPrincipal(secretHash, now)
      if (found) return found
    }
    return undefined
  }
  const cache = createPrincipalCache(changes)
  const snapshot = createPrincipalSnapshot(changes, async (now) => {
    const all = await Promise.all(lookups.map((lookup) => lookup.allPrincipals(now)))
    return new Map(all.flatMap((principals) => [...principals]))
  })
  // The secret hash of Authorization headers whose token was remembered: an SDK polling sends the
  // same header every time, and the hash is the same each time. Holds working tokens' headers only.
  const rememberedHeaders = new Map<string, string>()

  /** The secret hash of a header's credential; undefined for no credential, or one too long to be a token. */
  function secretHashOf(header: string): string | undefined {
    const known = rememberedHeaders.get(header)
    if (known !== undefined) return known
    const credential = header.replace(/^bearer\s+/i, '').trim()
    return credential === '' || credential.length > MAX_CREDENTIAL_LENGTH ? undefined : hashSecret(credential)
  }

  /** The remembered principal of a header's token, if any; the header's hash is kept once its token is known to work. */
  function rememberedPrincipal(header: string, secretHash: string, version: number | undefined): Principal | undefined {
    const principal = cache.get(secretHash, version, Date.now())
    if (principal !== undefined && !rememberedHeaders.has(header)) {
      if (rememberedHeaders.size >= MAX_REMEMBERED_HEADERS) rememberedHeaders.clear()
      rememberedHeaders.set(header, secretHash)
    }
    return principal
  }

  async function principalOf(header: string, secretHash: string, throttled: boolean): Promise<Principal | undefined> {
    // Only a change to the token tables (or one that cannot be told apart) ends what is remembered.
    const version = changes.version('tokens')
    const cached = rememberedPrincipal(header, secretHash, version)
    if (cached) return cached
    const now = new Date().toISOString()
    if (throttled) return (await snapshot.find(secretHash, now))?.principal
    const resolved = await findPrincipal(secretHash, now)
    if (!resolved) return undefined
    cache.set(secretHash, version, resolved)
    return resolved.principal
  }

  async function authenticate(request: FastifyRequest): Promise<Principal> {
    const retryAfter = throttle.retryAfter(request.ip)
    const header = request.headers.authorization ?? ''
    const secretHash = secretHashOf(header)
    if (secretHash !== undefined) {
      const principal = await principalOf(header, secretHash, retryAfter > 0)
      if (principal) return principal
    } else if (session) {
      const principal = await session(request)
      if (principal) return principal
    }
    // With AUTH_TYPE=none every caller is the built-in admin, unless a token said otherwise above.
    if (config.authType === 'none') {
      // Another site's page (a form, a fetch) would be that admin too: its changes are refused as a
      // session's are. Not on the frontend API and OFREP, which every origin may call (its CORS) to evaluate and report metrics.
      if (changesState(request) && !isBrowserApiPath(request.url) && isCrossSite(request, config.publicUrl)) throw crossSiteRefused('none')
      return OPEN_ACCESS_PRINCIPAL
    }
    if (retryAfter > 0) throw tooManyRequests(retryAfter)
    throttle.recordFailure(request.ip)
    throw header.replace(/^bearer\s+/i, '').trim() === ''
      ? unauthenticated('Authentication required: send an API token in the Authorization header.')
      : unauthenticated('Authentication failed: the token in the Authorization header is unknown, deleted or expired.')
  }

  /**
   * The principal of an Authorization header whose token is remembered and current, without
   * waiting for anything; undefined when it would take a lookup (or fail). For the answers
   * given before Fastify (client-features-fast-path.ts); every other case goes the whole way.
   */
  function remembered(header: string | undefined): Principal | undefined {
    if (header === undefined) return undefined
    const secretHash = secretHashOf(header)
    return secretHash === undefined ? undefined : rememberedPrincipal(header, secretHash, changes.version('tokens'))
  }

  return Object.assign(authenticate, { remembered })
}
