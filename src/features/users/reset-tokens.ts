/**
 * One-time links that let a user set their password: an invite (a user created without one) or a
 * reset an admin asks for. Pennon sends no email: the link is shown to the admin to hand over. The
 * secret is in the link's fragment (`/#/reset-password?token=…`), which browsers never send to a
 * server, so it stays out of access logs; only its SHA-256 is stored.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError } from '../../http/errors.ts'
import { generateSecretPart, hashSecret } from '../api-tokens/token-secret.ts'

export const INVITE_VALID_MS = 7 * 24 * 3_600_000
export const RESET_VALID_MS = 24 * 3_600_000

/** Stores a new link's secret for `userId`, valid `validMs`; returns the link under `baseUrl`. */
export async function createResetLink(
  trx: Kysely<Database>,
  userId: number,
  createdBy: string,
  baseUrl: string,
  validMs: number,
): Promise<string> {
  const secret = generateSecretPart()
  const now = Date.now()
  await trx
    .insertInto('password_reset_tokens')
    .values({
      secret_hash: hashSecret(secret),
      user_id: userId,
      created_by: createdBy,
      expires_at: new Date(now + validMs).toISOString(),
      created_at: new Date(now).toISOString(),
    })
    .execute()
  return `${baseUrl.replace(/\/+$/, '')}/#/reset-password?token=${secret}`
}

/** The user a link's secret was made for, and who made it; undefined when unknown, used or expired. */
export async function findResetToken(db: Kysely<Database>, secret: string): Promise<{ userId: number; createdBy: string } | undefined> {
  if (secret.length === 0 || secret.length > 200) return undefined
  const row = await db
    .selectFrom('password_reset_tokens')
    .select(['user_id', 'created_by', 'expires_at'])
    .where('secret_hash', '=', hashSecret(secret))
    .executeTakeFirst()
  return row && row.expires_at > new Date().toISOString() ? { userId: row.user_id, createdBy: row.created_by } : undefined
}

export const invalidLink = () =>
  new AppError(401, 'AuthenticationRequired', 'This link is unknown, used or expired: ask an admin for a new one.')

/** Deletes a link's row if it is current, returning its user: of two uses at once, one finds it. */
export async function useResetLink(trx: Kysely<Database>, secret: string): Promise<number | undefined> {
  if (secret.length === 0 || secret.length > 200) return undefined
  const row = await trx
    .deleteFrom('password_reset_tokens')
    .where('secret_hash', '=', hashSecret(secret))
    .returning(['user_id', 'expires_at'])
    .executeTakeFirst()
  return row && row.expires_at > new Date().toISOString() ? row.user_id : undefined
}

/** Every link of a user goes (a new password uses them up). */
export async function deleteResetLinks(trx: Kysely<Database>, userId: number): Promise<void> {
  await trx.deleteFrom('password_reset_tokens').where('user_id', '=', userId).execute()
}
