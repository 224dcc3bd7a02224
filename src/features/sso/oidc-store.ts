/** The tables of OpenID Connect sign-in: `oidc_logins` (begun, not yet come back) and `oidc_sessions` (the ID token of a session). */
import type { Kysely } from 'kysely'
import type { Database, OidcLoginsTable } from '../../db/tables.ts'

export function createOidcStore(db: Kysely<Database>) {
  return {
    /**
     * A sign-in begun, unless `maxPending` are under way already (false): anyone may begin one, so
     * their rows are bounded. Those expired go first (a state never taken must not stay forever).
     */
    async begin(login: OidcLoginsTable, now: string, maxPending: number): Promise<boolean> {
      await db.deleteFrom('oidc_logins').where('expires_at', '<=', now).execute()
      const pending = await db
        .selectFrom('oidc_logins')
        .select('state_hash')
        .limit(1)
        .offset(maxPending - 1)
        .executeTakeFirst()
      if (pending !== undefined) return false
      await db.insertInto('oidc_logins').values(login).execute()
      return true
    },

    /**
     * The sign-in of this state, deleted in the same statement, so that it is taken once whatever
     * runs at the same time; undefined when unknown, taken already or expired.
     */
    async take(stateHash: string, now: string): Promise<Omit<OidcLoginsTable, 'state_hash'> | undefined> {
      const row = await db
        .deleteFrom('oidc_logins')
        .where('state_hash', '=', stateHash)
        .returning(['nonce', 'code_verifier', 'redirect_uri', 'expires_at'])
        .executeTakeFirst()
      return row && Date.parse(row.expires_at) > Date.parse(now) ? row : undefined
    },

    /** The ID token a session was signed in with. */
    async rememberIdToken(sessionHash: string, idToken: string): Promise<void> {
      await db.insertInto('oidc_sessions').values({ session_hash: sessionHash, id_token: idToken }).execute()
    },

    async idTokenOf(sessionHash: string): Promise<string | undefined> {
      return (await db.selectFrom('oidc_sessions').select('id_token').where('session_hash', '=', sessionHash).executeTakeFirst())?.id_token
    },
  }
}
