import { sql, type Kysely, type Selectable } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import type { Database, FeaturesTable } from '../../db/tables.ts'
import type { FlagData } from '../events/event-types.ts'
import { inNames } from '../../db/name-set.ts'
import { hasAnyTag, type TagFilter } from '../tags/tag-filter.ts'
import { lockedRows } from '../../db/row-lock.ts'

/** A flag as the API shows it; `archivedAt` only on archived flags. */
export interface Flag extends FlagData {
  archivedAt?: string
}

export function toFlag(row: Selectable<FeaturesTable>): Flag {
  const flag: Flag = {
    name: row.name,
    description: row.description,
    type: row.type,
    project: row.project,
    stale: Boolean(row.stale),
    createdAt: row.created_at,
    impressionData: Boolean(row.impression_data),
    archived: row.archived_at !== null,
  }
  if (row.archived_at !== null) flag.archivedAt = row.archived_at
  return flag
}

/**
 * The names of the active (not archived) flags, as a subquery: how another folder's query keeps to
 * active flags without naming this folder's table (test/table-owners.unit.test.ts).
 */
export function activeFlagNames(db: Kysely<Database>) {
  return db.selectFrom('features').select('name').where('archived_at', 'is', null)
}

/** The names of every flag (archived ones too), as a subquery. */
export function allFlagNames(db: Kysely<Database>) {
  return db.selectFrom('features').select('name')
}

/**
 * The named flags that exist (active or archived) with their projects, by name; `hold`: locked
 * FOR NO KEY UPDATE on PostgreSQL, in name order (FlagsOfTags).
 */
export async function findFlagProjects(
  db: Kysely<Database>,
  names: readonly string[],
  { hold = false }: { hold?: boolean } = {},
): Promise<Array<{ feature: string; project: string }>> {
  if (names.length === 0) return []
  const rows = await db
    .selectFrom('features')
    .select(['name', 'project'])
    .where(inNames(db, 'name', names))
    .orderBy('name')
    .$call(lockedRows(db, { mode: 'no-key-update', when: hold }))
    .execute()
  return rows.map((row) => ({ feature: row.name, project: row.project }))
}

/** Every flag's name and creation time, as a subquery. */
export function flagCreationTimes(db: Kysely<Database>) {
  return db.selectFrom('features').select(['name', 'created_at'])
}

/** Every flag's name and project (archived ones too), as a subquery. */
export function flagProjectRows(db: Kysely<Database>) {
  return db.selectFrom('features').select(['name', 'project'])
}

/** Every flag's name and project (archived ones too). */
export function flagProjects(db: Kysely<Database>): Promise<Array<{ name: string; project: string }>> {
  return db.selectFrom('features').select(['name', 'project']).execute()
}

/** The names of a project's flags (archived ones too; `active`: only the others), as a subquery. */
export function flagNamesOfProject(db: Kysely<Database>, project: string, { active = false }: { active?: boolean } = {}) {
  return db
    .selectFrom('features')
    .select('name')
    .where('project', '=', project)
    .$if(active, (query) => query.where('archived_at', 'is', null))
}

/** Whether a project holds a flag (`archived`: an archived one, else an active one): a bounded read (ProjectContents). */
export async function projectHoldsFlag(db: Kysely<Database>, project: string, archived: boolean): Promise<boolean> {
  const row = await db
    .selectFrom('features')
    .select('name')
    .where('project', '=', project)
    .where('archived_at', archived ? 'is not' : 'is', null)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** A project's flags (archived ones too) with when each was archived (null: active): the project status. */
export async function flagArchiveTimesOfProject(
  db: Kysely<Database>,
  project: string,
): Promise<Array<{ name: string; archivedAt: string | null }>> {
  const rows = await db.selectFrom('features').select(['name', 'archived_at']).where('project', '=', project).execute()
  return rows.map((row) => ({ name: row.name, archivedAt: row.archived_at === null ? null : new Date(row.archived_at).toISOString() }))
}

export interface FlagPage {
  search: string
  archived: boolean
  /**
   * Only stale or potentially stale flags: the latest creation time at which a flag of each type
   * (those with a lifetime) has outlived it, as ISO text.
   */
  staleOrCreatedBefore?: ReadonlyMap<string, string>
  sortBy: 'name' | 'createdAt' | 'type'
  sortOrder: 'asc' | 'desc'
  offset: number
  limit: number
  /** Only the flags with any of these tags */
  tags?: readonly TagFilter[]
}

export function createFlagStore(db: Kysely<Database>) {
  return {
    async find(name: string): Promise<Flag | undefined> {
      const row = await db.selectFrom('features').selectAll().where('name', '=', name).executeTakeFirst()
      return row && toFlag(row)
    },

    /**
     * The named flags that exist (any project, any state), sorted by name. On
     * PostgreSQL their rows stay locked until the transaction ends, taken in name
     * order so that two requests locking overlapping sets cannot deadlock; a request
     * that needs one of them waits, then reads what this one committed. SQLite
     * needs nothing here: its write transactions already run one at a time.
     */
    async lockMany(names: readonly string[]): Promise<Flag[]> {
      if (names.length === 0) return []
      const rows = await db
        .selectFrom('features')
        .selectAll()
        .where(inNames(db, 'name', names))
        .orderBy('name')
        .$call(lockedRows(db))
        .execute()
      return rows.map(toFlag)
    },

    /** The named flags that exist, sorted by name, share-locked until the transaction ends on PostgreSQL: they cannot be deleted meanwhile. */
    async holdMany(names: readonly string[]): Promise<Flag[]> {
      if (names.length === 0) return []
      const rows = await db
        .selectFrom('features')
        .selectAll()
        .where(inNames(db, 'name', names))
        .orderBy('name')
        .$call(lockedRows(db, { mode: 'key-share' }))
        .execute()
      return rows.map(toFlag)
    },

    async listActive(project: string, tags?: readonly TagFilter[]): Promise<Flag[]> {
      const rows = await db
        .selectFrom('features')
        .selectAll()
        .where('project', '=', project)
        .where('archived_at', 'is', null)
        .$if(tags !== undefined, (query) => query.where(hasAnyTag(tags!)))
        .orderBy('name')
        .execute()
      return rows.map(toFlag)
    },

    /**
     * A page of the project's flags: the (project, name) index finds the project's rows (and, by
     * name, gives them in order); a search keeps the names containing it, in any case.
     */
    async page(project: string, page: FlagPage): Promise<{ features: Flag[]; total: number }> {
      const position = dialectOf(db) === 'postgres' ? 'strpos' : 'instr'
      const base = () =>
        db
          .selectFrom('features')
          .where('project', '=', project)
          .where('archived_at', page.archived ? 'is not' : 'is', null)
          .$if(page.search !== '', (query) =>
            query.where(sql<boolean>`${sql.raw(position)}(lower(name), ${page.search.toLowerCase()}) > 0`),
          )
          .$if(page.staleOrCreatedBefore !== undefined, (query) =>
            query.where((eb) =>
              eb.or([
                eb('stale', '=', true),
                ...[...page.staleOrCreatedBefore!].map(([type, cutoff]) => eb.and([eb('type', '=', type), eb('created_at', '<', cutoff)])),
              ]),
            ),
          )
          .$if(page.tags !== undefined, (query) => query.where(hasAnyTag(page.tags!)))
      const column = page.sortBy === 'createdAt' ? 'created_at' : page.sortBy
      const [rows, count] = await Promise.all([
        base()
          .selectAll()
          .orderBy(column, page.sortOrder)
          .$if(column !== 'name', (query) => query.orderBy('name', page.sortOrder))
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        base()
          .select((eb) => eb.fn.countAll<number | string | bigint>().as('total'))
          .executeTakeFirstOrThrow(),
      ])
      return { features: rows.map(toFlag), total: Number(count.total) }
    },

    async insert(flag: Flag): Promise<void> {
      await db
        .insertInto('features')
        .values({
          name: flag.name,
          project: flag.project,
          description: flag.description,
          type: flag.type,
          stale: flag.stale,
          impression_data: flag.impressionData,
          created_at: flag.createdAt,
          archived_at: null,
        })
        .execute()
    },

    /** Writes a flag's metadata: description, type, stale and impression data. */
    async updateMetadata(flag: Pick<Flag, 'name' | 'description' | 'type' | 'stale' | 'impressionData'>): Promise<void> {
      await db
        .updateTable('features')
        .set({ description: flag.description, type: flag.type, stale: flag.stale, impression_data: flag.impressionData })
        .where('name', '=', flag.name)
        .execute()
    },

    async setStale(names: readonly string[], stale: boolean): Promise<void> {
      if (names.length === 0) return
      await db
        .updateTable('features')
        .set({ stale })
        .where(inNames(db, 'name', names))
        .execute()
    },

    /** Archives the active flags among `names`; returns those it archived, sorted. */
    async archive(names: readonly string[], archivedAt: string): Promise<string[]> {
      if (names.length === 0) return []
      const rows = await db
        .updateTable('features')
        .set({ archived_at: archivedAt })
        .where(inNames(db, 'name', names))
        .where('archived_at', 'is', null)
        .returning('name')
        .execute()
      return rows.map((row) => row.name).sort()
    },

    /** Revives the archived flags among `names`; returns those it revived, sorted. */
    async revive(names: readonly string[]): Promise<string[]> {
      if (names.length === 0) return []
      const rows = await db
        .updateTable('features')
        .set({ archived_at: null })
        .where(inNames(db, 'name', names))
        .where('archived_at', 'is not', null)
        .returning('name')
        .execute()
      return rows.map((row) => row.name).sort()
    },

    /** Deletes the archived flags among `names` for good; returns them as they were, sorted. */
    async deleteArchived(names: readonly string[]): Promise<Flag[]> {
      if (names.length === 0) return []
      const rows = await db
        .deleteFrom('features')
        .where(inNames(db, 'name', names))
        .where('archived_at', 'is not', null)
        .returningAll()
        .execute()
      return rows.map(toFlag).sort((a, b) => (a.name < b.name ? -1 : 1))
    },
  }
}

export type FlagStore = ReturnType<typeof createFlagStore>
