/**
 * Where changes need change requests: per environment of a project (the reference's
 * change_request_settings), and the gate every direct change of a flag environment passes
 * (flag-environments/change-request-gate.ts). The gate remembers the protected environments while
 * the change watch says nothing changed, as maintenance mode is remembered (maintenance-service.ts):
 * a direct change pays a query only after some change, by this instance or another.
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { forbidden, quote } from '../../http/errors.ts'
import { environmentNotFound, environmentNotInProject } from '../environments/environment-service.ts'
import { createEnvironmentStore } from '../environments/environment-store.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { ChangeRequestGate } from '../flag-environments/change-request-gate.ts'
import type { ProjectChangeRequestGate } from '../flags/change-request-gate.ts'
import type { SegmentChangeRequestGate } from '../segments/change-request-gate.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { createSettingsStore, protectedKey, type EnvironmentSettings, type ProtectedEnvironments } from './settings-store.ts'

/** The answer to a direct change where the environment needs a change request: the reference's 403 for SKIP_CHANGE_REQUEST. */
export const changeRequestRequired = (project: string, environment: string) =>
  forbidden(
    `Missing permission: this operation needs "SKIP_CHANGE_REQUEST" in the ${quote(environment)} environment: changes there need a change request (project ${quote(project)}).`,
    ['SKIP_CHANGE_REQUEST'],
  )

/**
 * The answer to a direct change of a flag as a whole (archiving it, its dependencies) while an
 * environment of its project needs change requests: the reference's 403 for SKIP_CHANGE_REQUEST.
 */
export const projectChangeRequestRequired = (project: string, environment: string) =>
  forbidden(
    `Missing permission: this operation needs "SKIP_CHANGE_REQUEST": project ${quote(project)} needs change requests (in the ${quote(environment)} environment), so archiving its flags and changing their dependencies go through a change request.`,
    ['SKIP_CHANGE_REQUEST'],
  )

/** The answer to a direct change of a project's segment while an environment of its project needs change requests, as the reference's. */
export const segmentChangeRequestRequired = (project: string, environment: string) =>
  forbidden(
    `Missing permission: this operation needs "SKIP_CHANGE_REQUEST": project ${quote(project)} needs change requests (in the ${quote(environment)} environment), so its segments change through a change request.`,
    ['SKIP_CHANGE_REQUEST'],
  )

/** 404 unless the project exists and has the environment. */
export async function checkProjectEnvironment(db: Kysely<Database>, project: string, environment: string): Promise<void> {
  if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
  const environments = createEnvironmentStore(db)
  if (await environments.inProject(project, environment)) return
  throw (await environments.find(environment)) ? environmentNotInProject(environment, project) : environmentNotFound(environment)
}

export function createChangeRequestSettings({ db, changes }: { db: Kysely<Database>; changes: ChangeWatch }) {
  let remembered: { version: number; environments: ProtectedEnvironments } | undefined

  /** The protected environments, read through `trx` unless remembered at the current change version. */
  async function protectedEnvironments(trx: Kysely<Database>): Promise<ProtectedEnvironments> {
    const version = changes.version('settings')
    if (version !== undefined && remembered?.version === version) return remembered.environments
    const environments = await createSettingsStore(trx).all()
    // Kept only if nothing changed while it was read.
    if (version !== undefined && changes.version('settings') === version) remembered = { version, environments }
    return environments
  }

  /** The first environment of `project` that needs change requests (one it has: a setting can outlive its environment's removal). */
  async function protectedEnvironmentOf(trx: Kysely<Database>, project: string): Promise<string | undefined> {
    const prefix = protectedKey(project, '')
    for (const key of (await protectedEnvironments(trx)).keys()) {
      if (!key.startsWith(prefix)) continue
      const environment = key.slice(prefix.length)
      if (await createEnvironmentStore(trx).inProject(project, environment)) return environment
    }
    return undefined
  }

  const gate: ChangeRequestGate & ProjectChangeRequestGate & SegmentChangeRequestGate = {
    async check(trx, place, audit) {
      if (audit.skipsChangeRequests) return
      if ((await protectedEnvironments(trx)).has(protectedKey(place.project, place.environment)))
        throw changeRequestRequired(place.project, place.environment)
    },

    /** As the reference: any environment of the project that needs change requests. */
    async checkProject(trx, project, audit) {
      if (audit.skipsChangeRequests) return
      const environment = await protectedEnvironmentOf(trx, project)
      if (environment !== undefined) throw projectChangeRequestRequired(project, environment)
    },

    /** As the reference: a project's segment changes directly only while no environment of its project needs change requests. */
    async checkSegmentProject(trx, project, audit) {
      if (audit.skipsChangeRequests) return
      const environment = await protectedEnvironmentOf(trx, project)
      if (environment !== undefined) throw segmentChangeRequestRequired(project, environment)
    },
  }

  return {
    gate,

    list: async (project: string): Promise<EnvironmentSettings[]> => {
      if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
      return createSettingsStore(db).listForProject(project)
    },

    /** PUT …/environments/:environment/change-requests/config; event change-request-configuration-updated when something changed. */
    put: (project: string, environment: string, input: { changeRequestsEnabled: boolean; requiredApprovals?: number }, actor: Actor) =>
      db.transaction().execute(async (trx) => {
        await checkProjectEnvironment(trx, project, environment)
        const store = createSettingsStore(trx)
        const before = await store.find(project, environment)
        const requiredApprovals = input.requiredApprovals ?? before ?? 1
        if (input.changeRequestsEnabled) await store.put(project, environment, requiredApprovals)
        else await store.remove(project, environment)
        const describe = (approvals: number | undefined) => ({
          changeRequestsEnabled: approvals !== undefined,
          requiredApprovals: approvals ?? 1,
        })
        await appendEvents(trx, auditContext(actor), [
          {
            type: 'change-request-configuration-updated',
            project,
            environment,
            data: describe(input.changeRequestsEnabled ? requiredApprovals : undefined),
            preData: describe(before),
          },
        ])
      }),
  }
}

export type ChangeRequestSettings = ReturnType<typeof createChangeRequestSettings>
