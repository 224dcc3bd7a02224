import { isDeepStrictEqual } from 'node:util'
import { CompiledQuery, sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely'
import { counterValue, drawIds, drawnIds } from '../../db/counters.ts'
import { dialectOf } from '../../db/dialect.ts'
import { preparedInsert } from '../../db/prepared.ts'
import type { Database, EventsTable } from '../../db/tables.ts'
import type { AuditContext } from './audit.ts'
import type { EventTag, NewEvent } from './event-types.ts'
import { inNames } from '../../db/name-set.ts'

// 11 bound values per row; SQLite allows 32,766 per statement.
const ROWS_PER_INSERT = 1000

/**
 * Appends events inside the caller's transaction, so a change and its events
 * commit or vanish together. An event whose data deep-equals its preData records
 * nothing and is dropped. Ids ascend in the order the events are given (counters.ts: drawIds;
 * on PostgreSQL they may have gaps, and commit out of order: event-log.ts reads in commit order). An event about a flag records the tags the flag
 * has then (after the change), as the reference does, unless it brings its own.
 */
export async function appendEvents(trx: Kysely<Database>, audit: AuditContext, events: readonly NewEvent[]): Promise<void> {
  const kept = events.filter((event) => {
    const data = 'data' in event ? event.data : null
    const preData = 'preData' in event ? event.preData : null
    return !(data && preData && isDeepStrictEqual(data, preData))
  })
  if (kept.length === 0) return

  const tags = await flagTags(trx, kept)
  const tagsOf = (event: NewEvent) => event.tags ?? (event.featureName ? tags.get(event.featureName) : undefined)
  if (kept.length === 1 && dialectOf(trx) === 'postgres') {
    // Most writes record one event: its id drawn by the insert itself, one round trip rather than two.
    const { json, ...row } = toRow(0, audit, kept[0]!, tagsOf(kept[0]!))
    await trx.executeQuery(insertOneDrawn(trx, [...EVENT_COLUMNS.map((column) => row[column]), json.slice(JSON_ID_PREFIX.length + 1)]))
    return
  }
  const ids = await drawIds(trx, 'event_id', kept.length)
  const rows = kept.map((event, index) => toRow(ids[index]!, audit, event, tagsOf(event)))
  if (rows.length === 1) {
    await trx.executeQuery(insertOne(trx, rows[0]!))
    return
  }
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await trx
      .insertInto('events')
      .values(rows.slice(start, start + ROWS_PER_INSERT))
      .execute()
  }
}

/** Inserts an event built by eventAroundIds, once its id and the id its `data` begins with are drawn. */
export async function insertEventAroundIds(trx: Kysely<Database>, event: EventAroundIds, id: number, dataId: number): Promise<void> {
  const [head, middle, tail] = event.jsonAround
  await trx.executeQuery(insertOne(trx, { ...event.row, id, json: `${head}${id}${middle}${dataId}${tail}` }))
}

// An event's columns between its id and its JSON, in the order both inserts below write them.
const EVENT_COLUMNS = [
  'type',
  'created_by',
  'created_by_user_id',
  'created_at',
  'feature_name',
  'project',
  'environment',
  'group_type',
  'group_id',
] as const satisfies readonly (keyof EventsTable)[]

// Most writes record one event: that insert is compiled once.
const insertOne = preparedInsert<EventsTable>('events', ['id', ...EVENT_COLUMNS, 'json'])

// An event's JSON begins with its id (toRow): `{"id":` and the number.
const JSON_ID_PREFIX = '{"id":'

/** PostgreSQL: one event inserted with an id drawn by the same statement; its JSON is `{"id":`, the id, then the rest. Compiled once. */
const insertOneDrawnSql = sql`with drawn as (${drawnIds('event_id', sql`1`)})
    insert into events (id, type, created_by, created_by_user_id, created_at, feature_name, project, environment, group_type, group_id, json)
    select drawn.id, ${''}::text, ${''}::text, ${0}::integer, ${''}::timestamptz, ${''}::text, ${''}::text, ${''}::text, ${''}::text, ${''}::text,
      ${sql.lit(JSON_ID_PREFIX)} || drawn.id || ${''}::text
    from drawn`
let insertOneDrawnText: string | undefined
function insertOneDrawn(trx: Kysely<Database>, parameters: readonly unknown[]): CompiledQuery {
  insertOneDrawnText ??= insertOneDrawnSql.compile(trx).sql
  return CompiledQuery.raw(insertOneDrawnText, [...parameters])
}

/** The tags of the flags the events are about (those that bring none of their own), as events show them. */
async function flagTags(trx: Kysely<Database>, events: readonly NewEvent[]): Promise<Map<string, EventTag[]>> {
  const names = new Set<string>()
  for (const event of events) if (event.featureName && !event.tags) names.add(event.featureName)
  const tags = new Map<string, EventTag[]>()
  if (names.size === 0) return tags
  // Its own read of feature_tags (the tags feature writes that table, above this floor): the events
  // folder imports no feature.
  const rows = await trx
    .selectFrom('feature_tags')
    .select(['feature_name', 'tag_type', 'tag_value'])
    .where(inNames(trx, 'feature_name', [...names]))
    .orderBy('feature_name')
    .orderBy('tag_type')
    .orderBy('tag_value')
    .execute()
  for (const row of rows) {
    const tag = { value: row.tag_value, type: row.tag_type }
    const list = tags.get(row.feature_name)
    if (list) list.push(tag)
    else tags.set(row.feature_name, [tag])
  }
  return tags
}

function toRow(id: number, audit: AuditContext, event: NewEvent, tags: readonly EventTag[] = []): EventsTable {
  const featureName = event.featureName ?? null
  const project = event.project ?? null
  const environment = event.environment ?? null
  // Keys in the order the API shows them; the stored text is served verbatim.
  const json = JSON.stringify({
    id,
    type: event.type,
    createdBy: audit.createdBy,
    createdAt: audit.createdAt,
    createdByUserId: audit.createdByUserId,
    data: 'data' in event ? event.data : null,
    preData: 'preData' in event ? event.preData : null,
    tags,
    featureName,
    project,
    environment,
    groupType: audit.groupType,
    groupId: audit.groupId,
  })
  return {
    id,
    type: event.type,
    created_by: audit.createdBy,
    created_by_user_id: audit.createdByUserId,
    created_at: audit.createdAt,
    feature_name: featureName,
    project,
    environment,
    group_type: audit.groupType,
    group_id: audit.groupId,
    json,
  }
}

/** An event's row without its id, and its JSON as the three pieces of text around its two ids. */
export interface EventAroundIds {
  row: Omit<EventsTable, 'id' | 'json'>
  jsonAround: [string, string, string]
}

/**
 * One event whose id, and the `id` its `data` begins with, are drawn only when it is written
 * (segment-store.ts: with a batch of creates), so neither is known when its JSON is built.
 */
export function eventAroundIds(audit: AuditContext, event: NewEvent & { data: { id: number } }): EventAroundIds {
  const { id: _id, json, ...row } = toRow(0, audit, { ...event, data: { ...event.data, id: 0 } } as NewEvent)
  // `{"id":0,…,"data":{"id":0,…`: the keys before `data` hold scalars, and this text cannot
  // occur inside a string value (its quotes would be escaped there), so the first match is it.
  const dataId = json.indexOf('"data":{"id":0')
  if (!json.startsWith('{"id":0,') || dataId < 0) throw new Error('event JSON does not begin with its id, or its data with theirs')
  const beforeDataId = dataId + '"data":{"id":'.length
  return { row, jsonAround: [json.slice(0, 6), json.slice(7, beforeDataId), json.slice(beforeDataId + 1)] }
}

/** An EventAroundIds as one JSON object, for a statement that inserts events (insertEventsAroundIds). */
export function eventAroundIdsRecord(event: EventAroundIds) {
  const [head, middle, tail] = event.jsonAround
  return { ...event.row, head, middle, tail }
}

/**
 * A PostgreSQL CTE body that inserts events whose ids are drawn by the same statement: one per
 * row of `from`, where `event` is an eventAroundIdsRecord (json) and `id` and `dataId` are the
 * event's id and the id its `data` begins with; inserted in `orderBy` order.
 */
export function insertEventsAroundIds(
  parts: Record<'from' | 'event' | 'id' | 'dataId' | 'orderBy', RawBuilder<unknown>>,
): RawBuilder<unknown> {
  const { from, event, id, dataId, orderBy } = parts
  return sql`insert into events (id, type, created_by, created_by_user_id, created_at, feature_name, project, environment, group_type, group_id, json)
      select ${id}, e.type, e.created_by, e.created_by_user_id, e.created_at, e.feature_name, e.project, e.environment, e.group_type, e.group_id,
        e.head || (${id}) || e.middle || (${dataId}) || e.tail
      from ${from}
        cross join json_to_record(${event}) as e(type text, created_by text, created_by_user_id integer, created_at timestamptz, feature_name text,
          project text, environment text, group_type text, group_id text, head text, middle text, tail text)
      order by ${orderBy}`
}

/** One event as stored: the API object serialized once, served verbatim. */
export interface EventJsonRow {
  json: string
}
export type EventJsonQuery = SelectQueryBuilder<Database, 'events', EventJsonRow>

/** One event's stored JSON, or undefined when there is none with that id. */
export async function eventJson(db: Kysely<Database>, id: number): Promise<string | undefined> {
  return (await db.selectFrom('events').select('json').where('id', '=', id).executeTakeFirst())?.json
}

/**
 * Whether some event of this type holds `fragment` in its JSON, exactly as serialized
 * (`"email":"ann@example.com"`): a rare question, answered through the type's index (events_type_id_idx).
 */
export async function anyEventContaining(db: Kysely<Database>, type: string, fragment: string): Promise<boolean> {
  const pattern = `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  const row = await db
    .selectFrom('events')
    .select('id')
    .where('type', '=', type)
    .where(sql<boolean>`json like ${pattern} escape '\\'`)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** A flag's events after `id`, oldest first (events_feature_name_id_idx). */
export async function flagEventsAfter(db: Kysely<Database>, featureName: string, id: number): Promise<string[]> {
  const rows = await db
    .selectFrom('events')
    .select('json')
    .where('feature_name', '=', featureName)
    .where('id', '>', id)
    .orderBy('feature_name')
    .orderBy('id')
    .execute()
  return rows.map((row) => row.json)
}

/** A flag's events of these types before `id`, newest first (events_feature_name_id_idx, backwards). */
export async function flagEventsBefore(db: Kysely<Database>, featureName: string, id: number, types: readonly string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('events')
    .select('json')
    .where('feature_name', '=', featureName)
    .where('id', '<', id)
    .where('type', 'in', [...types])
    .orderBy('feature_name', 'desc')
    .orderBy('id', 'desc')
    .execute()
  return rows.map((row) => row.json)
}

/** The time of the last event about each of these flag names (a flag since deleted too): its highest id, by the (feature_name, id) index. */
export async function lastEventAtOfFlags(db: Kysely<Database>, names: readonly string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map()
  const rows = await db
    .selectFrom('events')
    .select(['feature_name', 'created_at'])
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('events')
        .select((e) => e.fn.max('id').as('id'))
        .where(inNames(db, 'feature_name', names))
        .groupBy('feature_name'),
    )
    .execute()
  return new Map(rows.map((row) => [row.feature_name!, new Date(row.created_at).toISOString()]))
}

/** The newest events and the number of events in the instance, read by one statement (one snapshot), newest first along the primary key. */
export async function latestEvents(db: Kysely<Database>, limit: number): Promise<{ events: string[]; total: number }> {
  const rows = await latestEventsQuery(db, limit).execute()
  // No row means no event in this snapshot: the total is 0 there too.
  return { events: rows.map((row) => row.json), total: rows.length === 0 ? 0 : Number(rows[0]?.total) }
}

/**
 * SQLite's event ids are gap-free, so the counter is the number of events (a lookup by key);
 * PostgreSQL's may have gaps (counters.ts: drawIds), so the events are counted, as the reference does.
 */
export function latestEventsQuery(db: Kysely<Database>, limit: number) {
  const total =
    dialectOf(db) === 'postgres'
      ? db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('total'))
      : counterValue(db, 'event_id')
  return db
    .selectFrom('events')
    .select(['json', total.as('total')])
    .orderBy('id', 'desc')
    .limit(limit)
}

// `x >= v AND x <= v ORDER BY x DESC, id DESC` rather than `x = v ORDER BY id DESC`: the same rows,
// but only the (x, id) index yields this order, so PostgreSQL walks that index instead of
// filtering the whole primary key (or sorting) for a large project or flag.

/** Every event whose `column` equals `value`, newest first: a backward range scan of the (column, id) index. */
function eventsWhere(db: Kysely<Database>, column: 'project' | 'feature_name', value: string): EventJsonQuery {
  return db
    .selectFrom('events')
    .select('json')
    .where(column, '>=', value)
    .where(column, '<=', value)
    .orderBy(column, 'desc')
    .orderBy('id', 'desc')
}

/** Every event of a project, newest first (events_project_id_idx). */
export const projectEventsQuery = (db: Kysely<Database>, project: string): EventJsonQuery => eventsWhere(db, 'project', project)

/** Every event of a feature flag, newest first (events_feature_name_id_idx). */
export const featureEventsQuery = (db: Kysely<Database>, featureName: string): EventJsonQuery =>
  eventsWhere(db, 'feature_name', featureName)

/**
 * Who created each of these flags: the user id of its `feature-created` event written at or after its
 * creation time (an earlier flag of the same name, since deleted, had its own).
 */
export async function creatorIdsOfFlags(
  db: Kysely<Database>,
  flags: ReadonlyArray<{ name: string; createdAt: string }>,
): Promise<number[]> {
  if (flags.length === 0) return []
  const createdAt = new Map(flags.map((flag) => [flag.name, new Date(flag.createdAt).getTime()]))
  const rows = await db
    .selectFrom('events')
    .select(['feature_name', 'created_by_user_id', 'created_at'])
    .where(inNames(db, 'feature_name', [...createdAt.keys()]))
    .where('type', '=', 'feature-created')
    .execute()
  const ids = rows
    .filter((row) => new Date(row.created_at).getTime() >= createdAt.get(row.feature_name!)!)
    .map((row) => Number(row.created_by_user_id))
  return [...new Set(ids)]
}

/**
 * A project's events per UTC day since `since` (ISO), oldest day first: the project status's
 * activity. Read through the (project, id) index: the project's events, filtered by time.
 */
export async function projectActivityByDay(
  db: Kysely<Database>,
  project: string,
  since: string,
): Promise<Array<{ date: string; count: number }>> {
  const day =
    dialectOf(db) === 'postgres'
      ? sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`
      : sql<string>`substr(created_at, 1, 10)`
  const rows = await db
    .selectFrom('events')
    .select([day.as('date'), (eb) => eb.fn.countAll<number | string | bigint>().as('count')])
    .where('project', '=', project)
    .where('created_at', '>=', since)
    .groupBy(day)
    .orderBy(day)
    .execute()
  return rows.map((row) => ({ date: row.date, count: Number(row.count) }))
}
