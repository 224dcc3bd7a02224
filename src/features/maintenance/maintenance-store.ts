import type { Kysely } from 'kysely'
import { lockRows } from '../../db/row-lock.ts'
import type { Database } from '../../db/tables.ts'

/** The setting's name, as the reference names it in its settings table and events. */
export const MAINTENANCE_SETTING = 'maintenance.mode'

/** What the setting holds: `{"enabled": …}` as JSON text. */
export interface MaintenanceSetting {
  enabled: boolean
}

/** The stored text as a setting; anything else (a hand edit gone wrong) counts as off, never a 500. */
function parsed(content: string | undefined): MaintenanceSetting | undefined {
  if (content === undefined) return undefined
  try {
    const value: unknown = JSON.parse(content)
    return { enabled: typeof value === 'object' && value !== null && (value as { enabled?: unknown }).enabled === true }
  } catch {
    return { enabled: false }
  }
}

export function createMaintenanceStore(db: Kysely<Database>) {
  const read = async (): Promise<MaintenanceSetting | undefined> =>
    parsed((await db.selectFrom('settings').select('content').where('name', '=', MAINTENANCE_SETTING).executeTakeFirst())?.content)

  return {
    /** The stored setting; undefined while none was ever stored (off). */
    read,

    /**
     * The stored setting, its row locked until the transaction ends (PostgreSQL), created first
     * when there is none (a concurrent creation waits for the other's commit, then finds its row).
     * `created` says whether this call stored it.
     */
    async lockOrCreate(initial: MaintenanceSetting): Promise<{ before: MaintenanceSetting; created: boolean }> {
      const inserted = await db
        .insertInto('settings')
        .values({ name: MAINTENANCE_SETTING, content: JSON.stringify(initial) })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { before: initial, created: true }
      await lockRows(db, 'settings', 'name', [MAINTENANCE_SETTING])
      return { before: (await read()) ?? { enabled: false }, created: false }
    },

    async write(setting: MaintenanceSetting): Promise<void> {
      await db
        .updateTable('settings')
        .set({ content: JSON.stringify(setting) })
        .where('name', '=', MAINTENANCE_SETTING)
        .execute()
    },
  }
}
