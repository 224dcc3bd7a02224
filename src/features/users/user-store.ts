import { sql, type Kysely } from 'kysely'
import type { Database, UsersTable } from '../../db/tables.ts'
import type { UserEventData } from '../events/event-types.ts'

/** A user as the API shows it (never the password hash). */
export interface User {
  id: number
  name: string | null
  username: string | null
  email: string | null
  rootRole: number
  loginAttempts: number
  seenAt: string | null
  createdAt: string
  accountType: 'User'
}


export const toUser = (row: UsersTable): User => ({
  id: row.id,
  name: row.name,
  username: row.username,
  email: row.email,
  rootRole: row.root_role,
  loginAttempts: row.login_attempts,
  seenAt: row.seen_at,
  createdAt: row.created_at,
  accountType: 'User',
})

export const eventDataOf = ({ id, name, username, email, rootRole }: User): UserEventData => ({ id, name, username, email, rootRole })

/** `%`, `_` and the escape itself taken literally in a LIKE pattern. */
const literalLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export function createUserStore(db: Kysely<Database>) {
  return {
    async list(): Promise<User[]> {
      return (await db.selectFrom('users').selectAll().orderBy('id').execute()).map(toUser)
    },

    /** Users whose username, email or name contains `text` (case-insensitive), at most `limit`. */
    async search(text: string, limit: number): Promise<User[]> {
      const pattern = `%${literalLike(text.toLowerCase())}%`
      const rows = await db
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb.or(['username', 'email', 'name'].map((column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`)))
        .orderBy('id')
        .limit(limit)
        .execute()
      return rows.map(toUser)
    },

    async find(id: number): Promise<UsersTable | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** The user signing in as `login`: their email in any case (a login with `@`), else their username exactly. */
    async findByLogin(login: string): Promise<UsersTable | undefined> {
      const byEmail = login.includes('@')
      return db
        .selectFrom('users')
        .selectAll()
        .where(byEmail ? 'email' : 'username', '=', byEmail ? login.toLowerCase() : login)
        .executeTakeFirst()
    },
  }
}
