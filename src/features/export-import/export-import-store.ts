/**
 * The reads of export and of import validation: each a query over a batch of names (bound as one
 * parameter, db/name-set.ts), through the tables' keys and indexes, never one query per flag.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { inNames } from '../../db/name-set.ts'
import { toFlag, type Flag } from '../flags/flag-store.ts'
import type { Variant } from '../flag-environments/variant-rules.ts'
import type { FeatureStrategy } from '../flag-environments/strategy-store.ts'

export interface ExportedStrategy extends FeatureStrategy {
  featureName: string
}

export function createExportImportStore(db: Kysely<Database>) {
  return {
    /** The named flags that exist (any project, archived or not), by name. */
    async flagsNamed(names: readonly string[]): Promise<Flag[]> {
      if (names.length === 0) return []
      const rows = await db
        .selectFrom('features')
        .selectAll()
        .where(inNames(db, 'name', names))
        .orderBy('name')
        .execute()
      return rows.map(toFlag)
    },

    /** Every active flag, or a project's, by name. */
    async activeFlags(project?: string): Promise<Flag[]> {
      const rows = await db
        .selectFrom('features')
        .selectAll()
        .where('archived_at', 'is', null)
        .$if(project !== undefined, (query) => query.where('project', '=', project!))
        .orderBy('name')
        .execute()
      return rows.map(toFlag)
    },

    /**
     * The names of the flags with a tag of this value, whatever its type (as the reference's export
     * by tag). The types are few: listing them lets the (type, value) index find the rows.
     */
    async flagsTaggedWithValue(value: string): Promise<string[]> {
      const types = (await db.selectFrom('tag_types').select('name').execute()).map((row) => row.name)
      if (types.length === 0) return []
      const rows = await db
        .selectFrom('feature_tags')
        .select('feature_name')
        .distinct()
        .where(inNames(db, 'tag_type', types))
        .where('tag_value', '=', value)
        .execute()
      return rows.map((row) => row.feature_name)
    },

    /** The flags' state in one environment (flags not in it: absent). */
    async environmentStates(
      names: readonly string[],
      environment: string,
    ): Promise<Map<string, { enabled: boolean; variants: Variant[] }>> {
      if (names.length === 0) return new Map()
      const rows = await db
        .selectFrom('feature_environments')
        .select(['feature', 'enabled', 'variants'])
        .where(inNames(db, 'feature', names))
        .where('environment', '=', environment)
        .execute()
      return new Map(rows.map((row) => [row.feature, { enabled: Boolean(row.enabled), variants: JSON.parse(row.variants) as Variant[] }]))
    },

    /** The flags' strategies in one environment, by flag, in evaluation order; each with its segment ids. */
    async strategies(names: readonly string[], environment: string): Promise<ExportedStrategy[]> {
      if (names.length === 0) return []
      const rows = await db
        .selectFrom('feature_strategies')
        .selectAll()
        .where(inNames(db, 'feature_name', names))
        .where('environment', '=', environment)
        .orderBy('feature_name')
        .orderBy('sort_order')
        .orderBy('id')
        .execute()
      const segments = new Map<string, number[]>()
      if (rows.length > 0) {
        const links = await db
          .selectFrom('feature_strategy_segments')
          .select(['strategy_id', 'segment_id'])
          .where(
            inNames(
              db,
              'strategy_id',
              rows.map((row) => row.id),
            ),
          )
          .orderBy('strategy_id')
          .orderBy('segment_id')
          .execute()
        for (const link of links) segments.set(link.strategy_id, [...(segments.get(link.strategy_id) ?? []), Number(link.segment_id)])
      }
      return rows.map((row) => ({
        id: row.id,
        featureName: row.feature_name,
        name: row.strategy_name,
        constraints: JSON.parse(row.constraints),
        parameters: JSON.parse(row.parameters),
        variants: JSON.parse(row.variants),
        segments: segments.get(row.id) ?? [],
        title: row.title,
        disabled: Boolean(row.disabled),
        sortOrder: Number(row.sort_order),
      }))
    },

    /** The flags' tags, by flag, then in the order they were added. */
    async tags(names: readonly string[]): Promise<Array<{ featureName: string; tagType: string; tagValue: string }>> {
      if (names.length === 0) return []
      const rows = await db
        .selectFrom('feature_tags')
        .select(['feature_name', 'tag_type', 'tag_value'])
        .where(inNames(db, 'feature_name', names))
        .orderBy('feature_name')
        .orderBy('created_at')
        .orderBy('tag_type')
        .orderBy('tag_value')
        .execute()
      return rows.map((row) => ({ featureName: row.feature_name, tagType: row.tag_type, tagValue: row.tag_value }))
    },

    /** The parents of the flags, by child name. */
    async dependencies(names: readonly string[]): Promise<Array<{ child: string; parent: string; enabled: boolean; variants: string[] }>> {
      if (names.length === 0) return []
      const rows = await db
        .selectFrom('feature_dependencies')
        .selectAll()
        .where(inNames(db, 'child', names))
        .orderBy('child')
        .execute()
      return rows.map((row) => ({
        child: row.child,
        parent: row.parent,
        enabled: Boolean(row.enabled),
        variants: JSON.parse(row.variants) as string[],
      }))
    },

    /** Every segment's id, name and project (a few thousand at most: SEGMENT_LIMIT). */
    async segments(): Promise<Array<{ id: number; name: string; project: string | null }>> {
      const rows = await db.selectFrom('segments').select(['id', 'name', 'project']).orderBy('name').orderBy('id').execute()
      return rows.map((row) => ({ id: Number(row.id), name: row.name, project: row.project }))
    },

    /** The strategy definitions' names, and which are custom (editable). */
    async strategyDefinitions(): Promise<Array<{ name: string; editable: boolean }>> {
      const rows = await db.selectFrom('strategy_definitions').select(['name', 'editable']).execute()
      return rows.map((row) => ({ name: row.name, editable: Boolean(row.editable) }))
    },

    /** Whether any of the flags has a strategy in the environment. */
    async anyStrategy(names: readonly string[], environment: string): Promise<boolean> {
      if (names.length === 0) return false
      const row = await db
        .selectFrom('feature_strategies')
        .select('id')
        .where(inNames(db, 'feature_name', names))
        .where('environment', '=', environment)
        .limit(1)
        .executeTakeFirst()
      return row !== undefined
    },
  }
}

export type ExportImportStore = ReturnType<typeof createExportImportStore>
