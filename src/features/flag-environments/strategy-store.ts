import type { Kysely } from 'kysely'
import type { Database, FeatureStrategiesTable } from '../../db/tables.ts'
import type { StrategyData } from '../events/event-types.ts'
import { inNames } from '../../db/name-set.ts'
import type { Constraint } from '../constraints/constraints.ts'
import type { Variant } from './variant-rules.ts'
import { lockedRows } from '../../db/row-lock.ts'

/** An activation strategy as the API shows it (and as its events carry it). */
export interface FeatureStrategy extends StrategyData {
  constraints: Constraint[]
  variants: Variant[]
}

/** Where a strategy lives. */
export interface StrategyPlace {
  project: string
  feature: string
  environment: string
}

function toStrategy(row: FeatureStrategiesTable, segments: number[]): FeatureStrategy {
  return {
    id: row.id,
    name: row.strategy_name,
    constraints: JSON.parse(row.constraints),
    parameters: JSON.parse(row.parameters),
    variants: JSON.parse(row.variants),
    segments,
    title: row.title,
    disabled: Boolean(row.disabled),
    sortOrder: Number(row.sort_order),
  }
}

function columnsOf(strategy: FeatureStrategy) {
  return {
    strategy_name: strategy.name,
    title: strategy.title,
    disabled: strategy.disabled,
    parameters: JSON.stringify(strategy.parameters),
    constraints: JSON.stringify(strategy.constraints),
    variants: JSON.stringify(strategy.variants),
    sort_order: strategy.sortOrder,
  }
}

export function createStrategyStore(db: Kysely<Database>) {
  /** The segment ids of each strategy, in one query, ascending. */
  async function segmentsOf(ids: readonly string[]): Promise<Map<string, number[]>> {
    const byStrategy = new Map<string, number[]>(ids.map((id) => [id, []]))
    if (ids.length === 0) return byStrategy
    const rows = await db
      .selectFrom('feature_strategy_segments')
      .select(['strategy_id', 'segment_id'])
      .where(inNames(db, 'strategy_id', ids))
      .orderBy('strategy_id')
      .orderBy('segment_id')
      .execute()
    for (const row of rows) byStrategy.get(row.strategy_id)?.push(Number(row.segment_id))
    return byStrategy
  }

  async function withSegments(rows: FeatureStrategiesTable[]): Promise<FeatureStrategy[]> {
    const segments = await segmentsOf(rows.map((row) => row.id))
    return rows.map((row) => toStrategy(row, segments.get(row.id) ?? []))
  }

  async function addSegments(id: string, segments: readonly number[]): Promise<void> {
    if (segments.length > 0) {
      await db
        .insertInto('feature_strategy_segments')
        .values(segments.map((segment) => ({ strategy_id: id, segment_id: segment })))
        .execute()
    }
  }

  async function replaceSegments(id: string, segments: readonly number[]): Promise<void> {
    await db.deleteFrom('feature_strategy_segments').where('strategy_id', '=', id).execute()
    await addSegments(id, segments)
  }

  return {
    /** The strategies of a flag in one environment, or in all (by environment), in evaluation order. */
    async list(feature: string, environment?: string): Promise<FeatureStrategy[]> {
      const rows = await db
        .selectFrom('feature_strategies')
        .selectAll()
        .where('feature_name', '=', feature)
        .$if(environment !== undefined, (query) => query.where('environment', '=', environment!))
        .orderBy('environment')
        .orderBy('sort_order')
        .orderBy('id')
        .execute()
      return withSegments(rows)
    },

    /** The strategies of a flag, per environment. */
    async listByEnvironment(feature: string): Promise<Map<string, FeatureStrategy[]>> {
      const rows = await db
        .selectFrom('feature_strategies')
        .selectAll()
        .where('feature_name', '=', feature)
        .orderBy('environment')
        .orderBy('sort_order')
        .orderBy('id')
        .execute()
      const strategies = await withSegments(rows)
      const byEnvironment = new Map<string, FeatureStrategy[]>()
      rows.forEach((row, index) => {
        const list = byEnvironment.get(row.environment) ?? []
        list.push(strategies[index]!)
        byEnvironment.set(row.environment, list)
      })
      return byEnvironment
    },

    /** A strategy of this flag in this environment; `forUpdate` locks its row on PostgreSQL. */
    /** Where the strategy with this id lives (by its key); undefined when there is none. */
    async placeOf(id: string): Promise<StrategyPlace | undefined> {
      const row = await db
        .selectFrom('feature_strategies')
        .select(['project', 'feature_name', 'environment'])
        .where('id', '=', id)
        .executeTakeFirst()
      return row && { project: row.project, feature: row.feature_name, environment: row.environment }
    },

    async find(place: StrategyPlace, id: string, { forUpdate = false } = {}): Promise<FeatureStrategy | undefined> {
      const row = await db
        .selectFrom('feature_strategies')
        .selectAll()
        .where('id', '=', id)
        .where('feature_name', '=', place.feature)
        .where('environment', '=', place.environment)
        .$call(lockedRows(db, { when: forUpdate }))
        .executeTakeFirst()
      return row && (await withSegments([row]))[0]
    },

    /** After the last one: the sort order a strategy added without one gets. */
    async nextSortOrder(feature: string, environment: string): Promise<number> {
      const row = await db
        .selectFrom('feature_strategies')
        .select((eb) => eb.fn.max('sort_order').as('max'))
        .where('feature_name', '=', feature)
        .where('environment', '=', environment)
        .executeTakeFirst()
      return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1
    },

    async insert(place: StrategyPlace, strategy: FeatureStrategy, createdAt: string): Promise<void> {
      await db
        .insertInto('feature_strategies')
        .values({
          id: strategy.id,
          feature_name: place.feature,
          project: place.project,
          environment: place.environment,
          created_at: createdAt,
          ...columnsOf(strategy),
        })
        .execute()
      // A row just inserted has no links yet (a restored id's went with its row: on delete cascade).
      await addSegments(strategy.id, strategy.segments)
    },

    async update(strategy: FeatureStrategy): Promise<void> {
      await db.updateTable('feature_strategies').set(columnsOf(strategy)).where('id', '=', strategy.id).execute()
      await replaceSegments(strategy.id, strategy.segments)
    },

    async setSortOrder(id: string, sortOrder: number): Promise<void> {
      await db.updateTable('feature_strategies').set({ sort_order: sortOrder }).where('id', '=', id).execute()
    },

    async delete(id: string): Promise<void> {
      await db.deleteFrom('feature_strategies').where('id', '=', id).execute()
    },
  }
}

export type StrategyStore = ReturnType<typeof createStrategyStore>
