/**
 * The rule that keeps Pennon administrable: the last credential that can administer it cannot be
 * removed. Admin-capable: an unexpired admin API token, an unexpired token of a service
 * account whose root role is Admin, or an Admin user with a password (who can sign in). Without one, token auth locks everybody out of the admin API
 * (the way back is a start-up with INIT_ADMIN_API_TOKENS or `npm run admin-token`: docs/authentication.md).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalidOperation } from '../../http/errors.ts'
import { ROOT_ROLES } from '../../http/permissions.ts'
import { isExpired } from './token-store.ts'
import { lockedRows } from '../../db/row-lock.ts'

export type AdminCredential =
  | { kind: 'api-token'; tokenName: string }
  | { kind: 'service-account-token'; accountId: number }
  /** An Admin user who can sign in (has a password): they can mint tokens again. */
  | { kind: 'user'; userId: number }

/**
 * The Admin users who can sign in (have a password), their rows locked in the transaction, by id.
 * The users feature answers it (users/user-store.ts `lockSigningInAdmins`), wired in where a
 * token service is made: users/ ranks above api-tokens/.
 */
export type LockSigningInAdmins = (trx: Kysely<Database>) => Promise<number[]>

/**
 * Every admin-capable credential, read inside the transaction that may remove some, with the rows
 * locked: on PostgreSQL `FOR UPDATE` (in a fixed order, so two removers queue instead of
 * deadlocking; the second then reads what the first left); SQLite's `BEGIN IMMEDIATE` already
 * holds the write lock. So two concurrent removals of the last two never both see the other's.
 */
export async function lockAdminCredentials(
  trx: Kysely<Database>,
  lockSigningInAdmins: LockSigningInAdmins,
  now = new Date().toISOString(),
): Promise<AdminCredential[]> {
  const apiTokens = await trx
    .selectFrom('api_tokens')
    .select(['token_name', 'expires_at'])
    .where('type', '=', 'admin')
    .orderBy('secret_hash')
    .$call(lockedRows(trx))
    .execute()
  // The account's row too: the rule depends on its root role.
  const accountTokens = await trx
    .selectFrom('service_account_tokens as t')
    .innerJoin('service_accounts as a', 'a.id', 't.service_account_id')
    .select(['t.service_account_id', 't.expires_at'])
    .where('a.root_role', '=', ROOT_ROLES.Admin)
    .orderBy('t.id')
    .$call(lockedRows(trx))
    .execute()
  const adminUsers = await lockSigningInAdmins(trx)
  return [
    ...adminUsers.map((userId) => ({ kind: 'user' as const, userId })),
    ...apiTokens
      .filter((token) => !isExpired(token.expires_at, now))
      .map((token) => ({ kind: 'api-token' as const, tokenName: token.token_name })),
    ...accountTokens
      .filter((token) => !isExpired(token.expires_at, now))
      .map((token) => ({ kind: 'service-account-token' as const, accountId: token.service_account_id })),
  ]
}

const WHY = 'Create another admin token, a token for an Admin service account, or an Admin user with a password first.'

/**
 * Refuses (409) a removal that takes away admin-capable credentials and leaves none. A removal
 * of credentials that administer nothing, or when none is left anyway, is not this rule's business.
 */
export function keepAnAdmin(
  credentials: readonly AdminCredential[],
  removes: (credential: AdminCredential) => boolean,
  what: string,
): void {
  if (credentials.some(removes) && credentials.every(removes)) {
    throw invalidOperation(`${what} the last credential that can administer Pennon, so it cannot be deleted. ${WHY}`)
  }
}
