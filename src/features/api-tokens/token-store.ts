import type { Kysely } from 'kysely'
import type { ApiTokensTable, Database, ServiceAccountsTable } from '../../db/tables.ts'
import { prepared } from '../../db/prepared.ts'
import type { ApiTokenData, ServiceAccountData } from '../events/event-types.ts'
import { adminTokenPrincipal, rolePermissions, ROOT_ROLES, type Principal } from '../../http/permissions.ts'
import { sameHash } from './token-secret.ts'

export type ApiToken = ApiTokenData

const toServiceAccount = (row: ServiceAccountsTable): ServiceAccountData => ({
  id: row.id,
  username: row.username,
  name: row.name,
  rootRole: row.root_role,
  createdAt: row.created_at,
})

/** Who a token is, and until when (ISO time; null: no expiry). */
export interface ResolvedToken {
  principal: Principal
  expiresAt: string | null
}

function toApiToken(row: ApiTokensTable): ApiToken {
  return {
    tokenName: row.token_name,
    type: row.type,
    environment: row.environment,
    projects: JSON.parse(row.projects) as string[],
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  }
}

// Run on every authenticated request: compiled once.
const apiTokenByHash = prepared((db: Kysely<Database>) =>
  db
    .selectFrom('api_tokens')
    .select(['secret_hash', 'token_name', 'type', 'expires_at', 'environment', 'projects'])
    .where('secret_hash', '=', ''),
)

/** Whether a credential's expiry (ISO time; null: never) has come at `now`. */
export const isExpired = (expiresAt: string | null, now: string): boolean => expiresAt !== null && expiresAt <= now

function apiTokenPrincipal(token: Pick<ApiTokensTable, 'token_name' | 'type' | 'expires_at' | 'environment' | 'projects'>): ResolvedToken {
  if (token.type === 'admin') return { principal: adminTokenPrincipal(token.token_name), expiresAt: token.expires_at }
  const kind = token.type === 'frontend' ? 'frontend-token' : 'client-token'
  // What a client or frontend token may read: its environment and its projects (`*`: all).
  const scope = { environment: token.environment, projects: JSON.parse(token.projects) as string[] }
  return { principal: { kind, name: token.token_name, userId: -42, permissions: new Set(), scope }, expiresAt: token.expires_at }
}

function serviceAccountPrincipal(account: { expires_at: string | null; id: number; username: string; root_role: number }): ResolvedToken {
  return {
    principal: { kind: 'service-account', name: account.username, userId: account.id, permissions: rolePermissions(account.root_role) },
    expiresAt: account.expires_at,
  }
}

/** Where a presented credential is resolved: this store (API and service-account tokens), and personal tokens (personal-tokens/). */
export interface CredentialLookup {
  /** The principal of a credential by its hash, and until when it works; expired or unknown → undefined. */
  findPrincipal(secretHash: string, now: string): Promise<ResolvedToken | undefined>
  /** Every credential that works at `now`, by secret hash, as findPrincipal resolves it. */
  allPrincipals(now: string): Promise<Map<string, ResolvedToken>>
}

export function createTokenStore(db: Kysely<Database>) {
  return {
    /**
     * Resolves a presented credential (by its hash) to a principal and the time it stops
     * working; expired or unknown → undefined.
     */
    async findPrincipal(secretHash: string, now: string): Promise<ResolvedToken | undefined> {
      const token = (await db.executeQuery(apiTokenByHash(db, [secretHash]))).rows[0]
      if (token) return sameHash(token.secret_hash, secretHash) && !isExpired(token.expires_at, now) ? apiTokenPrincipal(token) : undefined
      const account = await db
        .selectFrom('service_account_tokens as t')
        .innerJoin('service_accounts as a', 'a.id', 't.service_account_id')
        .select(['t.secret_hash', 't.expires_at', 'a.id', 'a.username', 'a.root_role'])
        .where('t.secret_hash', '=', secretHash)
        .executeTakeFirst()
      if (!account || !sameHash(account.secret_hash, secretHash) || isExpired(account.expires_at, now)) return undefined
      return serviceAccountPrincipal(account)
    },

    /**
     * Every token that works at `now`, by secret hash, as findPrincipal resolves it: one read of
     * each table, for a caller that must not query per credential (a throttled address, auth.ts).
     */
    async allPrincipals(now: string): Promise<Map<string, ResolvedToken>> {
      const apiTokens = await db
        .selectFrom('api_tokens')
        .select(['secret_hash', 'token_name', 'type', 'expires_at', 'environment', 'projects'])
        .execute()
      const accountTokens = await db
        .selectFrom('service_account_tokens as t')
        .innerJoin('service_accounts as a', 'a.id', 't.service_account_id')
        .select(['t.secret_hash', 't.expires_at', 'a.id', 'a.username', 'a.root_role'])
        .execute()
      const principals = new Map<string, ResolvedToken>()
      for (const account of accountTokens)
        if (!isExpired(account.expires_at, now)) principals.set(account.secret_hash, serviceAccountPrincipal(account))
      for (const token of apiTokens) if (!isExpired(token.expires_at, now)) principals.set(token.secret_hash, apiTokenPrincipal(token))
      return principals
    },

    /** The API tokens of these types among these secret hashes that work at `now` (one query; Edge's token validation). */
    async workingApiTokens(
      hashes: readonly string[],
      types: readonly string[],
      now: string,
    ): Promise<Map<string, Pick<ApiToken, 'type' | 'environment' | 'projects'>>> {
      const found = new Map<string, Pick<ApiToken, 'type' | 'environment' | 'projects'>>()
      if (hashes.length === 0) return found
      const rows = await db
        .selectFrom('api_tokens')
        .select(['secret_hash', 'type', 'environment', 'projects', 'expires_at'])
        .where('secret_hash', 'in', hashes)
        .where('type', 'in', types)
        .execute()
      for (const row of rows) {
        if (!isExpired(row.expires_at, now))
          found.set(row.secret_hash, { type: row.type, environment: row.environment, projects: JSON.parse(row.projects) as string[] })
      }
      return found
    },

    /** The API tokens of a name that work at `now`, with their secret hashes (names are not unique): what signs an OFREP stream's credential. */
    async workingByName(tokenName: string, now: string): Promise<Array<{ secretHash: string; principal: Principal }>> {
      const rows = await db
        .selectFrom('api_tokens')
        .select(['secret_hash', 'token_name', 'type', 'expires_at', 'environment', 'projects'])
        .where('token_name', '=', tokenName)
        .limit(100)
        .execute()
      return rows
        .filter((row) => !isExpired(row.expires_at, now))
        .map((row) => ({ secretHash: row.secret_hash, principal: apiTokenPrincipal(row).principal }))
    },

    async isEmpty(): Promise<boolean> {
      const row = await db.selectFrom('api_tokens').select('secret_hash').limit(1).executeTakeFirst()
      return row === undefined
    },

    /** Those of these secret hashes that no API token has yet. */
    async notStored(hashes: readonly string[]): Promise<string[]> {
      if (hashes.length === 0) return []
      const rows = await db.selectFrom('api_tokens').select('secret_hash').where('secret_hash', 'in', hashes).execute()
      const stored = new Set(rows.map((row) => row.secret_hash))
      return hashes.filter((hash) => !stored.has(hash))
    },

    /** Token names like `admin%` (SQLite ignores the case; callers compare exactly). */
    async namesLike(pattern: string): Promise<string[]> {
      const rows = await db.selectFrom('api_tokens').select('token_name').distinct().where('token_name', 'like', pattern).execute()
      return rows.map((row) => row.token_name)
    },

    async insert(token: ApiToken, secretHash: string): Promise<void> {
      await db
        .insertInto('api_tokens')
        .values({
          secret_hash: secretHash,
          token_name: token.tokenName,
          type: token.type,
          environment: token.environment,
          projects: JSON.stringify(token.projects),
          expires_at: token.expiresAt,
          created_at: token.createdAt,
        })
        .execute()
    },

    async list(): Promise<ApiToken[]> {
      const rows = await db.selectFrom('api_tokens').selectAll().orderBy('created_at').orderBy('token_name').execute()
      return rows.map(toApiToken)
    },

    /** Per environment named by tokens (`*` too): how many tokens name it. */
    async countByEnvironment(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('api_tokens')
        .select(['environment', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('environment')
        .execute()
      return new Map(rows.map((row) => [row.environment, Number(row.n)]))
    },

    /** The API token with this secret hash (a project's token deleted by its secret). */
    async findByHash(secretHash: string): Promise<ApiToken | undefined> {
      const row = await db.selectFrom('api_tokens').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst()
      return row && toApiToken(row)
    },

    async deleteByHash(secretHash: string): Promise<void> {
      await db.deleteFrom('api_tokens').where('secret_hash', '=', secretHash).execute()
    },

    /** Deletes every token with that name and returns what was deleted. */
    /** The tokens with that name (names are not unique), oldest first. */
    async listByName(tokenName: string): Promise<ApiToken[]> {
      const rows = await db.selectFrom('api_tokens').selectAll().where('token_name', '=', tokenName).orderBy('created_at').execute()
      return rows.map(toApiToken)
    },

    /** Sets the expiry of the token with this secret hash; returns it before and after, or undefined when no token has it. */
    async setExpiry(secretHash: string, expiresAt: string): Promise<{ before: ApiToken; after: ApiToken } | undefined> {
      const row = await db.selectFrom('api_tokens').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst()
      if (!row || !sameHash(row.secret_hash, secretHash)) return undefined
      await db.updateTable('api_tokens').set({ expires_at: expiresAt }).where('secret_hash', '=', secretHash).execute()
      return { before: toApiToken(row), after: toApiToken({ ...row, expires_at: expiresAt }) }
    },

    async deleteByName(tokenName: string): Promise<ApiToken[]> {
      const rows = await db.deleteFrom('api_tokens').where('token_name', '=', tokenName).returningAll().execute()
      return rows.map(toApiToken)
    },

    async findServiceAccount(id: number): Promise<ServiceAccountData | undefined> {
      const row = await db.selectFrom('service_accounts').selectAll().where('id', '=', id).executeTakeFirst()
      return row && toServiceAccount(row)
    },

    /** How many service accounts hold the Admin root role. */
    async countAdminServiceAccounts(): Promise<number> {
      const row = await db
        .selectFrom('service_accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('root_role', '=', ROOT_ROLES.Admin)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    /** By id. */
    async listServiceAccounts(): Promise<ServiceAccountData[]> {
      const rows = await db.selectFrom('service_accounts').selectAll().orderBy('id').execute()
      return rows.map(toServiceAccount)
    },

    async serviceAccountUsernameTaken(username: string): Promise<boolean> {
      return (await db.selectFrom('service_accounts').select('id').where('username', '=', username).executeTakeFirst()) !== undefined
    },

    /** Throws the driver's unique violation when the username is taken (a concurrent create). */
    async insertServiceAccount(account: ServiceAccountData): Promise<void> {
      await db
        .insertInto('service_accounts')
        .values({
          id: account.id,
          username: account.username,
          name: account.name,
          root_role: account.rootRole,
          created_at: account.createdAt,
        })
        .execute()
    },

    /** Its tokens go with it (foreign key cascade). */
    async deleteServiceAccount(id: number): Promise<void> {
      await db.deleteFrom('service_accounts').where('id', '=', id).execute()
    },

    async insertServiceAccountToken(
      accountId: number,
      token: { id: number; description: string; expiresAt: string | null; createdAt: string },
      secretHash: string,
    ): Promise<void> {
      await db
        .insertInto('service_account_tokens')
        .values({
          id: token.id,
          service_account_id: accountId,
          description: token.description,
          secret_hash: secretHash,
          expires_at: token.expiresAt,
          created_at: token.createdAt,
        })
        .execute()
    },
  }
}

export type TokenStore = ReturnType<typeof createTokenStore>
