import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { inNames } from '../../db/name-set.ts'
import { activeFlagNames, flagCreationTimes, flagNamesOfProject } from '../flags/flag-store.ts'
import { environmentRows, environmentsOfProject } from '../environments/environment-store.ts'
import type { Variant } from './variant-rules.ts'
import { lockedRows } from '../../db/row-lock.ts'

/** A flag's state in one environment, with what the environment itself says. */
export interface FeatureEnvironment {
  name: string
  type: string
  sortOrder: number
  enabled: boolean
  variants: Variant[]
  /** When SDK metrics last counted the flag here (ISO), or null */
  lastSeenAt: string | null
}

export function createFlagEnvironmentStore(db: Kysely<Database>) {
  const base = () =>
    db
      .selectFrom('feature_environments')
      .innerJoin(environmentRows(db).as('environments'), 'environments.name', 'feature_environments.environment')
      .innerJoin(flagCreationTimes(db).as('features'), 'features.name', 'feature_environments.feature')
      .leftJoin('last_seen_at_metrics as seen', (join) =>
        join
          .onRef('seen.feature_name', '=', 'feature_environments.feature')
          .onRef('seen.environment', '=', 'feature_environments.environment'),
      )
      .select([
        'environments.name',
        'environments.type',
        'environments.sort_order',
        'feature_environments.enabled',
        'feature_environments.variants',
      ])
      // Metrics rows outlive a deleted flag (migration 0007): a flag of the same name created since shows none of them.
      .select(sql<string | null>`case when seen.last_seen_at >= features.created_at then seen.last_seen_at end`.as('last_seen_at'))

  const toFeatureEnvironment = (row: {
    name: string
    type: string
    sort_order: number
    enabled: boolean | number
    variants: string
    last_seen_at: string | null
  }): FeatureEnvironment => ({
    name: row.name,
    type: row.type,
    sortOrder: Number(row.sort_order),
    enabled: Boolean(row.enabled),
    variants: JSON.parse(row.variants) as Variant[],
    lastSeenAt: row.last_seen_at,
  })

  return {
    /** A new flag gets a disabled row in each environment of its project. */
    async addNewFlag(feature: string, project: string): Promise<void> {
      await db
        .insertInto('feature_environments')
        .columns(['environment', 'feature', 'enabled', 'variants'])
        .expression(
          environmentsOfProject(db, project).select((eb) => [
            eb.val(feature).as('feature'),
            sql.lit(false).as('enabled'),
            eb.val('[]').as('variants'),
          ]),
        )
        .execute()
    },

    /**
     * Per environment: its enabled active flags (`project`: of that project only), for the
     * environment lists (FlagsOfEnvironments).
     */
    async enabledCounts(project?: string): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('feature_environments')
        .select(['environment', (eb) => eb.fn.countAll<number>().as('n')])
        .where('feature', 'in', project === undefined ? activeFlagNames(db) : flagNamesOfProject(db, project, { active: true }))
        .where('enabled', '=', true)
        .groupBy('environment')
        .execute()
      return new Map(rows.map((row) => [row.environment, Number(row.n)]))
    },

    /** An environment added to a project: a disabled row in it for each of the project's flags (archived ones too: a revived flag finds its environments). */
    async addEnvironmentOfProject(project: string, environment: string): Promise<void> {
      await db
        .insertInto('feature_environments')
        .columns(['feature', 'environment', 'enabled', 'variants'])
        .expression(
          flagNamesOfProject(db, project).select((eb) => [
            eb.val(environment).as('environment'),
            sql.lit(false).as('enabled'),
            eb.val('[]').as('variants'),
          ]),
        )
        .onConflict((oc) => oc.doNothing())
        .execute()
    },

    /** An environment removed from a project: the project's flags' rows there, with their strategies (a cascading key). */
    async removeEnvironmentOfProject(project: string, environment: string): Promise<void> {
      await db
        .deleteFrom('feature_environments')
        .where('environment', '=', environment)
        .where('feature', 'in', flagNamesOfProject(db, project))
        .execute()
    },

    /** The flag's environments, by sort order then name. */
    async list(feature: string): Promise<FeatureEnvironment[]> {
      const rows = await base()
        .where('feature_environments.feature', '=', feature)
        .orderBy('environments.sort_order')
        .orderBy('environments.name')
        .execute()
      return rows.map(toFeatureEnvironment)
    },

    /**
     * The flag's row in one environment, locked until the transaction ends on PostgreSQL
     * (SQLite writers already run one at a time): every change to a flag's state, strategies
     * or variants in an environment takes this lock first, so concurrent edits queue instead
     * of overwriting each other.
     */
    async lock(feature: string, environment: string): Promise<FeatureEnvironment | undefined> {
      const row = await base()
        .where('feature_environments.feature', '=', feature)
        .where('feature_environments.environment', '=', environment)
        .$call(lockedRows(db, { of: 'feature_environments' }))
        .executeTakeFirst()
      return row && toFeatureEnvironment(row)
    },

    async setEnabled(feature: string, environment: string, enabled: boolean): Promise<void> {
      await db
        .updateTable('feature_environments')
        .set({ enabled })
        .where('feature', '=', feature)
        .where('environment', '=', environment)
        .execute()
    },

    async setVariants(feature: string, environment: string, variants: readonly Variant[]): Promise<void> {
      await db
        .updateTable('feature_environments')
        .set({ variants: JSON.stringify(variants) })
        .where('feature', '=', feature)
        .where('environment', '=', environment)
        .execute()
    },

    /** Archived flags are off everywhere; returns what was on, by flag then environment. */
    async disableEverywhere(features: readonly string[]): Promise<Array<{ feature: string; environment: string }>> {
      if (features.length === 0) return []
      const rows = await db
        .updateTable('feature_environments')
        .set({ enabled: false })
        .where(inNames(db, 'feature', features))
        .where('enabled', '=', true)
        .returning(['feature', 'environment'])
        .execute()
      return rows.sort((a, b) => (a.feature === b.feature ? (a.environment < b.environment ? -1 : 1) : a.feature < b.feature ? -1 : 1))
    },

    /** Which of the named flags are on in the environment: a read by the key (SDK sightings, metrics/). */
    async enabledIn(features: readonly string[], environment: string): Promise<Set<string>> {
      if (features.length === 0) return new Set()
      const rows = await db
        .selectFrom('feature_environments')
        .select('feature')
        .where(inNames(db, 'feature', features))
        .where('environment', '=', environment)
        .where('enabled', '=', true)
        .execute()
      return new Set(rows.map((row) => row.feature))
    },

    /** The variant names of a flag's environments and of its strategies, in every environment: unique, sorted. */
    async variantNamesOf(feature: string): Promise<string[]> {
      const [environments, strategies] = await Promise.all([
        db.selectFrom('feature_environments').select('variants').where('feature', '=', feature).execute(),
        db.selectFrom('feature_strategies').select('variants').where('feature_name', '=', feature).execute(),
      ])
      const names = [...environments, ...strategies].flatMap((row) =>
        (JSON.parse(row.variants) as Array<{ name: string }>).map((v) => v.name),
      )
      return [...new Set(names)].sort()
    },
  }
}

export type FlagEnvironmentStore = ReturnType<typeof createFlagEnvironmentStore>
