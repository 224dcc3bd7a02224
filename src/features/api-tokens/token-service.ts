import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { advanceCounter } from '../../db/counters.ts'
import { isUniqueViolation } from '../../db/db-errors.ts'
import { field } from '../../http/body-rules.ts'
import { invalid, nameExists, notFound, quote, validationFailed, type ErrorDetail } from '../../http/errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { auditContext, SYSTEM_ACTOR, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { ServiceAccountData } from '../events/event-types.ts'
import { createTokenStore, type ApiToken } from './token-store.ts'
import { keepAnAdmin, lockAdminCredentials, type LockSigningInAdmins } from './admin-credentials.ts'
import { apiTokenSecret, hashSecret, accountTokenSecret } from './token-secret.ts'
import type {
  CreateApiTokenBody,
  CreateProjectApiTokenBody,
  CreateServiceAccountBody,
  CreateServiceAccountTokenBody,
} from './token-schemas.ts'

/** The project an api-token event is filed under: `*` for all projects, the one project, or null for several. */
const eventProject = (token: ApiToken) => (token.projects.length === 1 ? token.projects[0] : null)

const pastProblems = (expiresAt: string | null, path: string): ErrorDetail[] =>
  expiresAt && Date.parse(expiresAt) <= Date.now()
    ? [{ path, message: `The \`${path}\` property must be in the future. You sent ${quote(expiresAt)}.` }]
    : []

/** The rule of a token body beyond its schema (body-rules.ts): an expiry is in the future. */
export const expiresAtRule = field('expiresAt', pastProblems)

/** 400 for an expiry that has come already (a service with no route rule in front of it). */
export function checkNotPast(expiresAt: string | null | undefined, path: string): void {
  const problems = pastProblems(expiresAt ?? null, path)
  if (problems.length > 0) throw validationFailed(problems)
}

/** A non-admin token that reads this project by name (not through `*`): what a project's token routes see. */
export const ofProject = (project: string) => (token: ApiToken) => token.type !== 'admin' && token.projects.includes(project)

type NonAdminTokenType = 'client' | 'backend' | 'frontend'

/** Stores a new API token with its `api-token-created` event; the secret is returned, only its hash kept. */
async function insertApiToken(
  trx: Kysely<Database>,
  input: { tokenName: string; type: ApiToken['type']; environment: string; projects: string[]; expiresAt?: string | null },
  actor: Actor,
): Promise<ApiToken & { secret: string }> {
  const audit = auditContext(actor)
  const token: ApiToken = {
    tokenName: input.tokenName,
    type: input.type,
    environment: input.environment,
    projects: input.projects,
    expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
    createdAt: audit.createdAt,
  }
  const secret = apiTokenSecret(token.type, token.projects, token.environment)
  await createTokenStore(trx).insert(token, hashSecret(secret))
  await appendEvents(trx, audit, [{ type: 'api-token-created', project: eventProject(token), environment: token.environment, data: token }])
  return { ...token, secret }
}

/** What the start-up did about admin tokens (main.ts tells the operator). */
export type BootstrapOutcome =
  | { kind: 'nothing' }
  | { kind: 'stored'; tokenName: string; count: number }
  | { kind: 'generated'; tokenName: string; secret: string }
  /** Tokens exist, none can administer Pennon, and no INIT_ADMIN_API_TOKENS entry was new. */
  | { kind: 'locked-out' }

/** `admin` unless a token has that name, else `admin-2`, `admin-3`, …: a name of its own, so a delete by name touches only it. */
async function freeAdminName(trx: Kysely<Database>): Promise<string> {
  const taken = new Set(await createTokenStore(trx).namesLike('admin%'))
  if (!taken.has('admin')) return 'admin'
  let n = 2
  while (taken.has(`admin-${n}`)) n++
  return `admin-${n}`
}

/** Admin tokens the system creates (start-up, the command line), each with its event. */
async function storeSystemAdminTokens(trx: Kysely<Database>, tokenName: string, hashes: readonly string[]): Promise<void> {
  const audit = auditContext(SYSTEM_ACTOR, 'system')
  for (const hash of hashes) {
    const token: ApiToken = { tokenName, type: 'admin', environment: '*', projects: ['*'], expiresAt: null, createdAt: audit.createdAt }
    await createTokenStore(trx).insert(token, hash)
    await appendEvents(trx, audit, [{ type: 'api-token-created', project: '*', environment: '*', data: token }])
  }
}

export interface TokenServiceOptions {
  db: Kysely<Database>
  /** The users feature's part of the last-admin rule (admin-credentials.ts). */
  lockSigningInAdmins: LockSigningInAdmins
  /** Whether an environment of that name exists (environments/, above this folder). */
  environmentExists: (db: Kysely<Database>, name: string) => Promise<boolean>
}

export function createTokenService({ db, lockSigningInAdmins, environmentExists }: TokenServiceOptions) {
  const lockAdmins = (trx: Kysely<Database>) => lockAdminCredentials(trx, lockSigningInAdmins)
  /**
   * A client or frontend token reads one environment and some projects: a name that does not
   * exist (a typo) would make a token that answers no flags, which an SDK takes for all of them off.
   */
  const checkScope = async (trx: Kysely<Database>, environment: string, projects: readonly string[], projectsPath: string) => {
    if (environment !== '*' && !(await environmentExists(trx, environment)))
      throw invalid(`Environment ${quote(environment)} does not exist.`, '/body/environment')
    const named = projects.filter((project) => project !== '*')
    const held = await createProjectStore(trx).existing(named, { hold: true })
    const missing = named.find((project) => !held.has(project))
    if (missing !== undefined) throw invalid(`Project ${quote(missing)} does not exist.`, projectsPath)
  }
  return {
    /**
     * At start-up, when no API token exists or none can administer Pennon: store the
     * INIT_ADMIN_API_TOKENS not stored yet; or, with token auth on, an empty table and none
     * given, create one admin token (its secret is returned so it can be printed once). Tokens
     * that exist but can no longer administer are never replaced unasked: that outcome is
     * `locked-out`, and main.ts names the way back.
     */
    bootstrap: (initTokens: readonly string[], createIfMissing: boolean): Promise<BootstrapOutcome> =>
      db.transaction().execute(async (trx) => {
        const store = createTokenStore(trx)
        const empty = await store.isEmpty()
        const adminless = (await lockAdmins(trx)).length === 0
        if (!empty && !adminless) return { kind: 'nothing' }
        const hashes = await store.notStored([...new Set(initTokens.map(hashSecret))])
        if (hashes.length > 0) {
          const tokenName = await freeAdminName(trx)
          await storeSystemAdminTokens(trx, tokenName, hashes)
          return { kind: 'stored', tokenName, count: hashes.length }
        }
        if (!createIfMissing) return { kind: 'nothing' }
        if (!empty) return { kind: 'locked-out' }
        const secret = apiTokenSecret('admin', ['*'], '*')
        await storeSystemAdminTokens(trx, 'admin', [hashSecret(secret)])
        return { kind: 'generated', tokenName: 'admin', secret }
      }),

    /**
     * A new admin token, created by the system for an operator at the database
     * (`npm run admin-token`): named `tokenName`, or the first free of `admin`, `admin-2`, ….
     */
    mintAdminToken: (tokenName?: string): Promise<{ tokenName: string; secret: string }> =>
      db.transaction().execute(async (trx) => {
        const name = tokenName ?? (await freeAdminName(trx))
        const secret = apiTokenSecret('admin', ['*'], '*')
        await storeSystemAdminTokens(trx, name, [hashSecret(secret)])
        return { tokenName: name, secret }
      }),

    listApiTokens: () => createTokenStore(db).list(),

    createApiToken: (input: CreateApiTokenBody, actor: Actor): Promise<ApiToken & { secret: string }> => {
      checkNotPast(input.expiresAt, '/body/expiresAt')
      const { project, ...rest } = input
      // Dropping `project` would issue a token for every project to a caller who asked for one.
      if (project !== undefined && input.projects !== undefined)
        throw invalid('Send either `project` or `projects`, not both: `projects` lists every project the token reads.', '/body/project')
      const admin = input.type === 'admin'
      const projects = admin ? ['*'] : (input.projects ?? (project === undefined ? ['*'] : [project]))
      const environment = admin ? '*' : (input.environment ?? 'development')
      return db.transaction().execute(async (trx) => {
        if (!admin) await checkScope(trx, environment, projects, project === undefined ? '/body/projects' : '/body/project')
        return insertApiToken(trx, { ...rest, projects, environment }, actor)
      })
    },

    /** A project's non-admin tokens (never their secrets); 404 for an unknown project. */
    listProjectApiTokens: async (project: string): Promise<ApiToken[]> => {
      if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
      return (await createTokenStore(db).list()).filter(ofProject(project))
    },

    /** A token of one project, as createApiToken makes it (the same rules and event); the project is held while it is written. */
    createProjectApiToken: (project: string, input: CreateProjectApiTokenBody, actor: Actor): Promise<ApiToken & { secret: string }> => {
      checkNotPast(input.expiresAt, '/body/expiresAt')
      const type = input.type.toLowerCase() as NonAdminTokenType
      const environment = input.environment ?? 'development'
      return db.transaction().execute(async (trx) => {
        if (!(await createProjectStore(trx).hold(project))) throw projectNotFound(project)
        await checkScope(trx, environment, [], '/body/projects')
        return insertApiToken(trx, { ...input, type, projects: [project], environment }, actor)
      })
    },

    apiTokensByName: (tokenName: string) => createTokenStore(db).listByName(tokenName),

    /**
     * A new expiry for the API token whose secret is `secret` (Pennon keeps only its hash, so the
     * secret finds it); an unknown secret changes nothing, as the reference. A past expiry is refused.
     */
    updateApiTokenExpiry: (secret: string, expiresAt: string, actor: Actor): Promise<void> => {
      checkNotPast(expiresAt, '/body/expiresAt')
      return db.transaction().execute(async (trx) => {
        const changed = await createTokenStore(trx).setExpiry(hashSecret(secret), new Date(expiresAt).toISOString())
        if (!changed) return
        const { before, after } = changed
        await appendEvents(trx, auditContext(actor), [
          { type: 'api-token-updated', project: eventProject(after), environment: after.environment, data: after, preData: before },
        ])
      })
    },

    /**
     * Deletes the project's token whose secret this is: 404 when none of the project's tokens has
     * it, 400 when that token reads other projects too (only a token of this project alone goes here).
     */
    deleteProjectApiToken: (project: string, secret: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        if (!(await createProjectStore(trx).exists(project))) throw projectNotFound(project)
        const store = createTokenStore(trx)
        const secretHash = hashSecret(secret)
        const token = await store.findByHash(secretHash)
        if (!token || !ofProject(project)(token)) throw notFound(`Project ${quote(project)} has no API token with that secret.`)
        if (token.projects.length !== 1)
          throw invalid(
            `API token ${quote(token.tokenName)} belongs to several projects (${token.projects.map(quote).join(', ')}): delete it with DELETE /api/admin/api-tokens/:tokenName.`,
            '/params/token',
          )
        await store.deleteByHash(secretHash)
        await appendEvents(trx, auditContext(actor), [
          { type: 'api-token-deleted', project, environment: token.environment, preData: token },
        ])
      }),

    deleteApiToken: (tokenName: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const admins = await lockAdmins(trx)
        keepAnAdmin(
          admins,
          (credential) => credential.kind === 'api-token' && credential.tokenName === tokenName,
          `API token ${quote(tokenName)} is`,
        )
        const deleted = await createTokenStore(trx).deleteByName(tokenName)
        if (deleted.length === 0) throw notFound(`No API token is named ${quote(tokenName)}.`)
        const audit = auditContext(actor)
        await appendEvents(
          trx,
          audit,
          deleted.map((token) => ({
            type: 'api-token-deleted' as const,
            project: eventProject(token),
            environment: token.environment,
            preData: token,
          })),
        )
      }),

    listServiceAccounts: async (): Promise<ServiceAccountData[]> => {
      return createTokenStore(db).listServiceAccounts()
    },

    createServiceAccount: (input: CreateServiceAccountBody, actor: Actor): Promise<ServiceAccountData> =>
      db.transaction().execute(async (trx) => {
        const store = createTokenStore(trx)
        if (await store.serviceAccountUsernameTaken(input.username))
          throw nameExists(`A service account with username ${quote(input.username)} already exists.`)
        const audit = auditContext(actor)
        const account: ServiceAccountData = {
          id: await advanceCounter(trx, 'service_account_id'),
          username: input.username,
          name: input.name,
          rootRole: input.rootRole,
          createdAt: audit.createdAt,
        }
        try {
          await store.insertServiceAccount(account)
        } catch (error) {
          if (isUniqueViolation(error)) throw nameExists(`A service account with username ${quote(input.username)} already exists.`)
          throw error
        }
        await appendEvents(trx, audit, [{ type: 'service-account-created', data: account }])
        return account
      }),

    deleteServiceAccount: (id: number, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const admins = await lockAdmins(trx)
        const store = createTokenStore(trx)
        const account = await store.findServiceAccount(id)
        if (!account) throw notFound(`No service account has id ${id}.`)
        keepAnAdmin(
          admins,
          (credential) => credential.kind === 'service-account-token' && credential.accountId === id,
          `Service account ${quote(account.username)} holds`,
        )
        // Its tokens go with it (foreign key cascade), so they stop working at once.
        await store.deleteServiceAccount(id)
        await appendEvents(trx, auditContext(actor), [{ type: 'service-account-deleted', preData: account }])
      }),

    createServiceAccountToken: (accountId: number, input: CreateServiceAccountTokenBody, actor: Actor) => {
      checkNotPast(input.expiresAt, '/body/expiresAt')
      return db.transaction().execute(async (trx) => {
        const store = createTokenStore(trx)
        const account = await store.findServiceAccount(accountId)
        if (!account) throw notFound(`No service account has id ${accountId}.`)
        const audit = auditContext(actor)
        const secret = accountTokenSecret()
        const token = {
          id: await advanceCounter(trx, 'service_account_token_id'),
          description: input.description,
          expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
          createdAt: audit.createdAt,
        }
        await store.insertServiceAccountToken(accountId, token, hashSecret(secret))
        await appendEvents(trx, audit, [
          {
            type: 'service-account-token-created',
            data: { id: token.id, description: token.description, expiresAt: token.expiresAt, userId: accountId },
          },
        ])
        return { ...token, secret }
      })
    },
  }
}

export type TokenService = ReturnType<typeof createTokenService>
