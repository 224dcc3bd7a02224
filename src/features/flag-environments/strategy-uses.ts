/**
 * What folders below flag-environments/ ask of its strategies — which strategies use a segment, a
 * context field, a strategy type — read here, where feature_strategies and feature_strategy_segments
 * belong, and handed down by app.ts as each folder's own narrow interface (segments/segment-uses.ts,
 * context-fields/field-uses.ts, strategy-definitions/definition-uses.ts).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import type { Database } from '../../db/tables.ts'
import type { FieldUsage, StrategyUsingField } from '../context-fields/context-field-store.ts'
import type { FieldUses } from '../context-fields/field-uses.ts'
import { activeFlagNames } from '../flags/flag-store.ts'
import type { SegmentUses } from '../segments/segment-uses.ts'
import type { DefinitionUses } from '../strategy-definitions/definition-uses.ts'

/**
 * The constraints of a strategy row (`fs`), one row each (`c.value`), and a constraint's
 * context name: JSON functions of each database over the stored JSON text.
 */
function constraintsOf(db: Kysely<Database>): { join: RawBuilder<unknown>; contextName: RawBuilder<string> } {
  return dialectOf(db) === 'postgres'
    ? { join: sql`jsonb_array_elements(fs.constraints::jsonb) as c`, contextName: sql<string>`c.value ->> 'contextName'` }
    : { join: sql`json_each(fs.constraints) as c`, contextName: sql<string>`json_extract(c.value, '$.contextName')` }
}

/**
 * A strategy row `fs` of an active flag with a constraint on `name`. Only rows whose JSON
 * text contains the name as a context name (a substring test, exact or wider) are parsed to
 * confirm it: the scan reads the strategies with constraints (an index holds exactly those).
 */
function constrainsOn(db: Kysely<Database>, name: string): RawBuilder<boolean> {
  const { join, contextName } = constraintsOf(db)
  // As the stored JSON writes it (JSON.stringify on both sides, so any name is found).
  const needle = `"contextName":${JSON.stringify(name)}`
  const contains = dialectOf(db) === 'postgres' ? sql`strpos(fs.constraints, ${needle}) > 0` : sql`instr(fs.constraints, ${needle}) > 0`
  return sql<boolean>`fs.constraints <> '[]' and fs.feature_name in (${activeFlagNames(db)}) and ${contains}
    and exists (select 1 from ${join} where ${contextName} = ${name})`
}

export const segmentUses = {
  /** Per segment in use: how many active flags and projects use it through their strategies. */
  async usage(db: Kysely<Database>): Promise<Map<number, { usedInFeatures: number; usedInProjects: number }>> {
    const rows = await db
      .selectFrom('feature_strategy_segments')
      .innerJoin('feature_strategies', 'feature_strategies.id', 'feature_strategy_segments.strategy_id')
      .select((eb) => [
        'feature_strategy_segments.segment_id',
        eb.fn.count<number>('feature_strategies.feature_name').distinct().as('features'),
        eb.fn.count<number>('feature_strategies.project').distinct().as('projects'),
      ])
      .where('feature_strategies.feature_name', 'in', activeFlagNames(db))
      .groupBy('feature_strategy_segments.segment_id')
      .execute()
    return new Map(
      rows.map((row) => [Number(row.segment_id), { usedInFeatures: Number(row.features), usedInProjects: Number(row.projects) }]),
    )
  },
  /** The strategies that use a segment (archived flags' too), by flag, environment and id. */
  async strategiesUsing(
    db: Kysely<Database>,
    id: number,
  ): Promise<Array<{ id: string; featureName: string; projectId: string; environment: string; strategyName: string }>> {
    const rows = await db
      .selectFrom('feature_strategy_segments')
      .innerJoin('feature_strategies', 'feature_strategies.id', 'feature_strategy_segments.strategy_id')
      .select(['feature_strategies.id', 'feature_name', 'project', 'environment', 'strategy_name'])
      .where('feature_strategy_segments.segment_id', '=', id)
      .orderBy('feature_name')
      .orderBy('environment')
      .orderBy('feature_strategies.id')
      .execute()
    return rows.map((row) => ({
      id: row.id,
      featureName: row.feature_name,
      projectId: row.project,
      environment: row.environment,
      strategyName: row.strategy_name,
    }))
  },
} satisfies SegmentUses

export const fieldUses = {
  /**
   * Per context name used (defined as a field or not): how many active flags and projects
   * constrain on it. One pass over the strategies that have constraints (an index holds exactly
   * those: migration 0011), each one's JSON read by the database and counted there: a row per
   * name comes back, whatever the number of strategies.
   */
  async usage(db: Kysely<Database>): Promise<Map<string, FieldUsage>> {
    const { join, contextName } = constraintsOf(db)
    const { rows } = await sql<{ name: string | null; features: number | string; projects: number | string }>`
      select ${contextName} as name, count(distinct fs.feature_name) as features, count(distinct fs.project) as projects
      from feature_strategies fs
      cross join ${join}
      where fs.constraints <> '[]' and fs.feature_name in (${activeFlagNames(db)})
      group by 1`.execute(db)
    return new Map(
      rows.filter((row) => row.name !== null).map((row) => [row.name!, { features: Number(row.features), projects: Number(row.projects) }]),
    )
  },

  /** The strategies of active flags with a constraint on `name`, by flag, environment and order. */
  async strategiesUsing(db: Kysely<Database>, name: string): Promise<StrategyUsingField[]> {
    const { rows } = await sql<StrategyUsingField>`
      select fs.id, fs.project as "projectId", fs.feature_name as "featureName", fs.strategy_name as "strategyName", fs.environment
      from feature_strategies fs
      where ${constrainsOn(db, name)}
      order by fs.feature_name, fs.environment, fs.sort_order, fs.id`.execute(db)
    return rows
  },

  /** The active flags with a strategy constraint on `name`, by name, at most `limit`. */
  async flagsUsing(db: Kysely<Database>, name: string, limit: number): Promise<string[]> {
    const { rows } = await sql<{ name: string }>`
      select distinct fs.feature_name as name
      from feature_strategies fs
      where ${constrainsOn(db, name)}
      order by fs.feature_name
      limit ${limit}`.execute(db)
    return rows.map((row) => row.name)
  },
} satisfies FieldUses

export const definitionUses = {
  /** The flags (archived ones too) with a strategy of this name, by name, at most `limit`. */
  async flagsUsing(db: Kysely<Database>, name: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('feature_strategies')
      .select('feature_name')
      .distinct()
      .where('strategy_name', '=', name)
      .orderBy('feature_name')
      .limit(limit)
      .execute()
    return rows.map((row) => row.feature_name)
  },
} satisfies DefinitionUses

/**
 * The variants flags define, for the metrics' bounds on variant names: one row per flag
 * environment and per strategy that has any (a flag may appear many times).
 */
export async function flagVariantRows(db: Kysely<Database>): Promise<Array<{ feature: string; variants: string }>> {
  const [environmentVariants, strategyVariants] = await Promise.all([
    db.selectFrom('feature_environments').select(['feature', 'variants']).where('variants', '!=', '[]').execute(),
    db.selectFrom('feature_strategies').select(['feature_name as feature', 'variants']).where('variants', '!=', '[]').execute(),
  ])
  return [...environmentVariants, ...strategyVariants]
}

/** Every (flag, environment) pair that has a row, as a subquery (metrics keep last-seen times only for those). */
export function flagEnvironmentPairs(db: Kysely<Database>) {
  return db.selectFrom('feature_environments').select(['feature', 'environment'])
}
