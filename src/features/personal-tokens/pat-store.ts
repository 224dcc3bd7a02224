/** The personal_access_tokens table. */
import type { PatsOfUsers } from '../users/pats-of-users.ts'
import type { Kysely } from 'kysely'
import type { Database, PersonalAccessTokensTable } from '../../db/tables.ts'

export interface PersonalToken {
  id: number
  description: string
  expiresAt: string
  createdAt: string
  seenAt: string | null
  userId: number
}

const toPersonalToken = (row: PersonalAccessTokensTable): PersonalToken => ({
  id: row.id,
  description: row.description,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  seenAt: row.seen_at,
  userId: row.user_id,
})

/** What resolving a token needs: whose it is, and until when. */
export type TokenOwner = Pick<PersonalAccessTokensTable, 'secret_hash' | 'expires_at' | 'user_id'>
const OWNER_COLUMNS = ['secret_hash', 'expires_at', 'user_id'] as const

export function createPatStore(db: Kysely<Database>) {
  return {
    /** A user's tokens, by id. */
    async list(userId: number): Promise<PersonalToken[]> {
      const rows = await db.selectFrom('personal_access_tokens').selectAll().where('user_id', '=', userId).orderBy('id').execute()
      return rows.map(toPersonalToken)
    },

    async descriptions(userId: number): Promise<string[]> {
      const rows = await db.selectFrom('personal_access_tokens').select('description').where('user_id', '=', userId).execute()
      return rows.map((row) => row.description)
    },

    async insert(token: PersonalToken, secretHash: string): Promise<void> {
      await db
        .insertInto('personal_access_tokens')
        .values({
          id: token.id,
          user_id: token.userId,
          description: token.description,
          secret_hash: secretHash,
          expires_at: token.expiresAt,
          seen_at: token.seenAt,
          created_at: token.createdAt,
        })
        .execute()
    },

    /** A token by its secret's hash, for sign-in by token (pat-principals.ts). */
    async findByHash(secretHash: string): Promise<TokenOwner | undefined> {
      return db.selectFrom('personal_access_tokens').select(OWNER_COLUMNS).where('secret_hash', '=', secretHash).executeTakeFirst()
    },

    /** Every token, as findByHash reads it. */
    async all(): Promise<TokenOwner[]> {
      return db.selectFrom('personal_access_tokens').select(OWNER_COLUMNS).execute()
    },

    /** The deleted token, if the user had one with that id. */
    async delete(userId: number, id: number): Promise<PersonalToken | undefined> {
      const row = await db
        .deleteFrom('personal_access_tokens')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .returningAll()
        .executeTakeFirst()
      return row && toPersonalToken(row)
    },
  }
}

/** For users/ (below this folder, handed it by app.ts): when each user's tokens were last used. */
export const patsOfUsers = {
  async lastSeen(db) {
    const rows = await db
      .selectFrom('personal_access_tokens')
      .select(['user_id', (eb) => eb.fn.max('seen_at').as('seen_at')])
      .where('seen_at', 'is not', null)
      .groupBy('user_id')
      .execute()
    return new Map(rows.map((row) => [Number(row.user_id), new Date(row.seen_at as string).toISOString()]))
  },
} satisfies PatsOfUsers
