import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import { counterValue } from '../../db/counters.ts'
import { dialectOf } from '../../db/dialect.ts'
import type { Database } from '../../db/tables.ts'

/** What GET /search/events filters on, parsed; every list holds at least one value. */
export interface EventSearch {
  /** Text found in the event's data, preData or tags (case-insensitive). */
  query?: string
  ids?: number[]
  groupIds?: string[]
  featureNames?: string[]
  projects?: string[]
  types?: string[]
  environments?: string[]
  createdByUserIds?: number[]
  /** Created at or after this instant (ISO). */
  from?: string
  /** Created before this instant (ISO). */
  before?: string
  /** Only events with a project: what a caller without ADMIN sees, as in the reference. */
  withProjectOnly?: boolean
  offset: number
  limit: number
}

type ListColumn = 'feature_name' | 'project' | 'group_id' | 'type' | 'environment' | 'created_by_user_id'

/** The list filters, the first single-valued one in this order leading the index walk (see below). */
const LIST_FILTERS: ReadonlyArray<[keyof EventSearch & string, ListColumn]> = [
  ['featureNames', 'feature_name'],
  ['groupIds', 'group_id'],
  ['projects', 'project'],
  ['environments', 'environment'],
  ['createdByUserIds', 'created_by_user_id'],
  ['types', 'type'],
]

/** Up to this many (project, type) pairs, the page's ids are merged from one walk of each range. */
const MERGED_PAIRS = 16

const literalLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

type EventsQuery<O> = SelectQueryBuilder<Database, 'events', O>

/**
 * The events that match, newest first (by id), one page, and how many match in all. Each filter
 * column has an (x, id) index (migrations 0001, 0004, 0020). A single-valued filter is written
 * `x >= v AND x <= v ORDER BY x DESC, id DESC`, as event-store.ts does, so the page is a backward
 * range scan of that index stopped by the LIMIT, whatever the planner thinks of the value's frequency.
 */
export async function searchEvents(db: Kysely<Database>, search: EventSearch): Promise<{ events: string[]; total: number }> {
  const { page, count } = eventSearchQueries(db, search)
  const rows = await page.execute()
  if (rows.length > 0) return { events: rows.map((row) => row.json), total: Number(rows[0]!.total ?? 0) }
  // A page past the end: the count alone.
  const counted: { total?: number; value?: number } | undefined = await count.executeTakeFirst()
  return { events: [], total: Number(counted?.total ?? counted?.value ?? 0) }
}

/** The statements of searchEvents: the page with the total (one snapshot), and the total alone. */
export function eventSearchQueries(db: Kysely<Database>, search: EventSearch) {
  const given = LIST_FILTERS.filter(([key]) => search[key] !== undefined)
  const single = given.find(([key]) => (search[key] as unknown[]).length === 1)?.[1]
  // Projects with types (whatever the operators): the ranges of the (project, type, id) index
  // (migration 0024), one per pair, hold exactly the matches, so the count and the page's ids are
  // read from that index alone and rows only for the page. Not with a text query (it needs the
  // rows), nor when one flag or group drives the walk (a few hundred events at most).
  const byProjectType =
    search.projects !== undefined &&
    search.types !== undefined &&
    search.query === undefined &&
    single !== 'feature_name' &&
    single !== 'group_id'
  // The filter that drives the walk; the others are id sets read from their own (x, id) index
  // alone, so an event the driving index yields is checked without reading its row, and a count
  // over two broad filters reads no rows at all.
  const driving = byProjectType ? 'project' : (single ?? given[0]?.[1])
  const ids = (column: ListColumn | 'created_at', where: (q: EventsQuery<{ id: number }>) => EventsQuery<{ id: number }>) =>
    where(db.selectFrom(`events as by_${column}` as 'events').select('id')).where(column, 'is not', null)
  // SQLite would rather walk the rowids an id set lists and sort them: `+id` keeps the id sets to
  // checks of the driving walk (a unary plus disqualifies a term from driving an index there).
  const idOf = dialectOf(db) === 'sqlite' ? sql<number>`+id` : sql<number>`id`
  // `pair`: one project and one type in place of the lists.
  const filtered = <O>(query: EventsQuery<O>, pair?: [project: string, type: string]): EventsQuery<O> => {
    let q = query
    for (const [key, column] of given) {
      const values = search[key] as Array<string | number>
      if (byProjectType && (column === 'project' || column === 'type'))
        q = q.where(column, 'in', pair === undefined ? (values as string[]) : [pair[column === 'project' ? 0 : 1]])
      else if (column === driving) {
        q = column === single ? q.where(column, '>=', values[0]!).where(column, '<=', values[0]!) : q.where(column, 'in', values)
      } else {
        q = q.where(
          idOf,
          'in',
          ids(column, (sub) => sub.where(column, 'in', values)),
        )
      }
    }
    if (search.ids !== undefined) q = q.where('id', 'in', search.ids)
    const { from, before } = search
    if (from !== undefined || before !== undefined) {
      const range = (sub: EventsQuery<{ id: number }>) => {
        let r = sub
        if (from !== undefined) r = r.where('created_at', '>=', from)
        if (before !== undefined) r = r.where('created_at', '<', before)
        return r
      }
      q = driving === undefined ? (range(q as never) as never) : q.where(idOf, 'in', ids('created_at', range))
    }
    if (search.withProjectOnly) q = q.where('project', 'is not', null)
    if (search.query !== undefined) q = q.where(textMatches(db, search.query))
    return q
  }
  const unfiltered = Object.entries(search).every(
    ([key, value]) => ['offset', 'limit'].includes(key) || value === undefined || value === false,
  )
  // SQLite's event ids are gap-free: with no filter the counter is the count (a lookup by key).
  const count =
    unfiltered && dialectOf(db) === 'sqlite'
      ? counterValue(db, 'event_id')
      : filtered(db.selectFrom('events')).select((eb) => eb.fn.countAll<number>().as('total'))

  if (byProjectType) {
    // The page's ids, newest first, from the index; then those rows by key. A few pairs: each
    // range walked backward for its first offset + limit, merged. Many: every match's id sorted
    // (`+id`, `id + 0` keep the order from choosing the (project, id) or primary key walk, which
    // reads a row for each event until the page is full: nearly all of them for a rare type).
    const projects = search.projects!
    const types = search.types!
    const mergedRanges = () => {
      const ranges = projects.flatMap((project) => types.map((type) => [project, type] as [string, string]))
      const range = ([project, type]: [string, string], i: number) =>
        db
          .selectFrom(
            filtered(db.selectFrom('events as by_project_type' as 'events').select('id'), [project, type])
              .orderBy('id', 'desc')
              .limit(search.offset + search.limit)
              .as(`range_${i}`),
          )
          .select('id')
      let merged = range(ranges[0]!, 0)
      for (let i = 1; i < ranges.length; i++) merged = merged.unionAll(range(ranges[i]!, i))
      return db.selectFrom(merged.as('ranges')).select('id').orderBy('id', 'desc').limit(search.limit).offset(search.offset)
    }
    const pageIds =
      projects.length * types.length <= MERGED_PAIRS
        ? mergedRanges()
        : filtered(db.selectFrom('events as by_project_type' as 'events').select('id'))
            .orderBy(dialectOf(db) === 'sqlite' ? idOf : sql<number>`id + 0`, 'desc')
            .limit(search.limit)
            .offset(search.offset)
    const page = db
      .selectFrom('events')
      .select(['json', count.as('total')])
      .where('id', 'in', pageIds)
      .orderBy('id', 'desc')
    return { page, count }
  }
  let page = filtered(db.selectFrom('events')).select(['json', count.as('total')])
  if (single !== undefined) page = page.orderBy(single, 'desc')
  // Dates alone: the (created_at, id) index walked backward. Ids follow time but for concurrent
  // writes, and PostgreSQL, taking them as independent, would walk the primary key back to the day.
  else if (driving === undefined && (search.from !== undefined || search.before !== undefined)) page = page.orderBy('created_at', 'desc')
  return { page: page.orderBy('id', 'desc').limit(search.limit).offset(search.offset), count }
}

/**
 * `query` in the event's data, preData or tags, as their JSON text, case-insensitively (the
 * reference's `data::text ILIKE`). The stored JSON is matched first, which is cheap and rules out
 * most events; only those it keeps have the three parts taken out.
 */
function textMatches(db: Kysely<Database>, query: string) {
  const pattern = `%${literalLike(query)}%`
  if (dialectOf(db) === 'postgres') {
    const part = (key: string) => sql`((json::jsonb) ->> ${key}) ilike ${pattern} escape '\\'`
    return sql<boolean>`case when json ilike ${pattern} escape '\\' then (${part('data')} or ${part('preData')} or ${part('tags')}) else false end`
  }
  const part = (key: string) => sql`json_extract(json, ${`$.${key}`}) like ${pattern} escape '\\'`
  return sql<boolean>`(json like ${pattern} escape '\\' and (${part('data')} or ${part('preData')} or ${part('tags')}))`
}

/**
 * The ids of those who made events, ascending, each with the name its latest event gives. The
 * distinct ids are found by seeking the (created_by_user_id, id) index from one to the next
 * (a recursive query), not by reading every event.
 */
export async function eventCreators(db: Kysely<Database>): Promise<Array<{ id: number; createdBy: string }>> {
  const { rows } = await sql<{ id: number; created_by: string | null }>`
    with recursive creators(id) as (
      select min(created_by_user_id) from events
      union all
      select (select min(e.created_by_user_id) from events e where e.created_by_user_id > creators.id)
      from creators where creators.id is not null
    )
    select creators.id as id,
      (select e.created_by from events e where e.created_by_user_id = creators.id
        order by e.created_by_user_id desc, e.id desc limit 1) as created_by
    from creators where creators.id is not null order by creators.id`.execute(db)
  return rows.map((row) => ({ id: Number(row.id), createdBy: row.created_by ?? '' }))
}
