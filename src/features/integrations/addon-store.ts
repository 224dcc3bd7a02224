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
type StoredAddonColumns = Pick<
  Row,
  'id' | 'provider' | 'description' | 'enabled' | 'parameters' | 'events' | 'projects' | 'environments' | 'created_at'
>
const COLUMNS = ['id', 'provider', 'description', 'enabled', 'parameters', 'events', 'projects', 'environments', 'created_at'] as const

const toAddon = (row: Pick<Row, keyof StoredAddonColumns>): StoredAddon => ({
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
      return (await db.selectFrom('addons').select(COLUMNS).orderBy('id').execute()).map(toAddon)
    },

    /** `forUpdate`: held until the transaction ends (PostgreSQL), as a change or deletion does. */
    async find(id: number, { forUpdate = false } = {}): Promise<StoredAddon | undefined> {
      const row = await db
        .selectFrom('addons')
        .select(COLUMNS)
        .where('id', '=', id)
        .$call(lockedRows(db, { mode: 'update', when: forUpdate }))
        .executeTakeFirst()
      return row && toAddon(row)
    },

    /** `cursor`: where in the event log its delivery starts (event-log.ts: positionNow). */
    async insert(addon: AddonFields, createdAt: string, cursor: string): Promise<StoredAddon> {
      const row = await db
        .insertInto('addons')
        .values({ ...toColumns(addon), created_at: createdAt, cursor })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow()
      return toAddon(row)
    },

    /** With `cursor`, delivery starts again there, with no retry pending (an integration enabled again). */
    async update(id: number, addon: AddonFields, cursor?: string): Promise<void> {
      const restart = cursor === undefined ? {} : { cursor, attempts: 0, retry_at: null, failing_since: null }
      await db
        .updateTable('addons')
        .set({ ...toColumns(addon), ...restart })
        .where('id', '=', id)
        .execute()
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('addons').where('id', '=', id).execute()
    },
  }
}
