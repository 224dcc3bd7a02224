/**
 * Sign-in with a password, and the sessions it starts (docs/security.md). A session is a row
 * (so every instance sees it) keyed by the SHA-256 of the cookie's secret; it ends after
 * SESSION_IDLE_MINUTES without a request, SESSION_MAX_AGE_HOURS after sign-in, at sign-out, and
 * when its user is deleted, gets another root role or a new password.
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/tables.ts'
import { userPrincipal, type Principal } from '../../http/permissions.ts'
import { generateSecretPart, hashSecret } from '../api-tokens/token-secret.ts'
import { passwordMismatch, verifyPassword } from '../users/password.ts'
import { createUserStore, toUser, type User, type UserRow } from '../users/user-store.ts'
import type { PasswordAttempts } from '../users/password-attempts.ts'
import { createSessionCache } from './session-cache.ts'
import { createSessionStore } from './session-store.ts'

// A session's seen_at is written at most this often: activity is known to the minute, with one write a minute per session at most.
const TOUCH_EVERY_MS = 60_000
// Sessions one user may hold; signing in past it ends their oldest.
const MAX_SESSIONS_PER_USER = 20

export function createSessionService({
  db,
  config,
  attempts,
  changes,
}: {
  db: Kysely<Database>
  config: Config
  attempts: PasswordAttempts
  changes: ChangeWatch
}) {
  const remembered = createSessionCache(changes)
  /** The user whose password `password` is, or a 401; `address` is the client's address key (http/client-address.ts). */
  const checkPassword = (login: string, password: string, address: string) =>
    // Failed sign-ins count per account and address, and per address over all accounts (password spraying):
    // only the address that failed is slowed down, so nobody elsewhere can lock the real user out.
    attempts.prove(address, `login:${login.toLowerCase()}`, async () => {
      const row = await createUserStore(db).findByLogin(login)
      // Unknown users cost a hash too (verifyPassword with null), so a wrong name cannot be told from a wrong password.
      if (!(await verifyPassword(password, row?.password_hash ?? null, address)) || !row) {
        if (row) {
          await createUserStore(db).countFailedSignIn(row.id)
        }
        throw passwordMismatch()
      }
      return row
    })

  async function start(
    row: UserRow,
    also?: (trx: Kysely<Database>, secretHash: string) => Promise<void>,
  ): Promise<{ user: User; secret: string }> {
    const secret = generateSecretPart()
    const now = new Date()
    const user = await db.transaction().execute(async (trx) => {
      await createUserStore(trx).signedIn(row.id, now.toISOString())
      await createSessionStore(trx).start(
        {
          secret_hash: hashSecret(secret),
          user_id: row.id,
          created_at: now.toISOString(),
          seen_at: now.toISOString(),
          expires_at: new Date(now.getTime() + config.sessionMaxAgeMs).toISOString(),
        },
        MAX_SESSIONS_PER_USER,
      )
      await also?.(trx, hashSecret(secret))
      return toUser({ ...row, login_attempts: 0, seen_at: now.toISOString() })
    })
    return { user, secret }
  }

  return {
    /** Checks the password of `login` (a username or an email) and starts a session: its secret is for the cookie. */
    async login(login: string, password: string, address: string): Promise<{ user: User; secret: string }> {
      return start(await checkPassword(login, password, address))
    },

    /**
     * Starts a session for a user another sign-in vouched for (single sign-on, features/sso/):
     * `also` runs in the session's transaction with its secret's hash.
     */
    start,

    /** The user a session cookie's secret signs in, or undefined when it is unknown or over. Moves its inactivity clock. */
    async principalOf(secret: string): Promise<Principal | undefined> {
      const version = changes.version('sessions')
      const known = remembered.get(secret, version, Date.now())
      if (known) return known
      const secretHash = hashSecret(secret)
      const session = await createSessionStore(db).find(secretHash)
      // A user's sessions go with the user (a cascading key): none is found without its user but while a delete commits.
      const user = session && (await createUserStore(db).principalRow(session.user_id))
      if (!session || !user) return undefined
      const row = { ...session, ...user }
      const now = Date.now()
      let seenAt = Date.parse(row.seen_at)
      const expiresAt = Date.parse(row.expires_at)
      if (expiresAt <= now || seenAt + config.sessionIdleMs <= now) return undefined
      if (now - seenAt >= TOUCH_EVERY_MS) {
        await createSessionStore(db).touch(secretHash, new Date(now).toISOString())
        seenAt = now
      }
      const principal = userPrincipal(row, secretHash)
      // Used without a read until the inactivity clock is due again (SESSION_IDLE_MINUTES is at least a minute) or the session ends.
      remembered.set(secret, version, principal, Math.min(seenAt + TOUCH_EVERY_MS, expiresAt))
      return principal
    },

    async logout(secretHash: string): Promise<void> {
      await createSessionStore(db).end(secretHash)
    },
  }
}

export type SessionService = ReturnType<typeof createSessionService>
