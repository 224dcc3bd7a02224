/**
 * Personal access tokens: API tokens a user makes for themselves, acting as them with their root
 * role (token-store.ts resolves them). `user:<64 hex>` like service-account tokens; only the hash
 * is stored; each has an expiry, at most MAX_PER_USER per user, descriptions unique per user.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { advanceCounter } from '../../db/counters.ts'
import { invalid, invalidOperation, nameExists, notFound, quote, validationFailed } from '../../http/errors.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { accountTokenSecret, hashSecret } from '../api-tokens/token-secret.ts'
import { checkNotPast } from '../api-tokens/token-service.ts'
import { createPatStore, type PersonalToken } from './pat-store.ts'

const MAX_PER_USER = 10

/** `maxLifetimeMs` (PAT_MAX_LIFETIME_DAYS): how far ahead an expiry may be, so that a leaked token does not work for ever. */
export function createPatService({ db, maxLifetimeMs }: { db: Kysely<Database>; maxLifetimeMs: number }) {
  return {
    async list(userId: number): Promise<PersonalToken[]> {
      return createPatStore(db).list(userId)
    },

    async create(
      userId: number,
      input: { description: string; expiresAt: string },
      actor: Actor,
    ): Promise<PersonalToken & { secret: string }> {
      const description = input.description.trim()
      if (description === '') throw invalid('The `description` property must not be empty.', '/body/description')
      checkNotPast(input.expiresAt, '/body/expiresAt')
      const latest = new Date(Date.now() + maxLifetimeMs)
      if (Date.parse(input.expiresAt) > latest.getTime()) {
        const days = Math.round(maxLifetimeMs / 86_400_000)
        const message = `The \`/body/expiresAt\` property must be at most ${days} days from now (before ${latest.toISOString()}). You sent ${quote(input.expiresAt)}.`
        throw validationFailed([{ path: '/body/expiresAt', message }])
      }
      return db.transaction().execute(async (trx) => {
        const store = createPatStore(trx)
        const existing = await store.descriptions(userId)
        if (existing.length >= MAX_PER_USER)
          throw invalidOperation(`Too many personal access tokens (${MAX_PER_USER}) already exist for this user: delete one first.`)
        if (existing.includes(description))
          throw nameExists(`A personal access token with description ${quote(description)} already exists.`)
        const audit = auditContext(actor)
        const secret = accountTokenSecret()
        const token: PersonalToken = {
          id: await advanceCounter(trx, 'personal_token_id'),
          description,
          expiresAt: new Date(input.expiresAt).toISOString(),
          createdAt: audit.createdAt,
          seenAt: null,
          userId,
        }
        await store.insert(token, hashSecret(secret))
        await appendEvents(trx, audit, [{ type: 'pat-created', data: { id: token.id, description, expiresAt: token.expiresAt, userId } }])
        return { ...token, secret }
      })
    },

    delete: (userId: number, id: number, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const token = await createPatStore(trx).delete(userId, id)
        if (!token) throw notFound(`You have no personal access token with id ${id}.`)
        await appendEvents(trx, auditContext(actor), [
          { type: 'pat-deleted', data: { id: token.id, description: token.description, expiresAt: token.expiresAt, userId } },
        ])
      }),
  }
}

export type PatService = ReturnType<typeof createPatService>
