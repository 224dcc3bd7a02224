/** The links of flags (`feature_links`, migration 0018): a flag's links are listed by id, the order they were made in. */
import type { Kysely } from 'kysely'
import { inNames } from '../../db/name-set.ts'
import { lockedRows } from '../../db/row-lock.ts'
import type { Database } from '../../db/tables.ts'
import { monotonicUlid } from '../../db/ulid.ts'

/** A link as the flag read shows it (the export leaves out `feature`). */
export interface FlagLink {
  id: string
  url: string
  title: string | null
  feature: string
}

/** What a link says; its id and flag aside. */
export interface LinkText {
  url: string
  title: string | null
}

export function createFlagLinkStore(db: Kysely<Database>) {
  return {
    /**
     * The flag, held on PostgreSQL (FOR NO KEY UPDATE) until the transaction ends: changes of one
     * flag's links queue (so its count of links holds), and it is neither archived nor deleted meanwhile.
     */
    async holdFlag(name: string): Promise<{ project: string; archived: boolean } | undefined> {
      const row = await db
        .selectFrom('features')
        .select(['project', 'archived_at'])
        .where('name', '=', name)
        .$call(lockedRows(db, { mode: 'no-key-update' }))
        .executeTakeFirst()
      return row && { project: row.project, archived: row.archived_at !== null }
    },

    /** The links of each of the flags, each flag's by id; flags without any are not in the map. */
    async ofFlags(names: readonly string[]): Promise<Map<string, FlagLink[]>> {
      const links = new Map<string, FlagLink[]>()
      if (names.length === 0) return links
      const rows = await db
        .selectFrom('feature_links')
        .select(['id', 'feature_name', 'url', 'title'])
        .where(inNames(db, 'feature_name', names))
        .orderBy('feature_name')
        .orderBy('id')
        .execute()
      for (const row of rows) {
        const link = { id: row.id, url: row.url, title: row.title, feature: row.feature_name }
        const list = links.get(row.feature_name)
        if (list) list.push(link)
        else links.set(row.feature_name, [link])
      }
      return links
    },

    async ofFlag(name: string): Promise<FlagLink[]> {
      return (await this.ofFlags([name])).get(name) ?? []
    },

    async count(name: string): Promise<number> {
      const row = await db
        .selectFrom('feature_links')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('feature_name', '=', name)
        .executeTakeFirstOrThrow()
      return Number(row.count)
    },

    /** Adds links to a flag, in the order given (their ids increase in it). */
    async insert(feature: string, links: readonly LinkText[], createdAt: string): Promise<FlagLink[]> {
      if (links.length === 0) return []
      const made = links.map((link) => ({ id: monotonicUlid(), url: link.url, title: link.title, feature }))
      await db
        .insertInto('feature_links')
        .values(made.map((link) => ({ id: link.id, feature_name: feature, url: link.url, title: link.title, created_at: createdAt })))
        .execute()
      return made
    },

    /** One link of a flag (undefined: no such id, or another flag's). */
    async find(feature: string, id: string): Promise<FlagLink | undefined> {
      const row = await db
        .selectFrom('feature_links')
        .select(['id', 'url', 'title', 'feature_name'])
        .where('id', '=', id)
        .where('feature_name', '=', feature)
        .executeTakeFirst()
      return row && { id: row.id, url: row.url, title: row.title, feature: row.feature_name }
    },

    async update(id: string, link: LinkText): Promise<void> {
      await db.updateTable('feature_links').set({ url: link.url, title: link.title }).where('id', '=', id).execute()
    },

    async delete(ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return
      await db.deleteFrom('feature_links').where('id', 'in', ids).execute()
    },
  }
}

export type FlagLinkStore = ReturnType<typeof createFlagLinkStore>
