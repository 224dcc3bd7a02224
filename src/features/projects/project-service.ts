import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { checkUrlFriendlyName } from '../../http/common-schemas.ts'
import { invalidOperation, nameExists } from '../../http/errors.ts'
import { isUniqueViolation } from '../../db/db-errors.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { projectNotFound } from './project-errors.ts'
import { createProjectStore, type Project } from './project-store.ts'
import type { CreateProjectBody, UpdateProjectBody } from './project-schemas.ts'
import type { ProjectContents } from './project-contents.ts'
import type { Principal } from '../../http/permissions.ts'

export function createProjectService({ db, contents }: { db: Kysely<Database>; contents: ProjectContents }) {
  return {
    /** Every project, each with whether it is a favorite of the caller. */
    list: async (caller: Principal) => {
      const [projects, favorites] = await Promise.all([createProjectStore(db).list(), contents.favoritesOf(db, caller)])
      return projects.map((project) => ({ ...project, favorite: favorites.has(project.id) }))
    },

    create: (input: CreateProjectBody, actor: Actor): Promise<Project> => {
      checkUrlFriendlyName(input.id, '/body/id')
      return db.transaction().execute(async (trx) => {
        const store = createProjectStore(trx)
        if (await store.exists(input.id)) throw nameExists(`A project with id "${input.id}" already exists.`)
        const audit = auditContext(actor)
        const project: Project = { id: input.id, name: input.name, description: input.description || null, createdAt: audit.createdAt }
        try {
          await store.insert(project)
        } catch (error) {
          // Two creates raced past the check above: the primary key decides.
          if (isUniqueViolation(error)) throw nameExists(`A project with id "${input.id}" already exists.`)
          throw error
        }
        await contents.joinEnabledEnvironments(trx, project.id)
        await appendEvents(trx, audit, [{ type: 'project-created', project: project.id, data: project }])
        return project
      })
    },

    /** Name and description; event `project-updated` (data after, preData before), none when nothing changes. */
    update: (id: string, input: UpdateProjectBody, actor: Actor): Promise<Project> =>
      db.transaction().execute(async (trx) => {
        const store = createProjectStore(trx)
        const before = await store.find(id)
        if (!before) throw projectNotFound(id)
        const after: Project = { ...before, name: input.name, description: input.description || null }
        if (after.name === before.name && after.description === before.description) return before
        await store.update(after)
        await appendEvents(trx, auditContext(actor), [{ type: 'project-updated', project: id, data: after, preData: before }])
        return after
      }),

    delete: (id: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createProjectStore(trx)
        // Locked first, so a context field written into it meanwhile is either seen below or finds it gone.
        const project = await store.find(id, { forUpdate: true })
        if (!project) throw projectNotFound(id)
        if (id === 'default') throw invalidOperation('The "default" project cannot be deleted.')
        // Each a bounded read, never a scan.
        if (await contents.holdsFlag(trx, id, false))
          throw invalidOperation(`Project "${id}" still holds feature flags: archive and delete them first.`)
        if (await contents.holdsFlag(trx, id, true)) {
          throw invalidOperation(
            `Project "${id}" still holds archived feature flags: delete them first (POST /api/admin/projects/${id}/delete).`,
          )
        }
        if (await contents.holdsSegment(trx, id))
          throw invalidOperation(`Project "${id}" still has segments: delete them or move them first.`)
        if (await contents.holdsContextField(trx, id))
          throw invalidOperation(`Project "${id}" still has context fields of its own: delete them or move them first.`)
        await store.delete(id)
        await appendEvents(trx, auditContext(actor), [{ type: 'project-deleted', project: id, preData: project }])
      }),
  }
}

export type ProjectService = ReturnType<typeof createProjectService>
