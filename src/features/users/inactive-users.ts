/**
 * Inactive people, as the reference defines them: created more than `days` ago, and neither
 * signed in nor used a personal token within those days (never counts as not). Their list, and
 * their deletion by an admin (each with its user-deleted event, all or none).
 */
import type { Kysely } from 'kysely'
import { runTransaction } from '../../db/after-commit.ts'
import type { Database } from '../../db/tables.ts'
import { invalid, notFound } from '../../http/errors.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import type { PatsOfUsers } from './pats-of-users.ts'
import type { UserService } from './user-service.ts'
import { createUserStore } from './user-store.ts'

const DAY_MS = 86_400_000

export interface InactiveUser {
  id: number
  name: string | null
  email: string | null
  username: string | null
  seenAt: string | null
  createdAt: string
  patSeenAt: string | null
}

export function createInactiveUsers({
  db,
  users,
  pats,
  days,
  now = Date.now,
}: {
  db: Kysely<Database>
  users: Pick<UserService, 'deleteIn'>
  pats: PatsOfUsers
  days: number
  now?: () => number
}) {
  async function inactive(trx: Kysely<Database>): Promise<InactiveUser[]> {
    const before = new Date(now() - days * DAY_MS).toISOString()
    const [candidates, patSeen] = await Promise.all([createUserStore(trx).notSeenSince(before), pats.lastSeen(trx)])
    return candidates
      .filter((user) => (patSeen.get(user.id) ?? '') < before)
      .map(({ id, name, email, username, seenAt, createdAt }) => ({
        id,
        name,
        email,
        username,
        seenAt,
        createdAt,
        patSeenAt: patSeen.get(id) ?? null,
      }))
  }

  return {
    days,

    /** GET /user-admin/inactive */
    list: async () => ({ version: 1 as const, inactiveUsers: await inactive(db) }),

    /**
     * POST /user-admin/inactive/delete: deletes these people, but the caller (left out, as the
     * reference does). All or none: an unknown id is a 404, an active person a 400, the last admin
     * credential a 409.
     */
    delete: (ids: readonly number[], actor: Actor & { kind?: string }): Promise<void> =>
      // Through runTransaction: the schedules the deletions suspend are mailed about after the commit.
      runTransaction(db, async (trx) => {
        // Only a person is one of these ids (a service account's id is of another sequence).
        const wanted = [...new Set(ids)].filter((id) => actor.kind !== 'user' || id !== actor.userId)
        const inactiveIds = new Set((await inactive(trx)).map((user) => user.id))
        const known = new Set((await createUserStore(trx).list()).map((user) => user.id))
        const unknown = wanted.find((id) => !known.has(id))
        if (unknown !== undefined) throw notFound(`No user has the id ${unknown}.`)
        const active = wanted.find((id) => !inactiveIds.has(id))
        if (active !== undefined)
          throw invalid(
            `User ${active} is not inactive: they signed in, used a personal token, or were created within the last ${days} days.`,
          )
        const audit = auditContext(actor)
        for (const id of wanted) await users.deleteIn(trx, id, audit)
      }),
  }
}

export type InactiveUsers = ReturnType<typeof createInactiveUsers>
