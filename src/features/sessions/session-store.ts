/** The user_sessions table: what users/ is handed (SessionsOfUsers) reads and writes it here. */
import type { SessionsOfUsers } from '../users/sessions-of-users.ts'

export const sessionsOfUsers = {
  async endAll(trx, userId, keepSessionHash) {
    await trx
      .deleteFrom('user_sessions')
      .where('user_id', '=', userId)
      .$if(keepSessionHash !== undefined, (query) => query.where('secret_hash', '!=', keepSessionHash!))
      .execute()
  },
} satisfies SessionsOfUsers
