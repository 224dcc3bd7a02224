import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid, quote } from '../../http/errors.ts'
import { parsePaging } from '../../http/paging.ts'
import { parseDateFilter, parseIntegerFilter, parseOperatorFilter, type OperatorFilter } from '../../http/search-operators.ts'
import type { FeatureSearchItem, FeatureSearchQuery } from './feature-search-schemas.ts'
import {
  creatorsOfFlags,
  dependenciesOfFlags,
  environmentsOfFlags,
  searchFlags,
  segmentsOfFlags,
  tagsOfFlags,
  type FeatureSearch,
  type FeatureSortBy,
  type LifecycleFilter,
  type ListFilter,
  type SetOperator,
} from './feature-search-store.ts'
import { latestStagesOf, STAGES, type Stage } from '../lifecycle/lifecycle-store.ts'
import { favoriteFeaturesAmong } from '../favorites/favorite-store.ts'

const LIST = ['IS', 'IS_NOT', 'IS_ANY_OF', 'IS_NONE_OF'] as const
const SET: readonly SetOperator[] = ['INCLUDE', 'DO_NOT_INCLUDE', 'INCLUDE_ALL_OF', 'INCLUDE_ANY_OF', 'EXCLUDE_IF_ANY_OF', 'EXCLUDE_ALL']
const DATES = ['IS_BEFORE', 'IS_ON_OR_AFTER'] as const
const STATES = ['stale', 'active', 'potentially-stale'] as const
const SORTS = ['createdAt', 'name', 'type', 'stale', 'project', 'lastSeenAt'] as const

/** Names of users by id (users/, handed by app.ts). */
export type UserNames = (ids: readonly number[]) => Promise<Map<number, string>>

const listOf = <V>(filter: (OperatorFilter<string> & { numbers?: V[] }) | undefined, values?: V[]): ListFilter<V> | undefined =>
  filter === undefined
    ? undefined
    : { exclude: filter.operator === 'IS_NOT' || filter.operator === 'IS_NONE_OF', values: values ?? (filter.values as V[]) }

const refuse = (name: string, message: string, value: string): never => {
  const path = `/query/${name}`
  throw invalid(`The \`${path}\` parameter ${message} You sent ${quote(value)}.`, path)
}

/** `IS:a` and friends where only some values mean something: any other value is a 400 naming the parameter. */
function knownValues<V extends string>(value: string | undefined, name: string, known: readonly V[]): ListFilter<V> | undefined {
  const filter = parseOperatorFilter(value, name, LIST)
  for (const item of filter?.values ?? []) if (!known.includes(item as V)) refuse(name, `takes only ${known.join(', ')}.`, value!)
  return listOf<V>(filter)
}

/** `status`: `env:enabled` entries (repeated, as the reference), or `IS:`/`IS_ANY_OF:` with such entries. */
function parseStatus(value: string | string[] | undefined): Array<[string, boolean]> | undefined {
  if (value === undefined) return undefined
  const entries = (typeof value === 'string' ? [value] : value).flatMap((item) =>
    /^(IS|IS_ANY_OF):/.test(item) ? parseOperatorFilter(item, 'status', ['IS', 'IS_ANY_OF'])!.values : [item],
  )
  if (entries.length > 100) refuse('status', 'may list at most 100 environments.', entries.join(','))
  return entries.map((entry) => {
    const at = entry.lastIndexOf(':')
    const state = entry.slice(at + 1)
    if (at <= 0 || (state !== 'enabled' && state !== 'disabled'))
      refuse('status', 'must list environment:enabled or environment:disabled entries.', entry)
    return [entry.slice(0, at), state === 'enabled']
  })
}

function parseSortBy(value: string | undefined): FeatureSortBy {
  if (value === undefined) return 'createdAt'
  if (value.startsWith('environment:') && value.length > 'environment:'.length) return { environment: value.slice('environment:'.length) }
  if ((SORTS as readonly string[]).includes(value)) return value as FeatureSortBy
  return refuse('sortBy', `must be one of ${SORTS.join(', ')} or environment:<name>.`, value)
}

/** `lifecycle`: stages of the flags' current stage; with `archived`, the reference's combination of the two (see LifecycleFilter). */
function parseLifecycle(value: string | undefined, archived: boolean): { archived: boolean; lifecycle?: LifecycleFilter } {
  const filter = knownValues<Stage>(value, 'lifecycle', STAGES)
  if (filter === undefined) return { archived }
  return {
    archived,
    lifecycle: {
      exclude: filter.exclude,
      stages: filter.values.filter((stage) => stage !== 'archived'),
      archived: filter.values.includes('archived'),
    },
  }
}

/** The query parameters of GET /search/features as a search; a malformed one is a 400 naming it. */
export function parseFeatureSearch(query: FeatureSearchQuery): FeatureSearch {
  const createdAt = parseDateFilter(query.createdAt, 'createdAt', DATES)
  const lastSeenAt = parseDateFilter(query.lastSeenAt, 'lastSeenAt', DATES)
  const archivedFilter = parseOperatorFilter(query.archived, 'archived', ['IS'])
  if (archivedFilter !== undefined && !['true', 'false'].includes(archivedFilter.values[0]!))
    refuse('archived', 'must be IS:true or IS:false.', query.archived!)
  // favorite: the set of answers asked for (true, false), each operator honoured.
  const favorite = knownValues(query.favorite, 'favorite', ['true', 'false'])
  const wanted = favorite && (['true', 'false'] as const).filter((value) => favorite.values.includes(value) !== favorite.exclude)
  const tag = parseOperatorFilter(query.tag, 'tag', SET)
  const tags = tag?.values.map((item): [string, string] => {
    const at = item.indexOf(':')
    if (at <= 0 || at === item.length - 1) refuse('tag', 'must list type:value tags.', query.tag!)
    return [item.slice(0, at), item.slice(at + 1)]
  })
  const segment = parseOperatorFilter(query.segment, 'segment', SET)
  const terms = query.query
    ?.split(',')
    .map((term) => term.trim())
    .filter((term) => term !== '')
  const creators = parseIntegerFilter(query.createdBy, 'createdBy', LIST)
  return {
    ...(terms !== undefined && terms.length > 0 ? { terms: terms.slice(0, 100) } : {}),
    ...optional('projects', listOf(parseOperatorFilter(query.project, 'project', LIST))),
    ...optional('types', listOf(parseOperatorFilter(query.type, 'type', LIST))),
    ...optional('state', knownValues(query.state, 'state', STATES)),
    ...optional('createdByUserIds', listOf(creators, creators?.numbers)),
    ...(createdAt === undefined
      ? {}
      : createdAt.operator === 'IS_BEFORE'
        ? { createdBefore: createdAt.dayStart.toISOString() }
        : { createdOnOrAfter: createdAt.dayStart.toISOString() }),
    ...(lastSeenAt === undefined
      ? {}
      : lastSeenAt.operator === 'IS_BEFORE'
        ? { lastSeenBefore: lastSeenAt.dayStart.toISOString() }
        : { lastSeenOnOrAfter: lastSeenAt.dayStart.toISOString() }),
    ...(tag === undefined ? {} : { tags: { operator: tag.operator, values: tags! } }),
    ...(segment === undefined ? {} : { segments: { operator: segment.operator, values: segment.values } }),
    ...optional('statuses', parseStatus(query.status)),
    ...parseLifecycle(query.lifecycle, archivedFilter?.values[0] === 'true'),
    ...(wanted === undefined || wanted.length === 2 ? {} : wanted.length === 0 ? { nothing: true } : { favorite: wanted[0] === 'true' }),
    ...(query.favoritesFirst === 'true' ? { favoritesFirst: true } : {}),
    sortBy: parseSortBy(query.sortBy),
    sortOrder: query.sortOrder ?? 'asc',
    ...parsePaging(query, { defaultLimit: 50, maxLimit: 100, overMax: 'clamp' }),
  }
}

const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>))

const iso = (value: string | Date | null | undefined): string | null => (value == null ? null : new Date(value).toISOString())

/** One value per flag name, grouped in the order read. */
function byFlag<R, V>(rows: readonly R[], nameOf: (row: R) => string, valueFor: (row: R) => V): Map<string, V[]> {
  const grouped = new Map<string, V[]>()
  for (const row of rows) {
    const name = nameOf(row)
    const values = grouped.get(name)
    if (values === undefined) grouped.set(name, [valueFor(row)])
    else values.push(valueFor(row))
  }
  return grouped
}

export function createFeatureSearchService({ db, userNames }: { db: Kysely<Database>; userNames: UserNames }) {
  return {
    /**
     * One page of matching flags, each with its environments, segments, tags, creator, stage and
     * whether it is a favorite of `viewer` (the signed-in user asking): one query each for the page.
     */
    async search(parsed: FeatureSearch, viewer?: number): Promise<{ features: FeatureSearchItem[]; total: number }> {
      const search = viewer === undefined ? parsed : { ...parsed, viewer }
      const { rows, total } = await searchFlags(db, search)
      const names = rows.map((row) => row.name)
      if (names.length === 0) return { features: [], total }
      const [environments, tags, segments, dependencies, creators, stages, favorites] = await Promise.all([
        environmentsOfFlags(db, names),
        tagsOfFlags(db, names),
        segmentsOfFlags(db, names),
        dependenciesOfFlags(db, names),
        creatorsOfFlags(db, names),
        latestStagesOf(db, names),
        viewer === undefined ? new Set<string>() : favoriteFeaturesAmong(db, viewer, names),
      ])
      const users = await userNames(creators.map((row) => Number(row.created_by_user_id)).filter((id) => id > 0))
      const environmentsOf = byFlag(
        environments,
        (row) => row.feature,
        (row) => ({
          name: row.environment,
          enabled: Boolean(row.enabled),
          type: row.type,
          sortOrder: Number(row.sort_order),
          variantCount: (JSON.parse(row.variants) as unknown[]).length,
          lastSeenAt: iso(row.last_seen_at),
          hasStrategies: Number(row.strategies) > 0,
          hasEnabledStrategies: Number(row.enabled_strategies) > 0,
        }),
      )
      const tagsOf = byFlag(
        tags,
        (row) => row.feature_name,
        (row) => ({ value: row.tag_value, type: row.tag_type, color: row.color }),
      )
      const segmentsOf = byFlag(
        segments,
        (row) => row.feature_name,
        (row) => row.name,
      )
      const parents = new Set(dependencies.map((row) => row.parent))
      const children = new Set(dependencies.map((row) => row.child))
      const creatorOf = new Map(
        creators.map((row) => {
          const id = Number(row.created_by_user_id ?? 0)
          return [row.feature_name!, { id, name: users.get(id) ?? (row.created_by || 'unknown'), imageUrl: '' }]
        }),
      )
      const features = rows.map((row): FeatureSearchItem => {
        const archivedAt = iso(row.archived_at)
        const flagTags = tagsOf.get(row.name)
        const lifecycle = stages.get(row.name)
        return {
          name: row.name,
          description: row.description,
          // The reference names a flag that is both by its parent side first.
          dependencyType: parents.has(row.name) ? 'parent' : children.has(row.name) ? 'child' : null,
          type: row.type,
          project: row.project,
          stale: Boolean(row.stale),
          favorite: favorites.has(row.name),
          impressionData: Boolean(row.impression_data),
          createdAt: iso(row.created_at),
          archivedAt,
          createdBy: creatorOf.get(row.name) ?? { id: 0, name: 'unknown', imageUrl: '' },
          environments: environmentsOf.get(row.name) ?? [],
          segments: segmentsOf.get(row.name) ?? [],
          ...(flagTags === undefined ? {} : { tags: flagTags }),
          ...(lifecycle === undefined ? {} : { lifecycle }),
        }
      })
      return { features, total }
    },
  }
}

export type FeatureSearchService = ReturnType<typeof createFeatureSearchService>
