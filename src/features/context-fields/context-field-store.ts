import type { Kysely } from 'kysely'
import type { ContextFieldsTable, Database } from '../../db/tables.ts'
import type { ContextFieldData } from '../events/event-types.ts'
import { lockedRows } from '../../db/row-lock.ts'
import { createProjectStore } from '../projects/project-store.ts'

/** A context field as the API shows it (GET /api/admin/context/:name). */
export type ContextField = ContextFieldData

/** How many active flags, and projects, constrain on a field through their strategies. */
export interface FieldUsage {
  features: number
  projects: number
}

export interface StrategyUsingField {
  id: string
  projectId: string
  featureName: string
  strategyName: string
  environment: string
}

const toField = (row: ContextFieldsTable): ContextField => ({
  name: row.name,
  description: row.description,
  stickiness: Boolean(row.stickiness),
  sortOrder: row.sort_order,
  legalValues: JSON.parse(row.legal_values),
  createdAt: row.created_at,
  ...(row.project === null ? {} : { project: row.project }),
})

const toRow = (field: ContextField): ContextFieldsTable => ({
  name: field.name,
  description: field.description,
  stickiness: field.stickiness,
  sort_order: field.sortOrder,
  legal_values: JSON.stringify(field.legalValues),
  project: field.project ?? null,
  created_at: field.createdAt,
})

export function createContextFieldStore(db: Kysely<Database>) {
  return {
    /** Every field (`project`: only that project's, and with `orRoot` every project's too), by name. */
    async list(filter: { project: string | null | 'any'; orRoot?: boolean }): Promise<ContextField[]> {
      const rows = await db
        .selectFrom('context_fields')
        .selectAll()
        .$if(filter.project === null, (query) => query.where('project', 'is', null))
        .$if(typeof filter.project === 'string' && filter.project !== 'any', (query) =>
          query.where((eb) =>
            filter.orRoot ? eb.or([eb('project', '=', filter.project), eb('project', 'is', null)]) : eb('project', '=', filter.project),
          ),
        )
        .orderBy('name')
        .execute()
      return rows.map(toField)
    },

    /** `forUpdate` locks its row on PostgreSQL until the transaction ends (legal values are read, changed and written back). */
    async find(name: string, { forUpdate = false } = {}): Promise<ContextField | undefined> {
      const row = await db
        .selectFrom('context_fields')
        .selectAll()
        .where('name', '=', name)
        .$call(lockedRows(db, { when: forUpdate }))
        .executeTakeFirst()
      return row && toField(row)
    },

    /** Whether a project has a context field of its own: a bounded read (ProjectContents). */
    async anyInProject(project: string): Promise<boolean> {
      return (await db.selectFrom('context_fields').select('name').where('project', '=', project).limit(1).executeTakeFirst()) !== undefined
    },

    async exists(name: string): Promise<boolean> {
      return (await db.selectFrom('context_fields').select('name').where('name', '=', name).executeTakeFirst()) !== undefined
    },

    async insert(field: ContextField): Promise<void> {
      await db.insertInto('context_fields').values(toRow(field)).execute()
    },

    async update(field: ContextField): Promise<void> {
      const { name, created_at: _createdAt, ...changes } = toRow(field)
      await db.updateTable('context_fields').set(changes).where('name', '=', name).execute()
    },

    async delete(name: string): Promise<void> {
      await db.deleteFrom('context_fields').where('name', '=', name).execute()
    },

    /** Whether the project exists, held until the change commits (projects/ project-store.ts: hold). */
    holdProject: (id: string): Promise<boolean> => createProjectStore(db).hold(id),
  }
}

export type ContextFieldStore = ReturnType<typeof createContextFieldStore>
