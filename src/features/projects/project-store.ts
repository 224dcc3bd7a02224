import type { Kysely } from 'kysely'
import type { Database, ProjectsTable } from '../../db/tables.ts'
import type { ProjectData } from '../events/event-types.ts'
import { lockedRows } from '../../db/row-lock.ts'

export type Project = ProjectData

const toProject = (row: ProjectsTable): Project => ({ id: row.id, name: row.name, description: row.description, createdAt: row.created_at })

export function createProjectStore(db: Kysely<Database>) {
  return {
    /** `forUpdate` locks its row on PostgreSQL: what is written into the project (holding it FOR KEY SHARE) waits, then finds it gone. */
    async find(id: string, { forUpdate = false } = {}): Promise<Project | undefined> {
      const row = await db
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', id)
        .$call(lockedRows(db, { when: forUpdate }))
        .executeTakeFirst()
      return row && toProject(row)
    },
    async exists(id: string): Promise<boolean> {
      return (await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    },
    /** Whether the project exists; on PostgreSQL its row is held (FOR KEY SHARE) so it cannot go before what is written into it commits. */
    async hold(id: string): Promise<boolean> {
      const row = await db
        .selectFrom('projects')
        .select('id')
        .where('id', '=', id)
        .$call(lockedRows(db, { mode: 'key-share' }))
        .executeTakeFirst()
      return row !== undefined
    },
    /** Which of these ids are projects; `hold`: their rows held as `hold` holds one, in id order. */
    async existing(ids: readonly string[], { hold = false } = {}): Promise<Set<string>> {
      if (ids.length === 0) return new Set()
      const rows = await db
        .selectFrom('projects')
        .select('id')
        .where('id', 'in', [...ids])
        .orderBy('id')
        .$call(lockedRows(db, { mode: 'key-share', when: hold }))
        .execute()
      return new Set(rows.map((row) => row.id))
    },
    async list(): Promise<Project[]> {
      return (await db.selectFrom('projects').selectAll().orderBy('id').execute()).map(toProject)
    },
    async insert(project: Project): Promise<void> {
      await db
        .insertInto('projects')
        .values({ id: project.id, name: project.name, description: project.description, created_at: project.createdAt })
        .execute()
    },
    async update(project: Pick<Project, 'id' | 'name' | 'description'>): Promise<void> {
      await db.updateTable('projects').set({ name: project.name, description: project.description }).where('id', '=', project.id).execute()
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('projects').where('id', '=', id).execute()
    },
  }
}
