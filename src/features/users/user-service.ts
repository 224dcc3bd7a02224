import type { Kysely } from 'kysely'
import { runTransaction } from '../../db/after-commit.ts'
import type { Database, UsersTable } from '../../db/tables.ts'
import { advanceCounter } from '../../db/counters.ts'
import { uniqueConstraintOf } from '../../db/db-errors.ts'
import { invalid, notFound, quote } from '../../http/errors.ts'
import { ROOT_ROLES } from '../../http/permissions.ts'
import { auditContext, SYSTEM_ACTOR, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { keepAnAdmin, lockAdminCredentials } from '../api-tokens/admin-credentials.ts'
import { createTokenStore } from '../api-tokens/token-store.ts'
import { checkPasswordRules, hashPassword, passwordMismatch, verifyPassword } from './password.ts'
import {
  createResetLink,
  deleteResetLinks,
  findResetToken,
  invalidLink,
  INVITE_VALID_MS,
  RESET_VALID_MS,
  useResetLink,
} from './reset-tokens.ts'
import { createUserStore, eventDataOf, lockSigningInAdmins, toUser, type User, type UserRow } from './user-store.ts'
import type { PasswordAttempts } from './password-attempts.ts'
import type { SessionsOfUsers } from './sessions-of-users.ts'
import { mayApplyChangeRequests, type SchedulesOfUsers } from './schedules-of-users.ts'
import type { CreateUserBody, PasswordBody, UpdateUserBody } from './user-schemas.ts'
import type { EmailSender } from '../email/email-sender.ts'
import { resetEmail, welcomeEmail } from '../email/mail-texts.ts'

export const ROOT_ROLE_LIST = [
  {
    id: ROOT_ROLES.Admin,
    type: 'root' as const,
    name: 'Admin',
    description: 'Users with the root admin role have superuser access to Pennon and can do everything.',
  },
  {
    id: ROOT_ROLES.Editor,
    type: 'root' as const,
    name: 'Editor',
    description:
      'Users with the root editor role can change flags, strategies, segments, context fields, tag types and projects, but not tokens or users.',
  },
  { id: ROOT_ROLES.Viewer, type: 'root' as const, name: 'Viewer', description: 'Users with the root viewer role can only read.' },
]

/** A root role by its id (a stored id is always one of the three; Viewer otherwise, the least). */
export const rootRoleOf = (id: number) => ROOT_ROLE_LIST.find((role) => role.id === id) ?? ROOT_ROLE_LIST[2]!

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const SEARCH_LIMIT = 100

/** A root role given by id or by name (as the reference accepts either); 400 for anything else. */
export function parseRootRole(value: number | string, path: string): number {
  const role = ROOT_ROLE_LIST.find((candidate) => candidate.id === value || candidate.name === value)
  if (!role)
    throw invalid(
      `The \`${path}\` property must be a root role: 1 (Admin), 2 (Editor) or 3 (Viewer), by id or name. You sent ${quote(value)}.`,
      path,
    )
  return role.id
}

function normalEmail(email: string | undefined, path: string): string | null {
  const trimmed = email?.trim() ?? ''
  if (trimmed === '') return null
  if (!EMAIL.test(trimmed)) throw invalid(`The \`${path}\` property must be an email address. You sent ${quote(email)}.`, path)
  return trimmed.toLowerCase()
}

const blankToNull = (text: string | undefined) => (text === undefined || text.trim() === '' ? null : text.trim())

/** The user's row, locked until the transaction ends (PostgreSQL; SQLite's write lock is held already), so two changes of one user queue. */
async function lockedUser(trx: Kysely<Database>, id: number): Promise<UserRow> {
  const store = createUserStore(trx)
  await store.lock(id)
  const row = await store.find(id)
  if (!row) throw notFound(`No user has id ${id}.`)
  return row
}

/** A new password hash: the user's links are used up, and their sessions end (but `keepSessionHash`). */
async function storePassword(
  trx: Kysely<Database>,
  sessions: SessionsOfUsers,
  id: number,
  passwordHash: string,
  keepSessionHash?: string,
): Promise<void> {
  await createUserStore(trx).setPasswordHash(id, passwordHash)
  await deleteResetLinks(trx, id)
  await sessions.endAll(trx, id, keepSessionHash)
}

/** A new user's fields, checked (`checkedUser`). */
export interface NewUser {
  username: string | null
  email: string | null
  name: string | null
  rootRole: number
  passwordHash: string | null
}

/** A taken email or username is a 400, as the reference's (`BadDataError`: "User already exists"). */
function uniqueness(error: unknown, username: string | null, email: string | null): never {
  const constraint = uniqueConstraintOf(error)
  if (constraint === 'users_email_key') throw invalid(`A user with email ${quote(email)} already exists.`, '/body/email')
  if (constraint !== undefined) throw invalid(`A user with username ${quote(username)} already exists.`, '/body/username')
  throw error
}

/**
 * `attempts` counts guesses of the current password (changing one's own) and of links; `address`
 * arguments are the asking client's address key (http/client-address.ts), which hashing and those
 * counts go by.
 */
export function createUserService({
  db,
  attempts,
  sessions,
  schedules,
  email: mailer,
}: {
  db: Kysely<Database>
  attempts: PasswordAttempts
  sessions: SessionsOfUsers
  /** The change requests the user scheduled: suspended when the user goes or may no longer apply them. */
  schedules: SchedulesOfUsers
  /** Sends welcome and reset emails when an SMTP server is configured. */
  email: EmailSender
}) {
  /** Sets a password (an admin for a user, or the user for themselves); ends every session but `keepSessionHash`. */
  async function setPassword(id: number, password: string, address: string, keepSessionHash?: string): Promise<void> {
    checkPasswordRules(password)
    const passwordHash = await hashPassword(password, address)
    await db.transaction().execute(async (trx) => {
      await lockedUser(trx, id)
      await storePassword(trx, sessions, id, passwordHash, keepSessionHash)
    })
  }

  /** Inside the caller's transaction: deletes a user (404 if unknown, 409 for the last admin credential), with its event; their pending schedules are suspended. */
  async function deleteIn(trx: Kysely<Database>, id: number, audit: AuditContext): Promise<void> {
    const admins = await lockAdminCredentials(trx, lockSigningInAdmins)
    const before = await lockedUser(trx, id)
    keepAnAdmin(
      admins,
      (credential) => credential.kind === 'user' && credential.userId === id,
      `User ${quote(before.username ?? before.email)} is`,
    )
    await createUserStore(trx).delete(id)
    await appendEvents(trx, audit, [{ type: 'user-deleted', preData: eventDataOf(toUser(before)) }])
    await schedules.suspend(trx, id, 'deleted', audit)
  }

  /** A new user's fields, checked; the password checked against the rules and hashed. */
  async function checkedUser(input: Omit<CreateUserBody, 'sendEmail'>, address: string): Promise<NewUser> {
    const username = blankToNull(input.username)
    if (username?.includes('@'))
      throw invalid(
        `The \`/body/username\` property cannot contain "@": sign-in tells usernames from emails by it. You sent ${quote(username)}.`,
        '/body/username',
      )
    const email = normalEmail(input.email, '/body/email')
    if (username === null && email === null) throw invalid('A user needs a username or an email: send at least one of them.', '/body')
    const rootRole = parseRootRole(input.rootRole, '/body/rootRole')
    if (input.password !== undefined) checkPasswordRules(input.password)
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password, address)
    return { username, email, name: blankToNull(input.name), rootRole, passwordHash }
  }

  /** Stores a user checked by `checkedUser`, and its `user-created` event, in `trx`; 409 for a taken username or email. */
  async function insertUserIn(trx: Kysely<Database>, fields: NewUser, audit: AuditContext): Promise<User> {
    const row: UsersTable = {
      // One id space with service accounts, as the reference's: an event's createdByUserId names one account.
      id: await advanceCounter(trx, 'service_account_id'),
      name: fields.name,
      username: fields.username,
      email: fields.email,
      password_hash: fields.passwordHash,
      root_role: fields.rootRole,
      created_at: audit.createdAt,
    }
    try {
      await createUserStore(trx).insert(row)
    } catch (error) {
      uniqueness(error, fields.username, fields.email)
    }
    const user = toUser({ ...row, login_attempts: null, seen_at: null })
    await appendEvents(trx, audit, [{ type: 'user-created', data: eventDataOf(user) }])
    return user
  }

  return {
    list: () => createUserStore(db).list(),
    /** Admins: users with and without a password, and service accounts (the reference's adminCountSchema). */
    adminCount: async () => {
      const [people, service] = await Promise.all([createUserStore(db).countAdmins(), createTokenStore(db).countAdminServiceAccounts()])
      return { ...people, service }
    },
    search: (text: string) => createUserStore(db).search(text, SEARCH_LIMIT),
    get: async (id: number): Promise<User> => {
      const row = await createUserStore(db).find(id)
      if (!row) throw notFound(`No user has id ${id}.`)
      return toUser(row)
    },

    /**
     * A new user with a root role; with a password (checked against the rules), or without one and
     * an invite link (under `baseUrl`) for them to set it. With SMTP configured and `sendEmail`
     * not false (the reference's default), a user with an email is sent a welcome (with that
     * link), after the user is stored: a failed send leaves the user, answered `emailSent: false`.
     */
    async create(
      input: CreateUserBody,
      actor: Actor,
      baseUrl: string,
      address: string,
    ): Promise<User & { inviteLink?: string; emailSent: boolean }> {
      const fields = await checkedUser(input, address)
      const { user, inviteLink } = await db.transaction().execute(async (trx) => {
        const user = await insertUserIn(trx, fields, auditContext(actor))
        const inviteLink =
          fields.passwordHash === null ? await createResetLink(trx, user.id, actor.name, baseUrl, INVITE_VALID_MS) : undefined
        return { user, inviteLink }
      })
      const emailSent =
        input.sendEmail !== false && user.email !== null
          ? await mailer.send(welcomeEmail(user.email, user.name, inviteLink, `${baseUrl.replace(/\/+$/, '')}/`))
          : false
      return { ...user, ...(inviteLink ? { inviteLink } : {}), emailSent }
    },

    /** What `insertUserIn` takes, checked, the password hashed (outside any transaction: hashing is slow). */
    checkedUser,
    insertUserIn,

    /**
     * Name, email and root role; a new role ends the user's sessions (their next request signs in
     * anew), and one that may not apply change requests suspends the user's pending schedules.
     */
    async update(id: number, input: UpdateUserBody, actor: Actor): Promise<User> {
      const rootRole = input.rootRole === undefined ? undefined : parseRootRole(input.rootRole, '/body/rootRole')
      const email = input.email === undefined ? undefined : normalEmail(input.email, '/body/email')
      try {
        // Run through runTransaction: suspended schedules are mailed about after the commit.
        return await runTransaction(db, async (trx) => {
          const admins = await lockAdminCredentials(trx, lockSigningInAdmins)
          const before = await lockedUser(trx, id)
          if (rootRole !== undefined && rootRole !== ROOT_ROLES.Admin) {
            keepAnAdmin(
              admins,
              (credential) => credential.kind === 'user' && credential.userId === id,
              `User ${quote(before.username ?? before.email)} is`,
            )
          }
          const after: UserRow = {
            ...before,
            ...(input.name === undefined ? {} : { name: blankToNull(input.name) }),
            ...(email === undefined ? {} : { email }),
            ...(rootRole === undefined ? {} : { root_role: rootRole }),
          }
          if (after.username === null && after.email === null)
            throw invalid('A user needs a username or an email: this one has no username, so keep its email.', '/body/email')
          await createUserStore(trx).update(id, { name: after.name, email: after.email, root_role: after.root_role })
          if (after.root_role !== before.root_role) await sessions.endAll(trx, id)
          const [preData, data] = [eventDataOf(toUser(before)), eventDataOf(toUser(after))]
          const audit = auditContext(actor)
          if (JSON.stringify(preData) !== JSON.stringify(data)) await appendEvents(trx, audit, [{ type: 'user-updated', data, preData }])
          if (after.root_role !== before.root_role && !mayApplyChangeRequests(after.root_role))
            await schedules.suspend(trx, id, 'may-not-apply', audit)
          return toUser(after)
        })
      } catch (error) {
        uniqueness(error, null, email ?? null)
      }
    },

    /** Deletes a user; their sessions, personal tokens and links go with them (cascade). */
    delete: (id: number, actor: Actor): Promise<void> => runTransaction(db, (trx) => deleteIn(trx, id, auditContext(actor))),

    deleteIn,

    setPassword,

    /**
     * A user changes their own password: whoever holds their session or token must also know the
     * current one (`oldPassword`) to replace it, and its guesses count as failed sign-ins do; their
     * other sessions end.
     */
    async changeOwnPassword(
      id: number,
      { password, confirmPassword, oldPassword }: PasswordBody,
      address: string,
      keepSessionHash?: string,
    ): Promise<void> {
      if (confirmPassword !== undefined && confirmPassword !== password)
        throw invalid('The `confirmPassword` property must equal `password`.', '/body/confirmPassword')
      const row = await createUserStore(db).find(id)
      if (!row) throw notFound(`No user has id ${id}.`)
      const hash = row.password_hash
      if (hash !== null) {
        if (oldPassword === undefined)
          throw invalid('The `oldPassword` property is required: send your current password.', '/body/oldPassword')
        await attempts.prove(address, `user:${id}`, async () => {
          if (!(await verifyPassword(oldPassword, hash, address))) throw passwordMismatch()
        })
      }
      await setPassword(id, password, address, keepSessionHash)
    },

    /**
     * Sets the password of the user an invite or reset link is for, using the link up (once, even
     * when sent twice at once); 401 for a link unknown, used or expired. The link is looked up
     * before the password is hashed: a made-up link costs a hash of SHA-256, not of scrypt.
     */
    async setPasswordWithLink(secret: string, password: string, address: string): Promise<void> {
      checkPasswordRules(password)
      await attempts.prove(address, undefined, async () => {
        if (!(await findResetToken(db, secret))) throw invalidLink()
        const passwordHash = await hashPassword(password, address)
        await db.transaction().execute(async (trx) => {
          const userId = await useResetLink(trx, secret)
          if (userId === undefined) throw invalidLink()
          await storePassword(trx, sessions, userId, passwordHash)
        })
      })
    },

    /** Who an invite or reset link is for, and who made it; 401 for a link unknown, used or expired. */
    linkHolder: (secret: string, address: string): Promise<{ user: User; createdBy: string }> =>
      attempts.prove(address, undefined, async () => {
        const found = await findResetToken(db, secret)
        const row = found && (await createUserStore(db).find(found.userId))
        if (!found || !row) throw invalidLink()
        return { user: toUser(row), createdBy: found.createdBy }
      }),

    /**
     * A reset link (under `baseUrl`, valid a day) for the user with this id, or this login: an
     * email (any case) or a username. With SMTP configured, it is also emailed to the user.
     */
    async resetLink(who: number | { login: string }, actor: Actor, baseUrl: string): Promise<{ link: string; emailSent: boolean }> {
      const { link, row } = await db.transaction().execute(async (trx) => {
        let id: number
        if (typeof who === 'number') id = who
        else {
          const found = await createUserStore(trx).findByLogin(who.login)
          if (!found) throw notFound(`No user has the ${who.login.includes('@') ? 'email' : 'username'} ${quote(who.login)}.`)
          id = found.id
        }
        const row = await lockedUser(trx, id)
        return { link: await createResetLink(trx, id, actor.name, baseUrl, RESET_VALID_MS), row }
      })
      const emailSent = row.email === null ? false : await mailer.send(resetEmail(row.email, row.name, link))
      return { link, emailSent }
    },

    /**
     * A reset link emailed to whoever has this address, if anyone does (made by `system`). Says
     * nothing of whether someone does: the caller answers the same either way, and sends nothing
     * without SMTP.
     */
    async emailResetLink(address: string, baseUrl: string): Promise<void> {
      if (!mailer.configured) return
      const email = address.trim().toLowerCase()
      if (!EMAIL.test(email)) return
      const found = await db.transaction().execute(async (trx) => {
        const row = await createUserStore(trx).findByLogin(email)
        if (!row) return undefined
        await lockedUser(trx, row.id)
        return { row, link: await createResetLink(trx, row.id, SYSTEM_ACTOR.name, baseUrl, RESET_VALID_MS) }
      })
      if (found) await mailer.send(resetEmail(email, found.row.name, found.link))
    },
  }
}

export type UserService = ReturnType<typeof createUserService>
