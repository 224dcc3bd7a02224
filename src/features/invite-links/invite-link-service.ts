/**
 * Public sign-up tokens (docs/security.md, "Invite links"): an admin makes a link that lets anyone
 * holding it sign up, with the Viewer root role, until it expires (at most a month away) or is
 * disabled. Events as the reference's, without the secret: events are read more widely than the
 * tokens (which only admins see), so they name a token by its name.
 */
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid, notFound, quote } from '../../http/errors.ts'
import { ROOT_ROLES } from '../../http/permissions.ts'
import { auditContext, SYSTEM_ACTOR, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { SignupTokenData } from '../events/event-types.ts'
import type { User } from '../users/user-store.ts'
import { namesOfUsers } from '../users/user-store.ts'
import { rootRoleOf, type UserService } from '../users/user-service.ts'
import { createInviteLinkStore, isUsable, type TokenRow } from './invite-link-store.ts'
import type { CreateTokenBody, SignupBody, SignupToken, UpdateTokenBody } from './invite-link-schemas.ts'

/** The reference's answer to a token that cannot be used, whatever the reason (unknown, disabled, expired). */
export const unusableToken = () => invalid('This invite link is unknown, disabled or expired: ask an admin for a new one.')

/** A month from `now`, as the reference caps an expiry. */
function latestExpiry(now: Date): Date {
  const latest = new Date(now)
  latest.setUTCMonth(latest.getUTCMonth() + 1)
  return latest
}

function cappedExpiry(expiresAt: string, now: Date): string {
  const date = new Date(expiresAt)
  const latest = latestExpiry(now)
  return (date < latest ? date : latest).toISOString()
}

const eventDataOf = (row: TokenRow): SignupTokenData => ({
  name: row.name,
  enabled: Boolean(row.enabled),
  expiresAt: new Date(row.expires_at).toISOString(),
  createdAt: new Date(row.created_at).toISOString(),
  role: rootRoleOf(row.role_id).name,
})

export function createInviteLinkService({ db, users }: { db: Kysely<Database>; users: Pick<UserService, 'checkedUser' | 'insertUserIn'> }) {
  async function view(rows: TokenRow[], trx: Kysely<Database> = db): Promise<SignupToken[]> {
    const ids = await createInviteLinkStore(trx).userIds(rows.map((row) => row.secret))
    const people = new Map((await namesOfUsers(trx, [...new Set([...ids.values()].flat())])).map((user) => [user.id, user]))
    const now = new Date().toISOString()
    return rows.map((row) => {
      const role = rootRoleOf(row.role_id)
      return {
        secret: row.secret,
        url: row.url,
        name: row.name,
        enabled: isUsable(row, now),
        expiresAt: new Date(row.expires_at).toISOString(),
        createdAt: new Date(row.created_at).toISOString(),
        createdBy: row.created_by,
        users: (ids.get(row.secret) ?? []).flatMap((id) => people.get(id) ?? []),
        role: { id: role.id, type: role.type, name: role.name },
      }
    })
  }

  const notFoundToken = (secret: string) => notFound(`No invite link has the secret ${quote(secret)}.`)

  return {
    list: async (): Promise<SignupToken[]> => view(await createInviteLinkStore(db).all()),

    async get(secret: string): Promise<SignupToken> {
      const row = await createInviteLinkStore(db).find(secret)
      if (!row) throw notFoundToken(secret)
      return (await view([row]))[0]!
    },

    /** A new token for the Viewer role; its link under `baseUrl`. */
    create: (input: CreateTokenBody, actor: Actor, baseUrl: string): Promise<SignupToken> => {
      const name = input.name.trim()
      if (name === '') throw invalid('The `/body/name` property must not be empty: name the invite link.', '/body/name')
      return db.transaction().execute(async (trx) => {
        const audit = auditContext(actor)
        const secret = randomBytes(16).toString('hex')
        const row: TokenRow = {
          secret,
          name,
          // In the fragment, as reset links: browsers never send it, so it stays out of access logs.
          url: `${baseUrl.replace(/\/+$/, '')}/#/new-user?invite=${secret}`,
          role_id: ROOT_ROLES.Viewer,
          enabled: true,
          expires_at: cappedExpiry(input.expiresAt, new Date(audit.createdAt)),
          created_at: audit.createdAt,
          created_by: actor.name,
        }
        await createInviteLinkStore(trx).insert(row)
        await appendEvents(trx, audit, [{ type: 'public-signup-token-created', data: eventDataOf(row) }])
        return (await view([row], trx))[0]!
      })
    },

    /** A new expiry (capped as at creation) or enabled state; 400 for neither. */
    update: (secret: string, input: UpdateTokenBody, actor: Actor): Promise<SignupToken> => {
      if (input.expiresAt === undefined && input.enabled === undefined)
        throw invalid('Send `expiresAt`, `enabled` or both: there is nothing else to change.', '/body')
      return db.transaction().execute(async (trx) => {
        const audit = auditContext(actor)
        const store = createInviteLinkStore(trx)
        const before = await store.lock(secret)
        if (!before) throw notFoundToken(secret)
        const after: TokenRow = {
          ...before,
          enabled: input.enabled ?? Boolean(before.enabled),
          expires_at: input.expiresAt === undefined ? before.expires_at : cappedExpiry(input.expiresAt, new Date(audit.createdAt)),
        }
        await store.update(secret, { enabled: Boolean(after.enabled), expires_at: after.expires_at })
        await appendEvents(trx, audit, [{ type: 'public-signup-token-updated', data: eventDataOf(after), preData: eventDataOf(before) }])
        return (await view([after], trx))[0]!
      })
    },

    /** Whether the token lets people sign up now. */
    isUsable: async (secret: string): Promise<boolean> => {
      const row = await createInviteLinkStore(db).find(secret)
      return row !== undefined && isUsable(row)
    },

    /**
     * Signs someone up with a usable token: a user with the token's role (their password checked
     * against the rules), recorded under the token. 400 for a token that cannot be used (checked
     * again once locked: a token disabled meanwhile lets no one in), 409 for a taken email or username.
     */
    async signUp(secret: string, input: SignupBody, address: string): Promise<User> {
      const found = await createInviteLinkStore(db).find(secret)
      if (!found || !isUsable(found)) throw unusableToken()
      const fields = await users.checkedUser({ ...input, rootRole: found.role_id }, address)
      if (fields.email === null) throw invalid('The `/body/email` property must be an email address.', '/body/email')
      return db.transaction().execute(async (trx) => {
        const store = createInviteLinkStore(trx)
        const token = await store.lock(secret)
        if (!token || !isUsable(token)) throw unusableToken()
        const audit = auditContext(SYSTEM_ACTOR)
        const user = await users.insertUserIn(trx, fields, audit)
        await store.addUser(secret, user.id, audit.createdAt)
        await appendEvents(trx, audit, [{ type: 'public-signup-token-user-added', data: { name: token.name, userId: user.id } }])
        return user
      })
    },
  }
}

export type InviteLinkService = ReturnType<typeof createInviteLinkService>
