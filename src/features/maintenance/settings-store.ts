/**
 * Named settings (table `settings`, JSON text per name, as the reference keeps them) for the
 * features above this folder that keep one (ui-config/: the frontend API's CORS origins). The
 * maintenance setting has its own store (maintenance-store.ts).
 */
import type { Kysely } from 'kysely'
import { lockRows } from '../../db/row-lock.ts'
import type { Database } from '../../db/tables.ts'

/** The stored value; undefined when there is none, or it is no JSON (a hand edit gone wrong: the default applies). */
function parsed(content: string | undefined): unknown {
  if (content === undefined) return undefined
  try {
    return JSON.parse(content)
  } catch {
    return undefined
  }
}

export function createSettingsStore(db: Kysely<Database>) {
  const read = async (name: string): Promise<unknown> =>
    parsed((await db.selectFrom('settings').select('content').where('name', '=', name).executeTakeFirst())?.content)

  return {
    read,

    /**
     * Stores the value, its row locked first (PostgreSQL) when there is one; returns what was
     * stored before (undefined: nothing, and the row is created).
     */
    async put(name: string, value: unknown): Promise<{ before: unknown; created: boolean }> {
      const content = JSON.stringify(value)
      const inserted = await db
        .insertInto('settings')
        .values({ name, content })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { before: undefined, created: true }
      await lockRows(db, 'settings', 'name', [name])
      const before = await read(name)
      await db.updateTable('settings').set({ content }).where('name', '=', name).execute()
      return { before, created: false }
    },
  }
}
