/**
 * Every active flag as SDKs evaluate it in one environment, read in five queries whatever the
 * number of flags (flags with their state there, enabled strategies, their segments, the segments'
 * constraints, dependencies), in the shapes of the reference's client API.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { Constraint } from '../constraints/constraints.ts'
import type { Variant } from '../flag-environments/variant-rules.ts'
import { latestEventId } from '../events/event-log.ts'

export interface ClientStrategy {
  name: string
  constraints: Constraint[]
  parameters: Record<string, string>
  variants: Omit<Variant, 'overrides'>[]
  /** Ids of the segments whose constraints also apply, ascending; only when there are some. */
  segments?: number[]
  /** Only in a read for explaining (`{ explained: true }`, the playground): never sent to SDKs. */
  id?: string
  title?: string
  /** Ditto: such a read has the disabled strategies too, marked (the evaluator lists them, never evaluates them). */
  disabled?: boolean
}

export interface ClientDependency {
  feature: string
  enabled: boolean
  /** Only when the parent must be enabled. */
  variants?: string[]
}

/** A flag as `GET /api/client/features` shows it (clientFeatureSchema), keys in the reference's order. */
export interface ClientFeature {
  name: string
  type: string
  enabled: boolean
  project: string
  stale: boolean
  strategies: ClientStrategy[]
  variants: Variant[]
  description: string | null
  impressionData: boolean
  dependencies?: ClientDependency[]
}

export interface ClientSegment {
  id: number
  name: string
  constraints: Constraint[]
}

/** What one environment serves: flags by name (code point order), and the segments they use. */
export interface EnvironmentFlags {
  environment: string
  features: ClientFeature[]
  segments: Map<number, ClientSegment>
  /** The event id when it was read: the reference's `revisionId`. */
  revisionId: number
}

export interface ReadOptions {
  /**
   * For explaining an evaluation (the playground): strategies carry their `id` and `title`, and
   * the disabled ones are there too, with `disabled: true`. The rest is what SDKs are served.
   */
  explained?: boolean
}

/**
 * One snapshot (a repeatable-read transaction on PostgreSQL; on SQLite a read transaction, which
 * sees one state of the file), so a strategy never names a segment the same read does not have.
 */
export function readEnvironmentFlags(db: Kysely<Database>, environment: string, options: ReadOptions = {}): Promise<EnvironmentFlags> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute((trx) => readIn(trx, environment, options.explained === true))
}

async function readIn(db: Kysely<Database>, environment: string, explained: boolean): Promise<EnvironmentFlags> {
  const [flags, strategies, links, segments, dependencies, revision] = await Promise.all([
    db
      .selectFrom('features')
      .leftJoin('feature_environments', (join) =>
        join.onRef('feature_environments.feature', '=', 'features.name').on('feature_environments.environment', '=', environment),
      )
      .select([
        'features.name',
        'features.type',
        'features.project',
        'features.stale',
        'features.description',
        'features.impression_data',
        'feature_environments.enabled',
        'feature_environments.variants',
      ])
      .where('features.archived_at', 'is', null)
      .orderBy('features.name')
      .execute(),
    db
      .selectFrom('feature_strategies')
      .select(['id', 'feature_name', 'strategy_name', 'constraints', 'parameters', 'variants', 'title', 'disabled'])
      .where('environment', '=', environment)
      .$if(!explained, (query) => query.where('disabled', '=', false))
      .orderBy('feature_name')
      .orderBy('sort_order')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('feature_strategy_segments')
      .innerJoin('feature_strategies', 'feature_strategies.id', 'feature_strategy_segments.strategy_id')
      .select(['feature_strategy_segments.strategy_id', 'feature_strategy_segments.segment_id'])
      .where('feature_strategies.environment', '=', environment)
      .orderBy('feature_strategy_segments.segment_id')
      .execute(),
    db
      .selectFrom('segments')
      .select(['id', 'name', 'constraints'])
      .where('id', 'in', (eb) => eb.selectFrom('feature_strategy_segments').select('segment_id'))
      .execute(),
    db.selectFrom('feature_dependencies').selectAll().orderBy('child').orderBy('parent').execute(),
    latestEventId(db).executeTakeFirst(),
  ])

  const segmentsOf = new Map<string, number[]>()
  for (const link of links) {
    const list = segmentsOf.get(link.strategy_id) ?? []
    list.push(Number(link.segment_id))
    segmentsOf.set(link.strategy_id, list)
  }
  const strategiesOf = new Map<string, ClientStrategy[]>()
  for (const row of strategies) {
    const list = strategiesOf.get(row.feature_name) ?? []
    const segmentIds = segmentsOf.get(row.id)
    list.push({
      name: row.strategy_name,
      constraints: JSON.parse(row.constraints),
      parameters: JSON.parse(row.parameters),
      variants: JSON.parse(row.variants),
      ...(segmentIds ? { segments: segmentIds } : {}),
      ...(explained ? { id: row.id, ...(row.title ? { title: row.title } : {}), disabled: Boolean(row.disabled) } : {}),
    })
    strategiesOf.set(row.feature_name, list)
  }
  const dependenciesOf = new Map<string, ClientDependency[]>()
  for (const row of dependencies) {
    const list = dependenciesOf.get(row.child) ?? []
    const enabled = Boolean(row.enabled)
    list.push({ feature: row.parent, enabled, ...(enabled ? { variants: JSON.parse(row.variants) as string[] } : {}) })
    dependenciesOf.set(row.child, list)
  }

  const features = flags.map((row): ClientFeature => {
    const feature: ClientFeature = {
      name: row.name,
      type: row.type,
      enabled: Boolean(row.enabled),
      project: row.project,
      stale: Boolean(row.stale),
      strategies: strategiesOf.get(row.name) ?? [],
      variants: row.variants === null ? [] : (JSON.parse(row.variants) as Variant[]),
      description: row.description,
      impressionData: Boolean(row.impression_data),
    }
    const parents = dependenciesOf.get(row.name)
    if (parents) feature.dependencies = parents
    return feature
  })
  return {
    environment,
    features,
    segments: new Map(
      segments.map((row) => [
        Number(row.id),
        { id: Number(row.id), name: row.name, constraints: JSON.parse(row.constraints) as Constraint[] },
      ]),
    ),
    revisionId: Number(revision?.id ?? 0),
  }
}

/** The flags with any of these tags (`[type, value]`), active or not: the tag filter of the client API. */
export async function flagsTagged(db: Kysely<Database>, tags: readonly (readonly string[])[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('feature_tags')
    .select('feature_name')
    .distinct()
    .where((eb) => eb.or(tags.map(([type, value]) => eb.and([eb('tag_type', '=', type!), eb('tag_value', '=', value!)]))))
    .execute()
  return new Set(rows.map((row) => row.feature_name))
}
