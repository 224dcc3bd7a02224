/** The user_sessions table: a session is a row keyed by the SHA-256 of its cookie's secret. */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { prepared } from '../../db/prepared.ts'

// Run on every request a session cookie authenticates: compiled once.
const sessionBySecret = prepared((db: Kysely<Database>) =>
  db
    .selectFrom('user_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.seen_at', 's.expires_at', 'u.id', 'u.email', 'u.username', 'u.root_role'])
    .where('s.secret_hash', '=', ''),
)

export function createSessionStore(db: Kysely<Database>) {
  return {
    /** The session with this secret hash and its user (who a principal needs), if any. */
    async findWithUser(secretHash: string) {
      return (await db.executeQuery(sessionBySecret(db, [secretHash]))).rows[0]
    },

    /** A new session of the user; before it, expired sessions go, and so do the user's oldest beyond `maxPerUser - 1`. */
    async start(session: { secretHash: string; userId: number; createdAt: string; expiresAt: string }, maxPerUser: number): Promise<void> {
      await db.deleteFrom('user_sessions').where('expires_at', '<=', session.createdAt).execute()
      const kept = await db
        .selectFrom('user_sessions')
        .select('secret_hash')
        .where('user_id', '=', session.userId)
        .orderBy('created_at', 'desc')
        .offset(maxPerUser - 1)
        .limit(1000)
        .execute()
      if (kept.length > 0)
        await db
          .deleteFrom('user_sessions')
          .where(
            'secret_hash',
            'in',
            kept.map((row) => row.secret_hash),
          )
          .execute()
      await db
        .insertInto('user_sessions')
        .values({
          secret_hash: session.secretHash,
          user_id: session.userId,
          created_at: session.createdAt,
          seen_at: session.createdAt,
          expires_at: session.expiresAt,
        })
        .execute()
    },

    async touch(secretHash: string, seenAt: string): Promise<void> {
      await db.updateTable('user_sessions').set({ seen_at: seenAt }).where('secret_hash', '=', secretHash).execute()
    },

    async delete(secretHash: string): Promise<void> {
      await db.deleteFrom('user_sessions').where('secret_hash', '=', secretHash).execute()
    },

    /** Ends every session of the user but `keepSecretHash` (the users feature calls it through app.ts: a new password, another root role). */
    async endUserSessions(userId: number, keepSecretHash?: string): Promise<void> {
      await db
        .deleteFrom('user_sessions')
        .where('user_id', '=', userId)
        .$if(keepSecretHash !== undefined, (query) => query.where('secret_hash', '!=', keepSecretHash!))
        .execute()
    },
  }
}
