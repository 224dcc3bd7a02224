import type { Kysely } from 'kysely'
import type { AddonsTable, Database } from '../../db/tables.ts'
import { lockedRows } from '../../db/row-lock.ts'

export type ParameterValue = string | number | boolean

/** An integration as stored: its parameters with their secrets. */
export interface StoredAddon {
  id: number
  provider: string
  description: string | null
  enabled: boolean
  parameters: Record<string, ParameterValue>
  events: string[]
  projects: string[]
  environments: string[]
  createdAt: string
}

export type AddonFields = Omit<StoredAddon, 'id' | 'createdAt'>

type Row = Omit<AddonsTable, 'id'> & { id: number }

const toAddon = (row: Row): StoredAddon => ({
  id: Number(row.id),
  provider: row.provider,
  description: row.description,
  enabled: Boolean(row.enabled),
  parameters: JSON.parse(row.parameters) as Record<string, ParameterValue>,
  events: JSON.parse(row.events) as string[],
  projects: JSON.parse(row.projects) as string[],
  environments: JSON.parse(row.environments) as string[],
  createdAt: new Date(row.created_at).toISOString(),
})

const toColumns = (addon: AddonFields) => ({
  provider: addon.provider,
  description: addon.description,
  enabled: addon.enabled,
  parameters: JSON.stringify(addon.parameters),
  events: JSON.stringify(addon.events),
  projects: JSON.stringify(addon.projects),
  environments: JSON.stringify(addon.environments),
})

export function createAddonStore(db: Kysely<Database>) {
  return {
    /** By id. */
    async list(): Promise<StoredAddon[]> {
      return (await db.selectFrom('addons').selectAll().orderBy('id').execute()).map(toAddon)
    },

    /** `forUpdate`: held until the transaction ends (PostgreSQL), as a change or deletion does. */
    async find(id: number, { forUpdate = false } = {}): Promise<StoredAddon | undefined> {
      const row = await db
        .selectFrom('addons')
        .selectAll()
        .where('id', '=', id)
        .$call(lockedRows(db, { mode: 'update', when: forUpdate }))
        .executeTakeFirst()
      return row && toAddon(row)
    },

    async insert(addon: AddonFields, createdAt: string): Promise<StoredAddon> {
      const row = await db
        .insertInto('addons')
        .values({ ...toColumns(addon), created_at: createdAt })
        .returningAll()
        .executeTakeFirstOrThrow()
      return toAddon(row)
    },

    async update(id: number, addon: AddonFields): Promise<void> {
      await db.updateTable('addons').set(toColumns(addon)).where('id', '=', id).execute()
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('addons').where('id', '=', id).execute()
    },
  }
}
