/** Public sign-up tokens and who signed up with them (`public_signup_tokens`, `public_signup_tokens_user`, migration 0026). */
import type { Kysely } from 'kysely'
import { inNames } from '../../db/name-set.ts'
import { lockedRows } from '../../db/row-lock.ts'
import type { Database, PublicSignupTokensTable } from '../../db/tables.ts'

export type TokenRow = PublicSignupTokensTable

/** Whether a token lets people sign up at `now`: enabled and not expired. */
export const isUsable = (row: TokenRow, now = new Date().toISOString()): boolean => Boolean(row.enabled) && row.expires_at > now

export function createInviteLinkStore(db: Kysely<Database>) {
  return {
    /** Every token, oldest first. */
    all: (): Promise<TokenRow[]> => db.selectFrom('public_signup_tokens').selectAll().orderBy('created_at').orderBy('secret').execute(),

    find: (secret: string): Promise<TokenRow | undefined> =>
      db.selectFrom('public_signup_tokens').selectAll().where('secret', '=', secret).executeTakeFirst(),

    /** The token, its row locked until the transaction ends (PostgreSQL): a change and a sign-up queue. */
    lock: (secret: string): Promise<TokenRow | undefined> =>
      db.selectFrom('public_signup_tokens').selectAll().where('secret', '=', secret).$call(lockedRows(db)).executeTakeFirst(),

    insert: async (row: TokenRow): Promise<void> => {
      await db.insertInto('public_signup_tokens').values(row).execute()
    },

    update: async (secret: string, changes: { enabled: boolean; expires_at: string }): Promise<void> => {
      await db.updateTable('public_signup_tokens').set(changes).where('secret', '=', secret).execute()
    },

    addUser: async (secret: string, userId: number, at: string): Promise<void> => {
      await db.insertInto('public_signup_tokens_user').values({ secret, user_id: userId, created_at: at }).execute()
    },

    /** The ids of who signed up with each of these tokens, in the order they did. */
    async userIds(secrets: readonly string[]): Promise<Map<string, number[]>> {
      const ids = new Map<string, number[]>()
      if (secrets.length === 0) return ids
      const rows = await db
        .selectFrom('public_signup_tokens_user')
        .select(['secret', 'user_id'])
        .where(inNames(db, 'secret', secrets))
        .orderBy('secret')
        .orderBy('created_at')
        .execute()
      for (const row of rows) ids.set(row.secret, [...(ids.get(row.secret) ?? []), Number(row.user_id)])
      return ids
    },
  }
}
