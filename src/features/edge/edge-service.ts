import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { AuthThrottle } from '../../http/auth-throttle.ts'
import { tooManyRequests } from '../../http/errors.ts'
import { createTokenStore } from '../api-tokens/token-store.ts'
import { hashSecret } from '../api-tokens/token-secret.ts'
import type { EdgeToken } from './edge-schemas.ts'

export interface EdgeServiceOptions {
  db: Kysely<Database>
  /** Failed authentications per address (AUTH_FAILURES_PER_MINUTE), the count auth.ts keeps: a token asked about that does not work is one. */
  throttle: AuthThrottle
}

/**
 * What an Edge serves: backend SDKs (client tokens; `backend` is the reference's newer name) and
 * frontend SDKs. Admin tokens, service accounts' and personal tokens are answered as unknown ones:
 * a route without credentials does not confirm credentials of the admin API.
 */
export const EDGE_TOKEN_TYPES = ['client', 'backend', 'frontend'] as const

/**
 * Token validation for Unleash Edge. Edge asks without credentials (as the reference allows), so
 * every token asked about that does not work (unknown, deleted, expired, or not of EDGE_TOKEN_TYPES)
 * is a failed authentication of the caller's address, in the one count the admin and SDK APIs'
 * failures go to; a token that works is not, so an Edge holding many is not slowed by its own. Tokens are looked up in the order sent, at most as
 * many at a time as the address may still fail, counted before the lookup (requests under way at
 * once share what is left) and given back for those that work. Once the address has none left, the
 * tokens after are not looked up and the request gets 429, as does a request from an address
 * already over the limit, before anything is looked up. Edge remembers the tokens found invalid,
 * so a working Edge asks about each at most once.
 */
export function createEdgeService({ db, throttle }: EdgeServiceOptions) {
  const tokens = createTokenStore(db)
  return {
    /** The tokens that work, once each, in the order sent (one query, or one per share of the address's allowance). */
    async validateTokens(sent: readonly string[], address: string): Promise<{ tokens: EdgeToken[] }> {
      const retryAfter = throttle.retryAfter(address)
      if (retryAfter > 0) throw tooManyRequests(retryAfter)
      const distinct = [...new Set(sent)]
      const valid: EdgeToken[] = []
      for (let next = 0; next < distinct.length; ) {
        const batch = distinct.slice(next, next + throttle.reserve(address, distinct.length - next))
        if (batch.length === 0) throw tooManyRequests(throttle.retryAfter(address))
        next += batch.length
        const hashes = batch.map(hashSecret)
        let working: Awaited<ReturnType<typeof tokens.workingApiTokens>>
        try {
          working = await tokens.workingApiTokens(hashes, EDGE_TOKEN_TYPES, new Date().toISOString())
        } catch (error) {
          // Nothing was learnt about them.
          throttle.forgive(address, batch.length)
          throw error
        }
        batch.forEach((token, i) => {
          const found = working.get(hashes[i]!)
          if (found) valid.push({ token, type: found.type, projects: found.projects, environment: found.environment })
        })
        throttle.forgive(address, working.size)
      }
      return { tokens: valid }
    },
  }
}

export type EdgeService = ReturnType<typeof createEdgeService>
