import { sql, type ExpressionBuilder, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import { inNames } from '../../db/name-set.ts'
import type { Database } from '../../db/tables.ts'
import { latestStageOfFlag, type Stage } from '../lifecycle/lifecycle-store.ts'
import { favoriteFeatureNames } from '../favorites/favorite-store.ts'

/** A list filter: the values, or (`exclude`) anything but them. */
export interface ListFilter<V = string> {
  exclude: boolean
  values: V[]
}

/** The reference's set operators on a flag's tags or segments. */
export type SetOperator = 'INCLUDE' | 'DO_NOT_INCLUDE' | 'INCLUDE_ALL_OF' | 'INCLUDE_ANY_OF' | 'EXCLUDE_IF_ANY_OF' | 'EXCLUDE_ALL'

export interface SetFilter<V> {
  operator: SetOperator
  values: V[]
}

export type FeatureSortBy = 'createdAt' | 'name' | 'type' | 'stale' | 'project' | 'lastSeenAt' | { environment: string }

/** What GET /search/features filters on, parsed; every list holds at least one value. */
export interface FeatureSearch {
  /** Any of these in the name or description, case-insensitively. */
  terms?: string[]
  projects?: ListFilter
  types?: ListFilter
  /** `stale` true / false, and `potentially_stale`, as the reference combines them (see `stateMatches`). */
  state?: ListFilter<'stale' | 'active' | 'potentially-stale'>
  createdOnOrAfter?: string
  createdBefore?: string
  /** Seen by an SDK in some environment at or after / before (ISO). */
  lastSeenOnOrAfter?: string
  lastSeenBefore?: string
  createdByUserIds?: ListFilter<number>
  tags?: SetFilter<[string, string]>
  segments?: SetFilter<string>
  /** Enabled (true) or disabled in an environment: a flag matches any of them. */
  statuses?: Array<[string, boolean]>
  archived: boolean
  /** `lifecycle`: the current stages asked for, combined with `archived` as the reference does */
  lifecycle?: LifecycleFilter
  /** A filter no flag can match (`favorite=IS_NONE_OF:true,false`; favorites asked by a caller who has none). */
  nothing?: boolean
  /** The signed-in user whose favorites `favorite` and `favoritesFirst` mean; none for other callers. */
  viewer?: number
  /** Only the viewer's favorite flags (true), or only the others (false). */
  favorite?: boolean
  /** The viewer's favorites before the others, each part in the order asked. */
  favoritesFirst?: boolean
  sortBy: FeatureSortBy
  sortOrder: 'asc' | 'desc'
  offset: number
  limit: number
}

/**
 * The reference's `lifecycle` filter on the stage each flag entered last: `stages` are the stages
 * of active flags asked for, `archived` whether the archived stage is among them (archived flags
 * are told by their archivedAt, as the reference's).
 */
export interface LifecycleFilter {
  exclude: boolean
  stages: Stage[]
  archived: boolean
}

type Where = ExpressionBuilder<Database, 'features'>

/** The flags a lifecycle filter keeps, with the `archived` view (archived=IS:true) it comes with. */
function lifecycleMatches(db: Kysely<Database>, eb: Where, filter: LifecycleFilter, archivedView: boolean): Expression<SqlBool> {
  const isArchived = eb('features.archived_at', 'is not', null)
  const isActive = eb('features.archived_at', 'is', null)
  const latest = latestStageOfFlag(db)
  if (filter.exclude) {
    // In the archived view, excluding stages of active flags leaves the archived ones as they are.
    if (archivedView && !filter.archived) return isArchived
    return filter.stages.length === 0 ? isActive : eb.and([isActive, eb(latest, 'not in', filter.stages)])
  }
  if (archivedView)
    return filter.archived || filter.stages.length === 0 ? isArchived : eb.and([isArchived, eb(latest, 'in', filter.stages)])
  const inStages = filter.stages.length === 0 ? eb.lit(false) : eb(latest, 'in', filter.stages)
  return filter.archived ? eb.or([inStages, isArchived]) : eb.and([inStages, isActive])
}

const literalLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * The latest `feature-created` event of each flag name: who created the flag as it is now (a name
 * deleted and created again has two). Read by the (feature_name, id) and (type, id) indexes.
 */
export function creationEvents(db: Kysely<Database>) {
  return db
    .selectFrom('events as created')
    .where('created.type', '=', 'feature-created')
    .where('created.id', '=', (eb) =>
      eb
        .selectFrom('events as later')
        .select((e) => e.fn.max('later.id').as('id'))
        .whereRef('later.feature_name', '=', 'created.feature_name')
        .where('later.type', '=', 'feature-created'),
    )
}

/** The column is (`exclude`: is not) one of the filter's values. */
function inList(eb: Where, column: 'features.project' | 'features.type', filter: ListFilter) {
  return eb(column, filter.exclude ? 'not in' : 'in', filter.values)
}

/**
 * The flags with these tags or segments (`[type, value]` pairs, or segment names), by the
 * reference's operators; `flagsWith` gives (flag, token) rows, a token naming the tag or segment.
 */
function setMatches<V>(eb: Where, filter: SetFilter<V>, flagsWith: (values: V[]) => Expression<unknown>, countOf: number) {
  const { operator, values } = filter
  const flags = sql`(select flag from ${flagsWith(values)} as matched)`
  switch (operator) {
    case 'INCLUDE':
    case 'INCLUDE_ANY_OF':
      return eb('features.name', 'in', flags as never)
    case 'DO_NOT_INCLUDE':
    case 'EXCLUDE_IF_ANY_OF':
      return eb('features.name', 'not in', flags as never)
    case 'INCLUDE_ALL_OF':
    case 'EXCLUDE_ALL': {
      const all = sql`(select flag from ${flagsWith(values)} as matched group by flag having count(distinct token) = ${countOf})`
      return eb('features.name', operator === 'INCLUDE_ALL_OF' ? 'in' : 'not in', all as never)
    }
  }
}

/**
 * The reference's `state`: without potentially-stale, stale ↔ stale; with it, the sets it names
 * (stale, active = not stale, potentially-stale = not stale but marked by the scan).
 */
function stateMatches(eb: Where, filter: ListFilter<'stale' | 'active' | 'potentially-stale'>) {
  const want = new Set(filter.values)
  const stale = eb('features.stale', '=', true)
  const notStale = eb('features.stale', '=', false)
  const potentially = eb.and([notStale, eb('features.potentially_stale', '=', true)])
  let matches: Expression<SqlBool>
  if (!want.has('potentially-stale')) {
    matches = want.has('stale') && want.has('active') ? eb.lit(true) : want.has('stale') ? stale : notStale
  } else if (want.size === 3 || (want.has('active') && want.size === 2)) matches = want.size === 3 ? eb.lit(true) : notStale
  else if (want.has('stale')) matches = eb.or([stale, eb('features.potentially_stale', '=', true)])
  else matches = potentially
  return filter.exclude ? eb.not(matches) : matches
}

function filtered(db: Kysely<Database>, search: FeatureSearch) {
  const postgres = dialectOf(db) === 'postgres'
  return db
    .selectFrom('features')
    .$if(search.lifecycle === undefined, (q) => q.where('features.archived_at', search.archived ? 'is not' : 'is', null))
    .$if(search.lifecycle !== undefined, (q) => q.where((eb) => lifecycleMatches(db, eb, search.lifecycle!, search.archived)))
    .$if(search.nothing === true || (search.favorite === true && search.viewer === undefined), (q) => q.where(sql<SqlBool>`1 = 0`))
    .$if(search.favorite !== undefined && search.viewer !== undefined, (q) =>
      q.where('features.name', search.favorite ? 'in' : 'not in', favoriteFeatureNames(db, search.viewer!)),
    )
    .$if(search.terms !== undefined, (q) =>
      q.where((eb) =>
        eb.or(
          search.terms!.flatMap((term) => {
            const pattern = `%${literalLike(term)}%`
            const like = postgres ? sql.raw('ilike') : sql.raw('like')
            return [
              sql<SqlBool>`features.name ${like} ${pattern} escape '\\'`,
              sql<SqlBool>`features.description ${like} ${pattern} escape '\\'`,
            ]
          }),
        ),
      ),
    )
    .$if(search.projects !== undefined, (q) => q.where((eb) => inList(eb, 'features.project', search.projects!)))
    .$if(search.types !== undefined, (q) => q.where((eb) => inList(eb, 'features.type', search.types!)))
    .$if(search.state !== undefined, (q) => q.where((eb) => stateMatches(eb, search.state!)))
    .$if(search.createdOnOrAfter !== undefined, (q) => q.where('features.created_at', '>=', search.createdOnOrAfter!))
    .$if(search.createdBefore !== undefined, (q) => q.where('features.created_at', '<', search.createdBefore!))
    .$if(search.lastSeenOnOrAfter !== undefined || search.lastSeenBefore !== undefined, (q) =>
      q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('last_seen_at_metrics as seen')
            .select('seen.feature_name')
            .whereRef('seen.feature_name', '=', 'features.name')
            .$if(search.lastSeenOnOrAfter !== undefined, (s) => s.where('seen.last_seen_at', '>=', search.lastSeenOnOrAfter!))
            .$if(search.lastSeenBefore !== undefined, (s) => s.where('seen.last_seen_at', '<', search.lastSeenBefore!)),
        ),
      ),
    )
    .$if(search.createdByUserIds !== undefined, (q) =>
      q.where((eb) => {
        const { exclude, values } = search.createdByUserIds!
        const creators = creationEvents(db).select('created.feature_name').where('created.created_by_user_id', 'in', values)
        return eb('features.name', exclude ? 'not in' : 'in', creators as never)
      }),
    )
    .$if(search.tags !== undefined, (q) =>
      q.where((eb) =>
        setMatches(
          eb,
          search.tags!,
          (tags) =>
            db
              .selectFrom('feature_tags as t')
              .select(['t.feature_name as flag', sql<string>`t.tag_type || ':' || t.tag_value`.as('token')])
              .where((inner) =>
                inner.or(tags.map(([type, value]) => inner.and([inner('t.tag_type', '=', type), inner('t.tag_value', '=', value)]))),
              ),
          new Set(search.tags!.values.map((tag) => tag.join(':'))).size,
        ),
      ),
    )
    .$if(search.segments !== undefined, (q) =>
      q.where((eb) =>
        setMatches(
          eb,
          search.segments!,
          (names) =>
            db
              .selectFrom('feature_strategies as s')
              .innerJoin('feature_strategy_segments as ss', 'ss.strategy_id', 's.id')
              .innerJoin('segments as g', 'g.id', 'ss.segment_id')
              .select(['s.feature_name as flag', 'g.name as token'])
              .where('g.name', 'in', names),
          new Set(search.segments!.values).size,
        ),
      ),
    )
    .$if(search.statuses !== undefined, (q) =>
      // The flags on (off) in those environments: ranges of the (environment, enabled) index.
      q.where(
        'features.name',
        'in',
        db
          .selectFrom('feature_environments as fe')
          .select('fe.feature')
          .where((inner) =>
            inner.or(
              search.statuses!.map(([environment, enabled]) =>
                inner.and([inner('fe.environment', '=', environment), inner('fe.enabled', '=', enabled)]),
              ),
            ),
          ),
      ),
    )
}

type FlagQuery = SelectQueryBuilder<Database, 'features', object>

/** The sort key of `sortBy`, then the reference's ties: oldest first, then by name. */
function ordered<Q extends FlagQuery>(
  db: Kysely<Database>,
  query: Q,
  sortBy: FeatureSortBy,
  order: 'asc' | 'desc',
  favoritesOf?: number,
): Q {
  // SQLite sorts NULL first ascending and last descending; the reference puts them last both ways.
  const nullsLast = (expression: Expression<unknown>) =>
    dialectOf(db) === 'postgres'
      ? sql`${expression} ${sql.raw(order)} nulls last`
      : sql`(${expression}) is null, ${expression} ${sql.raw(order)}`
  let q: FlagQuery = query
  // favoritesFirst: the viewer's favorites (a range of their key) before the rest.
  if (favoritesOf !== undefined) q = q.orderBy(sql`case when features.name in (${favoriteFeatureNames(db, favoritesOf)}) then 0 else 1 end`)
  if (sortBy === 'createdAt') return q.orderBy('features.created_at', order).orderBy('features.name', 'asc') as Q
  if (typeof sortBy === 'object') {
    const enabled = db
      .selectFrom('feature_environments as fe')
      .select('fe.enabled')
      .whereRef('fe.feature', '=', 'features.name' as never)
      .where('fe.environment', '=', sortBy.environment)
    q = q.orderBy(nullsLast(enabled))
  } else if (sortBy === 'lastSeenAt') {
    const seen = db
      .selectFrom('last_seen_at_metrics as seen')
      .select((eb) => (order === 'asc' ? eb.fn.min('seen.last_seen_at') : eb.fn.max('seen.last_seen_at')).as('at'))
      .whereRef('seen.feature_name', '=', 'features.name' as never)
    q = q.orderBy(nullsLast(seen))
  } else {
    q = q.orderBy(`features.${sortBy}`, order)
  }
  return q.orderBy('features.created_at', 'asc').orderBy('features.name', 'asc') as Q
}

export interface FlagRow {
  name: string
  description: string | null
  type: string
  project: string
  stale: boolean | number
  impression_data: boolean | number
  created_at: string
  archived_at: string | null
}

/** The statements of a search: one page of matching flags (sorted) and how many match in all. */
export function featureSearchQueries(db: Kysely<Database>, search: FeatureSearch) {
  const page = ordered(
    db,
    filtered(db, search).select([
      'features.name',
      'features.description',
      'features.type',
      'features.project',
      'features.stale',
      'features.impression_data',
      'features.created_at',
      'features.archived_at',
    ]),
    search.sortBy,
    search.sortOrder,
    search.favoritesFirst ? search.viewer : undefined,
  )
    .limit(search.limit)
    .offset(search.offset)
  const count = filtered(db, search).select((eb) => eb.fn.countAll<number | string | bigint>().as('total'))
  return { page, count }
}

export async function searchFlags(db: Kysely<Database>, search: FeatureSearch): Promise<{ rows: FlagRow[]; total: number }> {
  const { page, count } = featureSearchQueries(db, search)
  const [rows, counted] = await Promise.all([page.execute(), count.executeTakeFirstOrThrow()])
  return { rows: rows as FlagRow[], total: Number(counted.total) }
}

/** The environments of these flags, each with its type, order, variants, strategies and last sighting. */
export function environmentsOfFlags(db: Kysely<Database>, names: readonly string[]) {
  return db
    .selectFrom('feature_environments as fe')
    .innerJoin('environments as e', 'e.name', 'fe.environment')
    .leftJoin('last_seen_at_metrics as seen', (join) =>
      join.onRef('seen.feature_name', '=', 'fe.feature').onRef('seen.environment', '=', 'fe.environment'),
    )
    .select((eb) => [
      'fe.feature',
      'fe.environment',
      'fe.enabled',
      'fe.variants',
      'e.type',
      'e.sort_order',
      'seen.last_seen_at',
      eb
        .selectFrom('feature_strategies as s')
        .select((c) => c.fn.countAll().as('n'))
        .whereRef('s.feature_name', '=', 'fe.feature')
        .whereRef('s.environment', '=', 'fe.environment')
        .as('strategies'),
      eb
        .selectFrom('feature_strategies as s')
        .select((c) => c.fn.countAll().as('n'))
        .whereRef('s.feature_name', '=', 'fe.feature')
        .whereRef('s.environment', '=', 'fe.environment')
        .where('s.disabled', '=', false)
        .as('enabled_strategies'),
    ])
    .where(inNames(db, 'fe.feature', names))
    .orderBy('e.sort_order')
    .orderBy('fe.environment')
    .execute()
}

/** The tags of these flags, with their type's color, by type then value. */
export function tagsOfFlags(db: Kysely<Database>, names: readonly string[]) {
  return db
    .selectFrom('feature_tags as t')
    .leftJoin('tag_types as tt', 'tt.name', 't.tag_type')
    .select(['t.feature_name', 't.tag_type', 't.tag_value', 'tt.color'])
    .where(inNames(db, 't.feature_name', names))
    .orderBy('t.tag_type')
    .orderBy('t.tag_value')
    .execute()
}

/** The segments these flags' strategies use, by name. */
export function segmentsOfFlags(db: Kysely<Database>, names: readonly string[]) {
  return db
    .selectFrom('feature_strategies as s')
    .innerJoin('feature_strategy_segments as ss', 'ss.strategy_id', 's.id')
    .innerJoin('segments as g', 'g.id', 'ss.segment_id')
    .select(['s.feature_name', 'g.name'])
    .distinct()
    .where(inNames(db, 's.feature_name', names))
    .orderBy('g.name')
    .execute()
}

/** Which of these flags are a parent or a child. */
export function dependenciesOfFlags(db: Kysely<Database>, names: readonly string[]) {
  return db
    .selectFrom('feature_dependencies as d')
    .select(['d.child', 'd.parent'])
    .where((eb) => eb.or([inNames(db, 'd.child', names), inNames(db, 'd.parent', names)]))
    .execute()
}

/** Who created each of these flags: its latest creation event's user id and name. */
export function creatorsOfFlags(db: Kysely<Database>, names: readonly string[]) {
  return creationEvents(db)
    .select(['created.feature_name', 'created.created_by_user_id', 'created.created_by'])
    .where(inNames(db, 'created.feature_name', names))
    .execute()
}
