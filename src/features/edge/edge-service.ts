import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { createAuthThrottle } from '../../http/auth-throttle.ts'
import { tooManyRequests } from '../../http/errors.ts'
import { createTokenStore } from '../api-tokens/token-store.ts'
import { hashSecret } from '../api-tokens/token-secret.ts'
import type { EdgeToken } from './edge-schemas.ts'

export interface EdgeServiceOptions {
  db: Kysely<Database>
  /** AUTH_FAILURES_PER_MINUTE: unknown tokens an address may ask about per minute, as failed authentications. */
  authFailuresPerMinute: number
}

/**
 * Token validation for Unleash Edge. Edge asks without credentials (as the reference allows), so
 * each token it asks about that does not work counts as a failed authentication of the caller's
 * address; past the limit the address gets 429 before anything is looked up. Edge remembers the
 * tokens found invalid, so it asks about each at most once.
 */
export function createEdgeService({ db, authFailuresPerMinute }: EdgeServiceOptions) {
  const tokens = createTokenStore(db)
  const throttle = createAuthThrottle(authFailuresPerMinute)
  return {
    /** The tokens that work, once each, in the order sent (one query for all). */
    async validateTokens(sent: readonly string[], address: string): Promise<{ tokens: EdgeToken[] }> {
      const retryAfter = throttle.retryAfter(address)
      if (retryAfter > 0) throw tooManyRequests(retryAfter)
      const distinct = [...new Set(sent)]
      const hashes = distinct.map(hashSecret)
      const working = await tokens.workingApiTokens([...new Set(hashes)], new Date().toISOString())
      const valid: EdgeToken[] = []
      distinct.forEach((token, i) => {
        const found = working.get(hashes[i]!)
        if (found) valid.push({ token, type: found.type, projects: found.projects, environment: found.environment })
        else throttle.recordFailure(address)
      })
      return { tokens: valid }
    },
  }
}

export type EdgeService = ReturnType<typeof createEdgeService>
