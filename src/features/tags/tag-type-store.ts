import type { Kysely } from 'kysely'
import type { Database, TagTypesTable } from '../../db/tables.ts'
import type { TagTypeData } from '../events/event-types.ts'
import { lockedRows } from '../../db/row-lock.ts'

export type TagType = TagTypeData

const toTagType = (row: Pick<TagTypesTable, 'name' | 'description' | 'icon' | 'color'>): TagType => ({
  name: row.name,
  description: row.description,
  icon: row.icon,
  color: row.color,
})

const COLUMNS = ['name', 'description', 'icon', 'color'] as const

/**
 * How a read holds the row on PostgreSQL until the transaction ends: `update` (before a deletion),
 * `no-key-update` (before a change of its other columns), `key-share` (while a tag of this type is
 * created: the type cannot go meanwhile, yet may change). SQLite writers already run one at a time.
 */
export type TagTypeLock = 'update' | 'no-key-update' | 'key-share'

export function createTagTypeStore(db: Kysely<Database>) {
  return {
    /** By name (code point order). */
    async list(): Promise<TagType[]> {
      const rows = await db.selectFrom('tag_types').select(COLUMNS).orderBy('name').execute()
      return rows.map(toTagType)
    },

    async find(name: string, lock?: TagTypeLock): Promise<TagType | undefined> {
      const row = await db
        .selectFrom('tag_types')
        .select(COLUMNS)
        .where('name', '=', name)
        .$call(lockedRows(db, { mode: lock, when: lock !== undefined }))
        .executeTakeFirst()
      return row && toTagType(row)
    },

    /** Which of `names` exist, held (FOR KEY SHARE on PostgreSQL) until the transaction ends. */
    async hold(names: readonly string[]): Promise<Set<string>> {
      if (names.length === 0) return new Set()
      const rows = await db
        .selectFrom('tag_types')
        .select('name')
        .where('name', 'in', names)
        .orderBy('name')
        .$call(lockedRows(db, { mode: 'key-share' }))
        .execute()
      return new Set(rows.map((row) => row.name))
    },

    async insert(tagType: TagType, createdAt: string): Promise<void> {
      await db
        .insertInto('tag_types')
        .values({ ...tagType, created_at: createdAt })
        .execute()
    },

    async update(tagType: TagType): Promise<void> {
      await db
        .updateTable('tag_types')
        .set({ description: tagType.description, icon: tagType.icon, color: tagType.color })
        .where('name', '=', tagType.name)
        .execute()
    },

    async delete(name: string): Promise<void> {
      await db.deleteFrom('tag_types').where('name', '=', name).execute()
    },
  }
}
