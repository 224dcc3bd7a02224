import type { Kysely } from 'kysely'
import { isUniqueViolation } from '../../db/db-errors.ts'
import type { Database } from '../../db/tables.ts'
import { ALL_CLEAN, allOf, field } from '../../http/body-rules.ts'
import { urlFriendlyNameProblems } from '../../http/common-schemas.ts'
import { invalidOperation, nameExists, notFound, quote, validationFailed, type AppError } from '../../http/errors.ts'
import { createTokenStore } from '../api-tokens/token-store.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import type { CreateEnvironmentBody } from './environment-schemas.ts'
import type { FlagsOfEnvironments } from './flags-of-environments.ts'
import { createEnvironmentStore, type Environment, type EnvironmentWithCounts } from './environment-store.ts'

export const environmentNotFound = (name: string): AppError => notFound(`Environment ${quote(name)} does not exist.`)

/** An environment named in a flag's path must be one of the flag's project's environments. */
export const environmentNotInProject = (environment: string, project: string): AppError =>
  notFound(`Environment ${quote(environment)} is not one of project ${quote(project)}'s environments.`)

/** The rules of a create body beyond its schema (body-rules.ts): name and type are URL-friendly. */
export const createEnvironmentRules = allOf(field('name', urlFriendlyNameProblems), field('type', urlFriendlyNameProblems))

const withoutApprovals = (environment: EnvironmentWithCounts) => ({ ...environment, requiredApprovals: null })

export function createEnvironmentService({ db, flags }: { db: Kysely<Database>; flags: FlagsOfEnvironments }) {
  /** Every environment (`name`: that one) with what uses it: projects, API tokens, enabled active flags. */
  async function listWithCounts(name?: string): Promise<EnvironmentWithCounts[]> {
    const [environments, tokens, enabled] = await Promise.all([
      createEnvironmentStore(db).listWithProjectCounts(name),
      createTokenStore(db).countByEnvironment(),
      flags.enabledCounts(db),
    ])
    return environments.map((environment) => ({
      ...environment,
      apiTokenCount: tokens.get(environment.name) ?? 0,
      enabledToggleCount: enabled.get(environment.name) ?? 0,
    }))
  }

  return {
    list: async () => (await listWithCounts()).map(withoutApprovals),

    get: async (name: string) => {
      const [environment] = await listWithCounts(name)
      if (!environment) throw environmentNotFound(name)
      return withoutApprovals(environment)
    },

    create: (input: CreateEnvironmentBody, actor: Actor): Promise<Environment> => {
      const problems = createEnvironmentRules(input, ALL_CLEAN)
      if (problems.length > 0) throw validationFailed(problems)
      const taken = () => nameExists(`An environment named ${quote(input.name)} already exists.`)
      return db.transaction().execute(async (trx) => {
        const store = createEnvironmentStore(trx)
        if (await store.find(input.name)) throw taken()
        const audit = auditContext(actor)
        const environment: Environment = {
          name: input.name,
          type: input.type,
          enabled: input.enabled ?? true,
          protected: false,
          sortOrder: input.sortOrder ?? (await store.nextSortOrder()),
        }
        try {
          await store.insert(environment, audit.createdAt)
        } catch (error) {
          // Two creates raced past the check above: the primary key decides.
          if (isUniqueViolation(error)) throw taken()
          throw error
        }
        await appendEvents(trx, audit, [{ type: 'environment-created', environment: environment.name, data: environment }])
        return environment
      })
    },

    /** Switches an environment on or off for the whole instance; the same again changes nothing (no event). */
    setEnabled: (name: string, enabled: boolean, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createEnvironmentStore(trx)
        const before = (await store.lockMany([name])).get(name)
        if (!before) throw environmentNotFound(name)
        if (before.enabled === enabled) return
        await store.setEnabled(name, enabled)
        const after = { ...before, enabled }
        await appendEvents(trx, auditContext(actor), [{ type: 'environment-updated', environment: name, data: after, preData: before }])
      }),

    /** New sort orders by environment name, all or none: an unknown name is a 404. Unchanged ones record nothing. */
    setSortOrders: (sortOrders: Readonly<Record<string, number>>, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createEnvironmentStore(trx)
        const names = Object.keys(sortOrders).sort()
        const found = await store.lockMany(names)
        const unknown = names.find((name) => !found.has(name))
        if (unknown !== undefined) throw environmentNotFound(unknown)
        const events = []
        for (const name of names) {
          const before = found.get(name)!
          const sortOrder = sortOrders[name]!
          if (before.sortOrder === sortOrder) continue
          await store.setSortOrder(name, sortOrder)
          events.push({ type: 'environment-updated' as const, environment: name, data: { ...before, sortOrder }, preData: before })
        }
        await appendEvents(trx, auditContext(actor), events)
      }),

    listForProject: async (project: string) => {
      if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
      const store = createEnvironmentStore(db)
      const [environments, enabled, tokens] = await Promise.all([
        store.forProject(project),
        flags.enabledCounts(db, project),
        createTokenStore(db).list(),
      ])
      // Client and frontend tokens that can read this project, per environment (admin tokens read everything anyway).
      const readers = tokens.filter((token) => token.type !== 'admin' && (token.projects.includes('*') || token.projects.includes(project)))
      return environments.map(({ visible, defaultStrategy, ...environment }) => ({
        ...environment,
        visible,
        projectApiTokenCount: readers.filter((token) => token.environment === environment.name || token.environment === '*').length,
        projectEnabledToggleCount: enabled.get(environment.name) ?? 0,
        // The project's default strategy there, as it was set (flag-environments/default-strategy-service.ts).
        ...(defaultStrategy === null ? {} : { defaultStrategy: JSON.parse(defaultStrategy) as { name: string } }),
      }))
    },

    addToProject: (project: string, environment: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        if (!(await createProjectStore(trx).exists(project))) throw projectNotFound(project)
        const store = createEnvironmentStore(trx)
        if (!(await store.find(environment))) throw environmentNotFound(environment)
        if (!(await store.addToProject(project, environment))) {
          throw nameExists(`Environment ${quote(environment)} is already one of project ${quote(project)}'s environments.`)
        }
        await flags.addToProject(trx, project, environment)
        await appendEvents(trx, auditContext(actor), [{ type: 'project-environment-added', project, environment }])
      }),

    /** The project's flags lose their state and strategies there; a project keeps at least one environment. */
    removeFromProject: (project: string, environment: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        if (!(await createProjectStore(trx).exists(project))) throw projectNotFound(project)
        const store = createEnvironmentStore(trx)
        const current = await store.lockProjectEnvironments(project)
        if (!current.includes(environment)) throw environmentNotInProject(environment, project)
        if (current.length === 1)
          throw invalidOperation(
            `Environment ${quote(environment)} is project ${quote(project)}'s last environment: a project keeps at least one.`,
          )
        await flags.removeFromProject(trx, project, environment)
        await store.removeFromProject(project, environment)
        await appendEvents(trx, auditContext(actor), [{ type: 'project-environment-removed', project, environment }])
      }),
  }
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>
