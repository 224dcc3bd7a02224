import { sql, type Kysely } from 'kysely'
import type { Database, UsersTable } from '../../db/tables.ts'
import { lockedRows, lockRows } from '../../db/row-lock.ts'
import { ROOT_ROLES } from '../../http/permissions.ts'
import type { UserEventData } from '../events/event-types.ts'
import { prepared } from '../../db/prepared.ts'

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

/** A user's row with its sign-in bookkeeping (none before a first attempt: no failures, never seen). */
export type UserRow = UsersTable & { login_attempts: number | null; seen_at: string | null }

export const toUser = (row: UserRow): User => ({
  id: row.id,
  name: row.name,
  username: row.username,
  email: row.email,
  rootRole: row.root_role,
  loginAttempts: row.login_attempts ?? 0,
  seenAt: row.seen_at,
  createdAt: row.created_at,
  accountType: 'User',
})

export const eventDataOf = ({ id, name, username, email, rootRole }: User): UserEventData => ({ id, name, username, email, rootRole })

/** `%`, `_` and the escape itself taken literally in a LIKE pattern. */
const literalLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

const principalRowOf = prepared((db: Kysely<Database>) =>
  db.selectFrom('users').select(['id', 'email', 'username', 'root_role']).where('id', '=', 0),
)

/** For a token service (api-tokens/admin-credentials.ts): the signing-in Admin users, locked in `trx`. */
export const lockSigningInAdmins = (trx: Kysely<Database>): Promise<number[]> => createUserStore(trx).lockSigningInAdmins()

/**
 * For the event creators (events/, below this folder, handed it by app.ts): each of these users'
 * name as the reference shows it, their name, else username, else email.
 */
export async function displayNamesOfUsers(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, string>> {
  const names = new Map<number, string>()
  // In slices: SQLite binds at most 32,766 values per statement.
  for (let start = 0; start < ids.length; start += 1000) {
    const slice = ids.slice(start, start + 1000)
    const rows = await db.selectFrom('users').select(['id', 'name', 'username', 'email']).where('id', 'in', slice).execute()
    for (const row of rows) {
      const name = row.name || row.username || row.email
      if (name) names.set(Number(row.id), name)
    }
  }
  return names
}

/** id, name and username of each of these users (those that exist), by id: who signed up with an invite link. */
export async function namesOfUsers(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Array<{ id: number; name: string | null; username: string | null }>> {
  if (ids.length === 0) return []
  const rows = await db.selectFrom('users').select(['id', 'name', 'username']).where('id', 'in', ids).orderBy('id').execute()
  return rows.map((row) => ({ id: Number(row.id), name: row.name, username: row.username }))
}

/** The email address and name of each of these users that exists and has an address, by id: whom to mail about their change requests. */
export async function addressesOfUsers(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Array<{ id: number; name: string | null; email: string }>> {
  if (ids.length === 0) return []
  const rows = await db
    .selectFrom('users')
    .select(['id', 'name', 'email'])
    .where('id', 'in', [...ids])
    .where('email', 'is not', null)
    .orderBy('id')
    .execute()
  return rows.map((row) => ({ id: Number(row.id), name: row.name, email: row.email! }))
}

export function createUserStore(db: Kysely<Database>) {
  const usersWithActivity = () =>
    db
      .selectFrom('users')
      .leftJoin('user_activity', 'user_activity.user_id', 'users.id')
      .selectAll('users')
      .select(['user_activity.login_attempts', 'user_activity.seen_at'])

  return {
    /** How many users hold the Admin root role, with a password set and without one. */
    async countAdmins(): Promise<{ password: number; noPassword: number }> {
      const rows = await db
        .selectFrom('users')
        .select([(eb) => eb('password_hash', 'is not', null).as('has_password'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('root_role', '=', ROOT_ROLES.Admin)
        .groupBy('has_password')
        .execute()
      const count = (hasPassword: boolean) => Number(rows.find((row) => Boolean(row.has_password) === hasPassword)?.n ?? 0)
      return { password: count(true), noPassword: count(false) }
    },

    async list(): Promise<User[]> {
      return (await usersWithActivity().orderBy('users.id').execute()).map(toUser)
    },

    /** Users created before `before` who have not signed in since (or never did), by id. */
    async notSeenSince(before: string): Promise<User[]> {
      const rows = await usersWithActivity()
        .where('users.created_at', '<', before)
        .where((eb) => eb.or([eb('user_activity.seen_at', 'is', null), eb('user_activity.seen_at', '<', before)]))
        .orderBy('users.id')
        .execute()
      return rows.map(toUser)
    },

    /** Users whose username, email or name contains `text` (case-insensitive), at most `limit`. */
    async search(text: string, limit: number): Promise<User[]> {
      const pattern = `%${literalLike(text.toLowerCase())}%`
      const rows = await usersWithActivity()
        .where((eb) =>
          eb.or(
            ['username', 'email', 'name'].map((column) => sql<boolean>`lower(${sql.ref(`users.${column}`)}) like ${pattern} escape '\\'`),
          ),
        )
        .orderBy('users.id')
        .limit(limit)
        .execute()
      return rows.map(toUser)
    },

    /** What a principal is made of (http/permissions.ts userPrincipal): run for each session read that is not remembered, so compiled once. */
    async principalRow(id: number): Promise<Pick<UsersTable, 'id' | 'email' | 'username' | 'root_role'> | undefined> {
      return (await db.executeQuery(principalRowOf(db, [id]))).rows[0]
    },

    /** What principals are made of, for these users (one read; personal-tokens/pat-principals.ts). */
    async principalRows(ids: readonly number[]): Promise<Pick<UsersTable, 'id' | 'email' | 'username' | 'root_role'>[]> {
      if (ids.length === 0) return []
      return db.selectFrom('users').select(['id', 'email', 'username', 'root_role']).where('id', 'in', ids).execute()
    },

    /** A failed sign-in of an existing user: one more attempt counted. */
    async countFailedSignIn(id: number): Promise<void> {
      await db
        .insertInto('user_activity')
        .values({ user_id: id, login_attempts: 1, seen_at: null })
        .onConflict((oc) => oc.column('user_id').doUpdateSet((eb) => ({ login_attempts: eb('user_activity.login_attempts', '+', 1) })))
        .execute()
    },

    /** A sign-in: the failed attempts forgotten, the user seen at `at`. */
    async signedIn(id: number, at: string): Promise<void> {
      await db
        .insertInto('user_activity')
        .values({ user_id: id, login_attempts: 0, seen_at: at })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ login_attempts: 0, seen_at: at }))
        .execute()
    },

    async find(id: number): Promise<UserRow | undefined> {
      return usersWithActivity().where('users.id', '=', id).executeTakeFirst()
    },

    /** The user signing in as `login`: their email in any case (a login with `@`), else their username exactly. */
    async findByLogin(login: string): Promise<UserRow | undefined> {
      const byEmail = login.includes('@')
      return usersWithActivity()
        .where(byEmail ? 'users.email' : 'users.username', '=', byEmail ? login.toLowerCase() : login)
        .executeTakeFirst()
    },

    /**
     * The Admin users who can sign in (have a password), by id, their rows locked until the
     * transaction ends (api-tokens/admin-credentials.ts: the last admin credential stays).
     */
    async lockSigningInAdmins(): Promise<number[]> {
      const rows = await db
        .selectFrom('users')
        .select('id')
        .where('root_role', '=', ROOT_ROLES.Admin)
        .where('password_hash', 'is not', null)
        .orderBy('id')
        .$call(lockedRows(db))
        .execute()
      return rows.map((row) => row.id)
    },

    /** Locks the user's row until the transaction ends (PostgreSQL; SQLite's writers are serialized already): two changes of one user queue. */
    async lock(id: number): Promise<void> {
      await lockRows(db, 'users', 'id', [id])
    },

    /** Throws the driver's unique violation for a taken username or email (`uniqueConstraintOf` tells which). */
    async insert(row: UsersTable): Promise<void> {
      await db.insertInto('users').values(row).execute()
    },

    /** Throws the driver's unique violation for a taken email. */
    async update(id: number, changes: Pick<UsersTable, 'name' | 'email' | 'root_role'>): Promise<void> {
      await db
        .updateTable('users')
        .set({ name: changes.name, email: changes.email, root_role: changes.root_role })
        .where('id', '=', id)
        .execute()
    },

    /** Its activity, sessions and links go with it (foreign key cascades). */
    async delete(id: number): Promise<void> {
      await db.deleteFrom('users').where('id', '=', id).execute()
    },

    /** A new password hash; the failed sign-ins counted so far are forgotten. */
    async setPasswordHash(id: number, passwordHash: string): Promise<void> {
      await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute()
      await db.updateTable('user_activity').set({ login_attempts: 0 }).where('user_id', '=', id).execute()
    },
  }
}
