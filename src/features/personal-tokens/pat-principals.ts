/**
 * Personal access tokens as credentials: a token acts as its user, with the user's root role at
 * the time of the request. The authenticator (api-tokens/authenticator.ts) asks this after its own
 * tokens; app.ts wires it in, since this folder ranks above api-tokens/.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { userPrincipal } from '../../http/permissions.ts'
import type { CredentialLookup, ResolvedToken } from '../api-tokens/token-store.ts'
import { isExpired } from '../api-tokens/token-store.ts'
import { sameHash } from '../api-tokens/token-secret.ts'
import { createUserStore } from '../users/user-store.ts'
import { createPatStore } from './pat-store.ts'

export function createPersonalTokenLookup(db: Kysely<Database>): CredentialLookup {
  const tokens = createPatStore(db)
  const users = createUserStore(db)
  return {
    async findPrincipal(secretHash: string, now: string): Promise<ResolvedToken | undefined> {
      const token = await tokens.findByHash(secretHash)
      if (!token || !sameHash(token.secret_hash, secretHash) || isExpired(token.expires_at, now)) return undefined
      const owner = await users.principalRow(token.user_id)
      return owner && { principal: userPrincipal(owner), expiresAt: token.expires_at }
    },

    async allPrincipals(now: string): Promise<Map<string, ResolvedToken>> {
      const working = (await tokens.all()).filter((token) => !isExpired(token.expires_at, now))
      const owners = new Map((await users.principalRows([...new Set(working.map((token) => token.user_id))])).map((row) => [row.id, row]))
      const principals = new Map<string, ResolvedToken>()
      for (const token of working) {
        const owner = owners.get(token.user_id)
        if (owner) principals.set(token.secret_hash, { principal: userPrincipal(owner), expiresAt: token.expires_at })
      }
      return principals
    },
  }
}
