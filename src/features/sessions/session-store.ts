/** The user_sessions table: the session service and what users/ is handed (SessionsOfUsers) read and write it here. */
import type { Kysely } from 'kysely'
import { prepared } from '../../db/prepared.ts'
import type { Database, UserSessionsTable } from '../../db/tables.ts'
import type { SessionsOfUsers } from '../users/sessions-of-users.ts'

// Run on every request a session cookie authenticates that is not remembered: compiled once.
const sessionBySecret = prepared((db: Kysely<Database>) =>
  db.selectFrom('user_sessions').select(['seen_at', 'expires_at', 'user_id']).where('secret_hash', '=', ''),
)

export function createSessionStore(db: Kysely<Database>) {
  return {
    async find(secretHash: string): Promise<{ seen_at: string; expires_at: string; user_id: number } | undefined> {
      return (await db.executeQuery(sessionBySecret(db, [secretHash]))).rows[0]
    },

    /** A new session of `userId`: the expired ones go, and the user's oldest past `maxPerUser - 1`. */
    async start(session: UserSessionsTable, maxPerUser: number): Promise<void> {
      await db.deleteFrom('user_sessions').where('expires_at', '<=', session.created_at).execute()
      const kept = await db
        .selectFrom('user_sessions')
        .select('secret_hash')
        .where('user_id', '=', session.user_id)
        .orderBy('created_at', 'desc')
        .offset(maxPerUser - 1)
        .limit(1000)
        .execute()
      if (kept.length > 0) {
        await db
          .deleteFrom('user_sessions')
          .where(
            'secret_hash',
            'in',
            kept.map((old) => old.secret_hash),
          )
          .execute()
      }
      await db.insertInto('user_sessions').values(session).execute()
    },

    /** The inactivity clock moved forward (change-watch.ts knows this statement: it ends no session). */
    async touch(secretHash: string, seenAt: string): Promise<void> {
      await db.updateTable('user_sessions').set({ seen_at: seenAt }).where('secret_hash', '=', secretHash).execute()
    },

    async end(secretHash: string): Promise<void> {
      await db.deleteFrom('user_sessions').where('secret_hash', '=', secretHash).execute()
    },
  }
}

export const sessionsOfUsers = {
  async endAll(trx, userId, keepSessionHash) {
    await trx
      .deleteFrom('user_sessions')
      .where('user_id', '=', userId)
      .$if(keepSessionHash !== undefined, (query) => query.where('secret_hash', '!=', keepSessionHash!))
      .execute()
  },
} satisfies SessionsOfUsers
