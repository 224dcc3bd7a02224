/**
 * Whole-database checks that must hold after any sequence of requests, crashes
 * included (docs/contract.md §2 and §6). Each returns a list of violations; empty means sound.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../src/db/tables.ts'
import { dialectOf } from '../src/db/dialect.ts'

/** Every dependency links two active flags of one project; a child has one parent; no flag is both. */
export async function dependencyViolations(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = []
  const broken = await db
    .selectFrom('feature_dependencies as d')
    .innerJoin('features as c', 'c.name', 'd.child')
    .innerJoin('features as p', 'p.name', 'd.parent')
    .select(['d.child', 'd.parent'])
    .where((eb) =>
      eb.or([eb('c.archived_at', 'is not', null), eb('p.archived_at', 'is not', null), eb('c.project', '<>', eb.ref('p.project'))]),
    )
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

/**
 * Event ids: on SQLite they run 1…N without gaps and N is the counter; on PostgreSQL (a sequence,
 * where a rolled-back write leaves a gap) none is above the sequence's last value. Every flag and
 * segment has its creation event.
 */
export async function eventViolations(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = []
  const { count, max } = await db
    .selectFrom('events')
    .select([sql<number>`count(*)`.as('count'), sql<number | null>`max(id)`.as('max')])
    .executeTakeFirstOrThrow()
  if (dialectOf(db) === 'sqlite') {
    const counter = await db.selectFrom('counters').select('value').where('name', '=', 'event_id').executeTakeFirstOrThrow()
    if (Number(count) !== Number(max ?? 0) || Number(counter.value) !== Number(count)) {
      problems.push(`events: count ${count}, max id ${max}, counter ${counter.value}`)
    }
  } else {
    const drawn = (
      await sql<{
        value: string
      }>`select coalesce(last_value, 0)::text as value from pg_sequences where sequencename = 'event_ids' and schemaname = current_schema()`.execute(
        db,
      )
    ).rows[0]
    if (Number(max ?? 0) > Number(drawn?.value ?? 0)) problems.push(`events: max id ${max}, sequence at ${drawn?.value}`)
  }
  const flagsWithoutEvent = await db
    .selectFrom('features as f')
    .select('f.name')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('events as e').select('e.id').whereRef('e.feature_name', '=', 'f.name').where('e.type', '=', 'feature-created'),
        ),
      ),
    )
    .execute()
  for (const row of flagsWithoutEvent) problems.push(`flag ${row.name} has no feature-created event`)
  const segments = await db.selectFrom('segments').select(['id', 'name']).execute()
  const segmentEvents = await db.selectFrom('events').select('json').where('type', '=', 'segment-created').execute()
  const created = new Set(segmentEvents.map((e) => (JSON.parse(e.json) as { data: { id: number } }).data.id))
  for (const segment of segments) if (!created.has(segment.id)) problems.push(`segment ${segment.id} has no segment-created event`)
  const segmentCount = await db.selectFrom('counters').select('value').where('name', '=', 'segment_count').executeTakeFirstOrThrow()
  // PostgreSQL reserves room before a batch writes (segment-store.ts): a crash in between leaves
  // the count above the segments until a create short of room recounts.
  const countHolds =
    dialectOf(db) === 'sqlite' ? Number(segmentCount.value) === segments.length : Number(segmentCount.value) >= segments.length
  if (!countHolds) problems.push(`segment_count ${segmentCount.value} but ${segments.length} segments`)
  return problems
}

interface StrategyEvent {
  id: number
  type: string
  featureName: string
  environment: string
  data: { id: string } | null
  preData: { id: string } | null
}

/**
 * Every strategy is what its last event says (and a removed one's last event is its removal),
 * and every active flag's switch in an environment is what its last enabled/disabled event says
 * (off when there is none): no change without its event, no event without its change.
 */
export async function flagStateViolations(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = []
  const rows = await db
    .selectFrom('events')
    .select('json')
    .where('type', 'in', [
      'feature-strategy-add',
      'feature-strategy-update',
      'feature-strategy-remove',
      'feature-environment-enabled',
      'feature-environment-disabled',
    ])
    .orderBy('id')
    .execute()
  const events = rows.map((row) => JSON.parse(row.json) as StrategyEvent)
  const lastOfStrategy = new Map<string, StrategyEvent>()
  const lastSwitch = new Map<string, boolean>()
  for (const event of events) {
    const strategyId = event.data?.id ?? event.preData?.id
    if (strategyId !== undefined) lastOfStrategy.set(strategyId, event)
    if (event.type === 'feature-environment-enabled' || event.type === 'feature-environment-disabled') {
      lastSwitch.set(`${event.featureName}/${event.environment}`, event.type === 'feature-environment-enabled')
    }
  }

  const strategies = await db.selectFrom('feature_strategies').selectAll().execute()
  const segments = await db.selectFrom('feature_strategy_segments').select(['strategy_id', 'segment_id']).orderBy('segment_id').execute()
  for (const row of strategies) {
    const stored = {
      id: row.id,
      name: row.strategy_name,
      constraints: JSON.parse(row.constraints),
      parameters: JSON.parse(row.parameters),
      variants: JSON.parse(row.variants),
      segments: segments.filter((s) => s.strategy_id === row.id).map((s) => Number(s.segment_id)),
      title: row.title,
      disabled: Boolean(row.disabled),
      sortOrder: Number(row.sort_order),
    }
    const last = lastOfStrategy.get(row.id)
    if (!last || last.type === 'feature-strategy-remove')
      problems.push(`strategy ${row.id} of ${row.feature_name} has no add or update event as its last`)
    else if (JSON.stringify(last.data) !== JSON.stringify(stored))
      problems.push(`strategy ${row.id} of ${row.feature_name} is not what its last event (${last.id}) says`)
    lastOfStrategy.delete(row.id)
  }
  for (const [id, last] of lastOfStrategy) {
    // A strategy that is gone went with its removal, or with its flag or its environment.
    if (last.type !== 'feature-strategy-remove') {
      const flag = await db
        .selectFrom('feature_environments')
        .select('feature')
        .where('feature', '=', last.featureName)
        .where('environment', '=', last.environment)
        .executeTakeFirst()
      if (flag) problems.push(`strategy ${id} of ${last.featureName} is gone without a removal event`)
    }
  }

  const switches = await db
    .selectFrom('feature_environments')
    .innerJoin('features', 'features.name', 'feature_environments.feature')
    .select(['feature', 'environment', 'enabled'])
    .where('features.archived_at', 'is', null)
    .execute()
  for (const row of switches) {
    const expected = lastSwitch.get(`${row.feature}/${row.environment}`) ?? false
    if (Boolean(row.enabled) !== expected)
      problems.push(
        `${row.feature} is ${row.enabled ? 'on' : 'off'} in ${row.environment}, but its last event says ${expected ? 'on' : 'off'}`,
      )
  }
  return problems
}
