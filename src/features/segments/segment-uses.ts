/**
 * What segments ask of the strategies that use them. Strategies belong to flag-environments/, above
 * segments/: app.ts hands these functions over (flag-environments/strategy-uses.ts), and segments/
 * never imports that folder nor names its tables (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export interface StrategyUsingSegment {
  id: string
  featureName: string
  projectId: string
  environment: string
  strategyName: string
}

export interface SegmentUses {
  /** Per segment in use: how many active flags and projects use it through their strategies. */
  usage(db: Kysely<Database>): Promise<Map<number, { usedInFeatures: number; usedInProjects: number }>>
  /** The strategies that use a segment (archived flags' too), by flag, environment and id. */
  strategiesUsing(db: Kysely<Database>, id: number): Promise<StrategyUsingSegment[]>
}
