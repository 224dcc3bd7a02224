import type { Kysely } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import type { Database } from '../../db/tables.ts'
import type { TagData } from '../events/event-types.ts'
import { inNames } from '../../db/name-set.ts'
import { lockedRows } from '../../db/row-lock.ts'
import type { FlagsOfTags } from './flags-of-tags.ts'

export type Tag = TagData

/** A flag that has a tag, with its project (which that flag's events name). */
export interface TaggedFlag {
  feature: string
  project: string
}

// Rows per insert: 5 bound values each, well within SQLite's 32,766 per statement.
const ROWS_PER_INSERT = 1000

/** Tags are listed by type, then value (code point order): the primary keys' order. */
export function createTagStore(db: Kysely<Database>) {
  const postgres = dialectOf(db) === 'postgres'
  return {
    async list(type?: string): Promise<Tag[]> {
      const rows = await db
        .selectFrom('tags')
        .select(['type', 'value'])
        .$if(type !== undefined, (query) => query.where('type', '=', type!))
        .orderBy('type')
        .orderBy('value')
        .execute()
      return rows.map(({ type, value }) => ({ type, value }))
    },

    /** `forUpdate` holds the row on PostgreSQL until the transaction ends (before its deletion). */
    async exists(tag: Tag, { forUpdate = false } = {}): Promise<boolean> {
      const row = await db
        .selectFrom('tags')
        .select('type')
        .where('type', '=', tag.type)
        .where('value', '=', tag.value)
        .$call(lockedRows(db, { when: forUpdate }))
        .executeTakeFirst()
      return row !== undefined
    },

    /**
     * Creates the tags that do not exist (their types must), and returns them, in the order given.
     * They are inserted in key order, so two requests creating some of the same tags cannot deadlock.
     * On PostgreSQL every one of them is then held (FOR KEY SHARE) until the transaction ends, so
     * that none is deleted before the flags tagged with it are written; one deleted between its
     * insert and the hold (its deleter committed in between) is created again.
     */
    async ensure(tags: readonly Tag[], createdAt: string): Promise<Tag[]> {
      const created: Tag[] = []
      let missing = [...tags].sort(compareTags)
      for (let attempt = 0; missing.length > 0 && attempt < 2; attempt++) {
        const inserted = await db
          .insertInto('tags')
          .values(missing.map((tag) => ({ type: tag.type, value: tag.value, created_at: createdAt })))
          .onConflict((oc) => oc.columns(['type', 'value']).doNothing())
          .returning(['type', 'value'])
          .execute()
        const fresh = new Set(inserted.map(tagKey))
        created.push(...missing.filter((tag) => fresh.has(tagKey(tag))))
        // SQLite: this transaction is the only writer, so every one of them is there until it ends.
        if (!postgres) {
          missing = []
          break
        }
        const held = await db
          .selectFrom('tags')
          .select(['type', 'value'])
          .where((eb) => eb.or(missing.map((tag) => eb.and([eb('type', '=', tag.type), eb('value', '=', tag.value)]))))
          .orderBy('type')
          .orderBy('value')
          .$call(lockedRows(db, { mode: 'key-share' }))
          .execute()
        const there = new Set(held.map(tagKey))
        missing = missing.filter((tag) => !there.has(tagKey(tag)))
      }
      if (missing.length > 0) throw new Error('tags deleted while they were being created')
      const order = new Map(tags.map((tag, index) => [tagKey(tag), index]))
      return created.sort((a, b) => order.get(tagKey(a))! - order.get(tagKey(b))!)
    },

    /** Deletes a tag; the flags' rows go with it (the foreign key cascades). */
    async delete(tag: Tag): Promise<void> {
      await db.deleteFrom('tags').where('type', '=', tag.type).where('value', '=', tag.value).execute()
    },

    /** The flags with this tag (a type, or one tag of it), by tag then flag name: the feature_tags_tag_idx order. */
    async taggedFlags(flags: FlagsOfTags, type: string, value?: string): Promise<Array<TaggedFlag & Tag>> {
      const rows = await db
        .selectFrom('feature_tags')
        .select(['feature_name', 'tag_type', 'tag_value'])
        .where('tag_type', '=', type)
        .$if(value !== undefined, (query) => query.where('tag_value', '=', value!))
        .orderBy('tag_type')
        .orderBy('tag_value')
        .orderBy('feature_name')
        .execute()
      // Each flag's project, from flags/ (FlagsOfTags).
      const projects = new Map(
        (await flags.find(db, [...new Set(rows.map((row) => row.feature_name))])).map((flag) => [flag.feature, flag.project]),
      )
      return rows.flatMap((row) => {
        const project = projects.get(row.feature_name)
        return project === undefined ? [] : [{ feature: row.feature_name, project, type: row.tag_type, value: row.tag_value }]
      })
    },

    /** The tags of each of the flags (none: not in the map). */
    async ofFlags(names: readonly string[]): Promise<Map<string, Tag[]>> {
      const tags = new Map<string, Tag[]>()
      if (names.length === 0) return tags
      const rows = await db
        .selectFrom('feature_tags')
        .select(['feature_name', 'tag_type', 'tag_value'])
        .where(inNames(db, 'feature_name', names))
        .orderBy('feature_name')
        .orderBy('tag_type')
        .orderBy('tag_value')
        .execute()
      for (const row of rows) {
        const list = tags.get(row.feature_name)
        const tag = { type: row.tag_type, value: row.tag_value }
        if (list) list.push(tag)
        else tags.set(row.feature_name, [tag])
      }
      return tags
    },

    /** A flag's tags with their type's color, as its tag list shows them. */
    async ofFlagWithColor(name: string): Promise<Array<Tag & { color: string | null }>> {
      return db
        .selectFrom('feature_tags')
        .innerJoin('tag_types', 'tag_types.name', 'feature_tags.tag_type')
        .select(['feature_tags.tag_type as type', 'feature_tags.tag_value as value', 'tag_types.color'])
        .where('feature_tags.feature_name', '=', name)
        .orderBy('feature_tags.tag_type')
        .orderBy('feature_tags.tag_value')
        .execute()
    },

    /** Tags the flags that lack the tag (in name order, so two requests tagging the same flags cannot deadlock); returns those it tagged. */
    async tag(names: readonly string[], tag: Tag, userId: number, createdAt: string): Promise<Set<string>> {
      const flags = [...names].sort()
      const tagged = new Set<string>()
      for (let start = 0; start < flags.length; start += ROWS_PER_INSERT) {
        const rows = await db
          .insertInto('feature_tags')
          .values(
            flags.slice(start, start + ROWS_PER_INSERT).map((feature) => ({
              feature_name: feature,
              tag_type: tag.type,
              tag_value: tag.value,
              created_by_user_id: userId,
              created_at: createdAt,
            })),
          )
          .onConflict((oc) => oc.columns(['feature_name', 'tag_type', 'tag_value']).doNothing())
          .returning('feature_name')
          .execute()
        for (const row of rows) tagged.add(row.feature_name)
      }
      return tagged
    },

    /** Removes the tag from the flags that have it; returns those it removed it from. */
    async untag(flags: readonly string[], tag: Tag): Promise<Set<string>> {
      if (flags.length === 0) return new Set()
      const rows = await db
        .deleteFrom('feature_tags')
        .where('tag_type', '=', tag.type)
        .where('tag_value', '=', tag.value)
        .where(inNames(db, 'feature_name', flags))
        .returning('feature_name')
        .execute()
      return new Set(rows.map((row) => row.feature_name))
    },
  }
}

/** By type, then value: the one order every request writes tags in. */
export const compareTags = (a: Tag, b: Tag): number =>
  a.type < b.type ? -1 : a.type > b.type ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0

/** One string per tag: a type is URL-friendly, so it holds no `:`. */
export const tagKey = (tag: Tag): string => `${tag.type}:${tag.value}`
