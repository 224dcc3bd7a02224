/**
 * The read model of the personal dashboard: the flags a person created, the projects they
 * created, the instance's admins, and projects by id. One query each (the reference reads its
 * role and favorite tables; Pennon keeps who created what in the events). Reads only.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export interface PersonalFlag {
  name: string
  project: string
  type: string
}

export interface Admin {
  id: number
  name: string | null
  username: string | null
  email: string | null
}

/** The reference's limit on the dashboard's flags. */
const FLAGS_LIMIT = 100

export function createPersonalDashboardStore(db: Kysely<Database>) {
  return {
    /**
     * The active flags this person created (`user`: their id and the name their events carry, so a
     * service account with the same id is not taken for them), newest first. A flag's creation
     * event is the one written at or after its creation time: an earlier flag of the same name,
     * since deleted, had its own.
     */
    async flagsCreatedBy(user: { id: number; name: string }): Promise<PersonalFlag[]> {
      const rows = await db
        .selectFrom('events as e')
        .innerJoin('features as f', 'f.name', 'e.feature_name')
        .select(['f.name', 'f.project', 'f.type'])
        .distinct()
        .where('e.created_by_user_id', '=', user.id)
        .where('e.type', '=', 'feature-created')
        .where('e.created_by', '=', user.name)
        .where('f.archived_at', 'is', null)
        .whereRef('e.created_at', '>=', 'f.created_at')
        .select('f.created_at')
        .orderBy('f.created_at', 'desc')
        .orderBy('f.name')
        .limit(FLAGS_LIMIT)
        .execute()
      return rows.map((row) => ({ name: row.name, project: row.project, type: row.type }))
    },

    /** The projects this person wrote a `project-created` event for (the latest creator decides: projectCreators). */
    async projectsCreatedBy(user: { id: number; name: string }): Promise<string[]> {
      const rows = await db
        .selectFrom('events')
        .select('project')
        .distinct()
        .where('created_by_user_id', '=', user.id)
        .where('type', '=', 'project-created')
        .where('created_by', '=', user.name)
        .execute()
      return rows.flatMap((row) => (row.project === null ? [] : [row.project]))
    },

    /** These projects' names, by id. */
    async projectNames(ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map()
      const rows = await db
        .selectFrom('projects')
        .select(['id', 'name'])
        .where('id', 'in', [...ids])
        .execute()
      return new Map(rows.map((row) => [row.id, row.name]))
    },

    /** Users with the Admin root role, by id. */
    async admins(): Promise<Admin[]> {
      const rows = await db
        .selectFrom('users')
        .select(['id', 'name', 'username', 'email'])
        .where('root_role', '=', 1)
        .orderBy('id')
        .execute()
      return rows.map((row) => ({ id: Number(row.id), name: row.name, username: row.username, email: row.email }))
    },
  }
}
