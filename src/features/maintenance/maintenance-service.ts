/**
 * Maintenance mode (the reference's `maintenance.mode` setting): while it is on, the admin API
 * refuses changes (http/admin-pipeline.ts asks `isOn` for each admin write), reads and the SDK
 * APIs go on. The setting lives in the database, so every instance on it follows; each remembers
 * it while the change watch says nothing changed, so a write pays a query only after a change
 * (by anyone: another instance's toggle is heard within milliseconds on PostgreSQL, 2 ms on SQLite).
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { createMaintenanceStore, MAINTENANCE_SETTING, type MaintenanceSetting } from './maintenance-store.ts'

export function createMaintenanceService({ db, changes }: { db: Kysely<Database>; changes: ChangeWatch }) {
  // The setting as read at a change version; a read under way is shared by the requests that wait for it.
  let remembered: { version: number; enabled: boolean } | undefined
  let reading: { version: number | undefined; promise: Promise<boolean> } | undefined

  async function readEnabled(version: number | undefined): Promise<boolean> {
    const enabled = ((await createMaintenanceStore(db).read()) ?? { enabled: false }).enabled
    // Kept only if nothing changed while it was read (a toggle committing meanwhile is read again).
    if (version !== undefined && changes.version('settings') === version) remembered = { version, enabled }
    return enabled
  }

  return {
    /** Whether maintenance mode is on: no query while the database has not changed since it was read. */
    isOn(): boolean | Promise<boolean> {
      const version = changes.version('settings')
      if (version !== undefined && remembered?.version === version) return remembered.enabled
      if (version !== undefined && reading?.version === version) return reading.promise
      const promise = readEnabled(version).finally(() => {
        if (reading?.promise === promise) reading = undefined
      })
      reading = { version, promise }
      return promise
    },

    get: async (): Promise<MaintenanceSetting> => ({ enabled: ((await createMaintenanceStore(db).read()) ?? { enabled: false }).enabled }),

    /**
     * Turns it on or off. As the reference: `setting-created` the first time (data `{id, enabled}`),
     * `setting-updated` after (preData the setting before), in the same transaction; none when it
     * already is so.
     */
    set: (enabled: boolean, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createMaintenanceStore(trx)
        const { before, created } = await store.lockOrCreate({ enabled })
        const data = { id: MAINTENANCE_SETTING, enabled }
        if (created) {
          await appendEvents(trx, auditContext(actor), [{ type: 'setting-created', data }])
          return
        }
        if (before.enabled === enabled) return
        await store.write({ enabled })
        await appendEvents(trx, auditContext(actor), [{ type: 'setting-updated', data, preData: before }])
      }),
  }
}

export type MaintenanceService = ReturnType<typeof createMaintenanceService>
