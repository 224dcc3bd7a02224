import type { Kysely } from 'kysely'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import type { Database } from '../db/tables.ts'
import { createTokenStore } from '../features/api-tokens/token-store.ts'
import { hashSecret } from '../features/api-tokens/token-secret.ts'
import { createPrincipalCache } from '../features/api-tokens/principal-cache.ts'
import type { ChangeWatch } from '../db/change-watch.ts'
import { unauthenticated } from './errors.ts'
import { OPEN_ACCESS_PRINCIPAL, type Principal } from './permissions.ts'

// Longer than any token Pennon issues; anything beyond is not worth hashing.
const MAX_CREDENTIAL_LENGTH = 1024

/** Reads the Authorization header (raw token, or `Bearer <token>` in any case) and resolves the caller. */
export function createAuthenticator({ db, config, changes }: { db: Kysely<Database>; config: Config; changes: ChangeWatch }) {
  const tokens = createTokenStore(db)
  const cache = createPrincipalCache(changes)

  return async function authenticate(request: FastifyRequest): Promise<Principal> {
    const header = request.headers.authorization ?? ''
    const credential = header.replace(/^bearer\s+/i, '').trim()
    if (credential !== '' && credential.length <= MAX_CREDENTIAL_LENGTH) {
      const secretHash = hashSecret(credential)
      const now = new Date().toISOString()
      // Only a change to the token tables (or one that cannot be told apart) ends what is remembered.
      const version = changes.version('tokens')
      const cached = cache.get(secretHash, version, now)
      if (cached) return cached
      const resolved = await tokens.findPrincipal(secretHash, now)
      if (resolved) {
        cache.set(secretHash, version, resolved)
        return resolved.principal
      }
    }
    // With AUTH_TYPE=none every caller is the built-in admin, unless a client or frontend token said otherwise above.
    if (config.authType === 'none') return OPEN_ACCESS_PRINCIPAL
    throw credential === ''
      ? unauthenticated('Authentication required: send an API token in the Authorization header.')
      : unauthenticated('Authentication failed: the token in the Authorization header is unknown, deleted or expired.')
  }
}

export type Authenticate = ReturnType<typeof createAuthenticator>
