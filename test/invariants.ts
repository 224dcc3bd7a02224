/**
 * Whole-database checks that must hold after any sequence of requests, crashes
 * included (spec §2 and §6). Each returns a list of violations; empty means sound.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../src/db/tables.ts'

/** Every dependency links two active flags of one project; a child has one parent; no flag is both. */
export async function dependencyViolations(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = []
  const broken = await db
    .selectFrom('feature_dependencies as d')
    .innerJoin('features as c', 'c.name', 'd.child')
    .innerJoin('features as p', 'p.name', 'd.parent')
    .select(['d.child', 'd.parent'])
    .where((eb) => eb.or([eb('c.archived_at', 'is not', null), eb('p.archived_at', 'is not', null), eb('c.project', '<>', eb.ref('p.project'))]))
    .execute()
  for (const row of broken) problems.push(`dependency ${row.child} → ${row.parent} links an archived flag or two projects`)
  const chained = await db
    .selectFrom('feature_dependencies as d')
    .select('d.parent')
    .where('d.parent', 'in', (eb) => eb.selectFrom('feature_dependencies').select('child'))
    .execute()
  for (const row of chained) problems.push(`flag ${row.parent} is both a parent and a child`)
  return problems
}

/** Event ids run 1…N without gaps, N is the counter, and every flag and segment has its creation event. */
export async function eventViolations(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = []
  const { count, max } = await db
    .selectFrom('events')
    .select([sql<number>`count(*)`.as('count'), sql<number | null>`max(id)`.as('max')])
    .executeTakeFirstOrThrow()
  const counter = await db.selectFrom('counters').select('value').where('name', '=', 'event_id').executeTakeFirstOrThrow()
  if (Number(count) !== Number(max ?? 0) || Number(counter.value) !== Number(count)) {
    problems.push(`events: count ${count}, max id ${max}, counter ${counter.value}`)
  }
  const flagsWithoutEvent = await db
    .selectFrom('features as f')
    .select('f.name')
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('events as e').select('e.id').whereRef('e.feature_name', '=', 'f.name').where('e.type', '=', 'feature-created'))),
    )
    .execute()
  for (const row of flagsWithoutEvent) problems.push(`flag ${row.name} has no feature-created event`)
  const segments = await db.selectFrom('segments').select(['id', 'name']).execute()
  const segmentEvents = await db.selectFrom('events').select('json').where('type', '=', 'segment-created').execute()
  const created = new Set(segmentEvents.map((e) => (JSON.parse(e.json) as { data: { id: number } }).data.id))
  for (const segment of segments) if (!created.has(segment.id)) problems.push(`segment ${segment.id} has no segment-created event`)
  const segmentCount = await db.selectFrom('counters').select('value').where('name', '=', 'segment_count').executeTakeFirstOrThrow()
  if (Number(segmentCount.value) !== segments.length) problems.push(`segment_count ${segmentCount.value} but ${segments.length} segments`)
  return problems
}
