/** change_request_settings: a row per protected environment of a project (no row: changes there are direct). */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { environmentRows, environmentsOfProject } from '../environments/environment-store.ts'

export interface EnvironmentSettings {
  environment: string
  type: string
  changeRequestEnabled: boolean
  requiredApprovals: number
}

/** A protected environment's approvals, by `project\0environment`. */
export type ProtectedEnvironments = ReadonlyMap<string, number>

export const protectedKey = (project: string, environment: string): string => `${project}\0${environment}`

export function createSettingsStore(db: Kysely<Database>) {
  return {
    /** The project's environments in their sort order, each with its setting (the reference's default: 1 approval). */
    async listForProject(project: string): Promise<EnvironmentSettings[]> {
      const rows = await db
        .selectFrom(environmentRows(db).as('e'))
        .leftJoin('change_request_settings as s', (join) => join.onRef('s.environment', '=', 'e.name').on('s.project', '=', project))
        .select(['e.name', 'e.type', 's.required_approvals'])
        .where('e.name', 'in', environmentsOfProject(db, project))
        .orderBy('e.sort_order')
        .orderBy('e.name')
        .execute()
      return rows.map((row) => ({
        environment: row.name,
        type: row.type,
        changeRequestEnabled: row.required_approvals !== null,
        requiredApprovals: row.required_approvals === null ? 1 : Number(row.required_approvals),
      }))
    },

    /** The approvals a request in this environment needs, or undefined when it is not protected. */
    async find(project: string, environment: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('change_request_settings')
        .select('required_approvals')
        .where('project', '=', project)
        .where('environment', '=', environment)
        .executeTakeFirst()
      return row === undefined ? undefined : Number(row.required_approvals)
    },

    /** Every protected environment (a handful of rows: what the gate remembers). */
    async all(): Promise<ProtectedEnvironments> {
      const rows = await db.selectFrom('change_request_settings').select(['project', 'environment', 'required_approvals']).execute()
      return new Map(rows.map((row) => [protectedKey(row.project, row.environment), Number(row.required_approvals)]))
    },

    async put(project: string, environment: string, requiredApprovals: number): Promise<void> {
      await db
        .insertInto('change_request_settings')
        .values({ project, environment, required_approvals: requiredApprovals })
        .onConflict((c) => c.columns(['project', 'environment']).doUpdateSet({ required_approvals: requiredApprovals }))
        .execute()
    },

    async remove(project: string, environment: string): Promise<void> {
      await db.deleteFrom('change_request_settings').where('project', '=', project).where('environment', '=', environment).execute()
    },
  }
}
