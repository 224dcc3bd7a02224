import type { Kysely } from 'kysely'
import type { Database, EnvironmentsTable } from '../../db/tables.ts'
import type { EnvironmentData } from '../events/event-types.ts'
import { lockedRows } from '../../db/row-lock.ts'

export type Environment = EnvironmentData

/** An environment with what uses it, as `GET /api/admin/environments` shows it. */
export interface EnvironmentWithCounts extends Environment {
  projectCount: number
  apiTokenCount: number
  enabledToggleCount: number
}

const toEnvironment = (row: EnvironmentsTable): Environment => ({
  name: row.name,
  type: row.type,
  enabled: Boolean(row.enabled),
  protected: Boolean(row.protected),
  sortOrder: Number(row.sort_order),
})

/** Every environment's name, type and sort order, as a subquery another folder's query joins. */
export function environmentRows(db: Kysely<Database>) {
  return db.selectFrom('environments').select(['name', 'type', 'sort_order'])
}

/** The environments of a project, as a subquery. */
export function environmentsOfProject(db: Kysely<Database>, project: string) {
  return db.selectFrom('project_environments').select('environment').where('project', '=', project)
}

export function createEnvironmentStore(db: Kysely<Database>) {
  return {
    /** Every environment's name. */
    async names(): Promise<string[]> {
      return (await db.selectFrom('environments').select('name').execute()).map((row) => row.name)
    },

    /** Which of these names are environments. */
    async existing(names: readonly string[]): Promise<Set<string>> {
      if (names.length === 0) return new Set()
      const rows = await db
        .selectFrom('environments')
        .select('name')
        .where('name', 'in', [...names])
        .execute()
      return new Set(rows.map((row) => row.name))
    },

    /** These environments, locked until the transaction ends (PostgreSQL; SQLite writers run one at a time), by name. */
    async lockMany(names: readonly string[]): Promise<Map<string, Environment>> {
      if (names.length === 0) return new Map()
      const rows = await db
        .selectFrom('environments')
        .selectAll()
        .where('name', 'in', [...names])
        .$call(lockedRows(db))
        .execute()
      return new Map(rows.map((row) => [row.name, toEnvironment(row)]))
    },

    async setEnabled(name: string, enabled: boolean): Promise<void> {
      await db.updateTable('environments').set({ enabled }).where('name', '=', name).execute()
    },

    async setSortOrder(name: string, sortOrder: number): Promise<void> {
      await db.updateTable('environments').set({ sort_order: sortOrder }).where('name', '=', name).execute()
    },

    async find(name: string): Promise<Environment | undefined> {
      const row = await db.selectFrom('environments').selectAll().where('name', '=', name).executeTakeFirst()
      return row && toEnvironment(row)
    },

    /** Every environment with its project count, by sort order then name; `name` narrows it to one. */
    async listWithProjectCounts(name?: string): Promise<Array<Environment & { projectCount: number }>> {
      const rows = await db
        .selectFrom('environments')
        .selectAll('environments')
        .select((eb) => [
          eb
            .selectFrom('project_environments')
            .select(eb.fn.countAll<number>().as('n'))
            .whereRef('project_environments.environment', '=', 'environments.name')
            .as('project_count'),
        ])
        .$if(name !== undefined, (query) => query.where('environments.name', '=', name!))
        .orderBy('sort_order')
        .orderBy('name')
        .execute()
      return rows.map((row) => ({
        ...toEnvironment(row),
        projectCount: Number(row.project_count),
      }))
    },

    async nextSortOrder(): Promise<number> {
      const row = await db
        .selectFrom('environments')
        .select((eb) => eb.fn.max('sort_order').as('max'))
        .executeTakeFirst()
      return Number(row?.max ?? 0) + 1
    },

    async insert(environment: Environment, createdAt: string): Promise<void> {
      await db
        .insertInto('environments')
        .values({
          name: environment.name,
          type: environment.type,
          sort_order: environment.sortOrder,
          enabled: environment.enabled,
          protected: environment.protected,
          created_at: createdAt,
        })
        .execute()
    },

    /** Every environment, by sort order then name, whether the project has it, and its default strategy there (JSON text). */
    async forProject(project: string): Promise<Array<Environment & { visible: boolean; defaultStrategy: string | null }>> {
      const rows = await db
        .selectFrom('environments')
        .leftJoin('project_environments', (join) =>
          join.onRef('project_environments.environment', '=', 'environments.name').on('project_environments.project', '=', project),
        )
        .selectAll('environments')
        .select(['project_environments.project', 'project_environments.default_strategy'])
        .orderBy('sort_order')
        .orderBy('name')
        .execute()
      return rows.map((row) => ({ ...toEnvironment(row), visible: row.project !== null, defaultStrategy: row.default_strategy ?? null }))
    },

    /** A new project starts in every enabled environment (the projects feature calls it through app.ts). */
    async connectNewProject(project: string): Promise<void> {
      await db
        .insertInto('project_environments')
        .columns(['project', 'environment'])
        .expression((eb) =>
          eb
            .selectFrom('environments')
            .select([eb.val(project).as('project'), 'name'])
            .where('enabled', '=', true),
        )
        .execute()
    },

    /**
     * The names of a project's environments, their rows locked until the transaction ends on
     * PostgreSQL (SQLite writers already run one at a time): two removals cannot both see two left.
     */
    async lockProjectEnvironments(project: string): Promise<string[]> {
      const rows = await db
        .selectFrom('project_environments')
        .select('environment')
        .where('project', '=', project)
        .orderBy('environment')
        .$call(lockedRows(db))
        .execute()
      return rows.map((row) => row.environment)
    },

    /** A new project joins every enabled environment (ProjectContents, handed to projects/ by app.ts). */
    async joinEnabledEnvironments(project: string): Promise<void> {
      await db
        .insertInto('project_environments')
        .columns(['project', 'environment'])
        .expression((eb) =>
          eb
            .selectFrom('environments')
            .select([eb.val(project).as('project'), 'name'])
            .where('enabled', '=', true),
        )
        .execute()
    },

    async inProject(project: string, environment: string): Promise<boolean> {
      const row = await db
        .selectFrom('project_environments')
        .select('environment')
        .where('project', '=', project)
        .where('environment', '=', environment)
        .executeTakeFirst()
      return row !== undefined
    },

    /** Adds an environment to a project (its flags' rows: FlagsOfEnvironments.addToProject). False when it was there already. */
    async addToProject(project: string, environment: string): Promise<boolean> {
      const added = await db
        .insertInto('project_environments')
        .values({ project, environment })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst()
      return Number(added.numInsertedOrUpdatedRows ?? 0n) > 0
    },

    /** Removes it from the project (its flags' rows first: FlagsOfEnvironments.removeFromProject). False when it was not there. */
    async removeFromProject(project: string, environment: string): Promise<boolean> {
      const removed = await db
        .deleteFrom('project_environments')
        .where('project', '=', project)
        .where('environment', '=', environment)
        .executeTakeFirst()
      return removed.numDeletedRows > 0n
    },

    /**
     * The project's default strategy in an environment (JSON text; null: none set), or undefined
     * when the environment is not the project's. `lock`: its row held until the transaction ends
     * on PostgreSQL, so two changes write their events in the order they wrote the strategy.
     */
    async defaultStrategy(project: string, environment: string, { lock = false } = {}): Promise<string | null | undefined> {
      const row = await db
        .selectFrom('project_environments')
        .select('default_strategy')
        .where('project', '=', project)
        .where('environment', '=', environment)
        .$call(lockedRows(db, { when: lock }))
        .executeTakeFirst()
      return row?.default_strategy
    },

    async setDefaultStrategy(project: string, environment: string, strategy: string): Promise<void> {
      await db
        .updateTable('project_environments')
        .set({ default_strategy: strategy })
        .where('project', '=', project)
        .where('environment', '=', environment)
        .execute()
    },
  }
}

export type EnvironmentStore = ReturnType<typeof createEnvironmentStore>

/** Whether an environment of that name exists: what API tokens (api-tokens/, below this folder) are given to ask. */
export const environmentExists = async (db: Kysely<Database>, name: string): Promise<boolean> =>
  (await createEnvironmentStore(db).find(name)) !== undefined
