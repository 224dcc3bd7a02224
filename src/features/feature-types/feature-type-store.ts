import type { Kysely } from 'kysely'
import type { Database, FeatureTypesTable } from '../../db/tables.ts'
import type { FeatureTypeData } from '../events/event-types.ts'

const toFeatureType = (row: FeatureTypesTable): FeatureTypeData => ({
  id: row.id,
  name: row.name,
  description: row.description,
  lifetimeDays: row.lifetime_days,
})

export function createFeatureTypeStore(db: Kysely<Database>) {
  return {
    async list(): Promise<FeatureTypeData[]> {
      return (await db.selectFrom('feature_types').selectAll().orderBy('sort_order').execute()).map(toFeatureType)
    },

    /** The type, or undefined. */
    async find(id: string): Promise<FeatureTypeData | undefined> {
      const row = await db.selectFrom('feature_types').selectAll().where('id', '=', id).executeTakeFirst()
      return row && toFeatureType(row)
    },

    async setLifetime(id: string, lifetimeDays: number | null): Promise<void> {
      await db.updateTable('feature_types').set({ lifetime_days: lifetimeDays }).where('id', '=', id).execute()
    },

    /** Each type's lifetime in days (null: none), for telling potentially stale flags. */
    async lifetimes(): Promise<Map<string, number | null>> {
      const rows = await db.selectFrom('feature_types').select(['id', 'lifetime_days']).execute()
      return new Map(rows.map((row) => [row.id, row.lifetime_days]))
    },
  }
}
