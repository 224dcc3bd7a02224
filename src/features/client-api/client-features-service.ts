/**
 * What SDKs read, computed once per change of the flags and served from memory. Each
 * environment's flags are read once per version of the change watch's `'flags'` (change-watch.ts:
 * writes of flags, strategies, segments, environments — by this instance, another one, or by
 * hand); each distinct answer (scope, filters, segment form) is built once from them (a tag filter
 * reads which flags have its tags then), with its ETag, and kept until the flags or their tags
 * change. Metrics, events and tokens do not end either.
 */
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import type { TokenScope } from '../../http/permissions.ts'
import {
  flagsTagged,
  readEnvironmentFlags,
  type ClientFeature,
  type ClientSegment,
  type EnvironmentFlags,
} from './client-features-store.ts'

/** Which flags a caller may read: an environment, and its projects (`*`: every project). */
export interface ReadScope {
  environment: string
  projects: readonly string[]
}

/** Filters of `GET /api/client/features`, as the reference takes them. */
export interface FeatureFilters {
  project?: string[]
  namePrefix?: string
  tag?: string[][]
}

/** What one scope reads at one flags version: its flags and the segments they use (by id), for deltas and streams. */
export interface ScopedFlags {
  version: number | undefined
  revisionId: number
  features: ClientFeature[]
  segments: ClientSegment[]
}

export interface ClientAnswer {
  body: Buffer
  etag: string
}

const ALL = '*'
const NO_FILTERS: FeatureFilters = {}

/** The reference sends segments apart (ids in strategies) to SDKs that say they support it. */
export const SEGMENTS_APART_FROM = [4, 2, 0]

/** Whether an `Unleash-Client-Spec` header names a version at least 4.2.0. */
export function takesSegmentsApart(spec: string | undefined): boolean {
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(spec ?? '')
  if (!parts) return false
  for (let i = 0; i < 3; i++) {
    const difference = Number(parts[i + 1]) - SEGMENTS_APART_FROM[i]!
    if (difference !== 0) return difference > 0
  }
  return true
}

/** The read scope of a token (a client or frontend token's; admin: every project of the asked environment). */
export function readScope(scope: TokenScope | undefined, askedEnvironment: string | undefined): ReadScope {
  const environment = scope && scope.environment !== ALL ? scope.environment : (askedEnvironment ?? 'development')
  return { environment, projects: scope?.projects ?? [ALL] }
}

/** A strategy with its segments' constraints appended to its own, for SDKs that do not take segments apart. */
function inlineSegments(feature: ClientFeature, segments: Map<number, ClientSegment>): ClientFeature {
  if (!feature.strategies.some((strategy) => strategy.segments)) return feature
  return {
    ...feature,
    strategies: feature.strategies.map(({ segments: ids, ...strategy }) =>
      ids ? { ...strategy, constraints: [...strategy.constraints, ...ids.flatMap((id) => segments.get(id)?.constraints ?? [])] } : strategy,
    ),
  }
}

const answerKey = (scope: ReadScope, filters: FeatureFilters, segmentsApart: boolean) =>
  JSON.stringify([scope.environment, scope.projects, filters.project, filters.namePrefix, filters.tag, segmentsApart])

const hash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 27)

// Bounds on what is kept: a few environments, a few hundred distinct answers.
const MAX_ENVIRONMENTS = 16
const MAX_ANSWERS = 256
const MAX_ANSWER_BYTES = 256 * 1024 * 1024

export function createClientFeaturesService({ db, changes }: { db: Kysely<Database>; changes: ChangeWatch }) {
  const environments = new Map<string, { version: number; flags: Promise<EnvironmentFlags> }>()
  const answers = new Map<string, { version: number; answer: ClientAnswer }>()
  const unfilteredKeys = new WeakMap<TokenScope, readonly [string, string]>()
  let answerBytes = 0

  /** An environment's flags at the current version: read once, shared by the requests that ask meanwhile. */
  function flagsOf(environment: string): { version: number | undefined; flags: Promise<EnvironmentFlags> } {
    const version = changes.version('flags')
    const known = environments.get(environment)
    if (version !== undefined && known?.version === version) return known
    const flags = readEnvironmentFlags(db, environment)
    if (version !== undefined) {
      const entry = { version, flags }
      environments.delete(environment)
      environments.set(environment, entry)
      // An admin token may ask for any environment name: keep the latest few read.
      if (environments.size > MAX_ENVIRONMENTS) environments.delete(environments.keys().next().value as string)
      // A failed read, or one a write overtook, is not kept.
      flags.then(
        () => changes.version('flags') !== version && environments.get(environment) === entry && environments.delete(environment),
        () => environments.get(environment) === entry && environments.delete(environment),
      )
    }
    return { version, flags }
  }

  function remember(key: string, version: number, answer: ClientAnswer): void {
    if (changes.version('flags') !== version) return
    const previous = answers.get(key)
    if (previous) answerBytes -= previous.answer.body.length
    answers.delete(key)
    answers.set(key, { version, answer })
    answerBytes += answer.body.length
    while (answers.size > MAX_ANSWERS || answerBytes > MAX_ANSWER_BYTES) {
      const oldest = answers.keys().next().value as string
      answerBytes -= answers.get(oldest)!.answer.body.length
      answers.delete(oldest)
    }
  }

  /** The flags a scope may read, filtered; `tagged`: the flags with a tag the filter names (any of them, as the reference). */
  function visible(flags: EnvironmentFlags, scope: ReadScope, filters: FeatureFilters, tagged?: ReadonlySet<string>): ClientFeature[] {
    const everyProject = scope.projects.includes(ALL)
    const projects = everyProject ? undefined : new Set(scope.projects)
    const asked = filters.project && filters.project.length > 0 ? new Set(filters.project) : undefined
    return flags.features.filter(
      (feature) =>
        (!projects || projects.has(feature.project)) &&
        (!asked || asked.has(feature.project)) &&
        (filters.namePrefix === undefined || feature.name.startsWith(filters.namePrefix)) &&
        (!tagged || tagged.has(feature.name)),
    )
  }

  return {
    /** `GET /api/client/features`: the JSON bytes and their ETag. */
    async features(scope: ReadScope, filters: FeatureFilters, segmentsApart: boolean): Promise<ClientAnswer> {
      const key = answerKey(scope, filters, segmentsApart)
      const { version, flags: reading } = flagsOf(scope.environment)
      const known = version === undefined ? undefined : answers.get(key)
      if (known && known.version === version) return known.answer
      const flags = await reading
      // Read after the flags: a tag change meanwhile moves the version, so this answer is not kept.
      const tagged = filters.tag && filters.tag.length > 0 ? await flagsTagged(db, filters.tag) : undefined
      const features = visible(flags, scope, filters, tagged)
      const query = {
        ...(filters.tag ? { tag: filters.tag } : {}),
        ...(filters.project ? { project: filters.project } : {}),
        ...(filters.namePrefix !== undefined ? { namePrefix: filters.namePrefix } : {}),
        environment: scope.environment,
        inlineSegmentConstraints: !segmentsApart,
      }
      let content: string
      if (segmentsApart) {
        const used = new Set(features.flatMap((feature) => feature.strategies.flatMap((strategy) => strategy.segments ?? [])))
        // Only the segments these flags use: a project's segments are not shown to another project's token.
        const segments = [...used]
          .map((id) => flags.segments.get(id))
          .filter((s) => s !== undefined)
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        content = `{"version":2,"features":${JSON.stringify(features)},"query":${JSON.stringify(query)},"segments":${JSON.stringify(segments)}`
      } else {
        content = `{"version":2,"features":${JSON.stringify(features.map((feature) => inlineSegments(feature, flags.segments)))},"query":${JSON.stringify(query)}`
      }
      const etag = `"${hash(content)}"`
      const meta = { revisionId: flags.revisionId, etag, queryHash: hash(JSON.stringify(query)) }
      const answer = { body: Buffer.from(`${content},"meta":${JSON.stringify(meta)}}`), etag }
      if (version !== undefined) remember(key, version, answer)
      return answer
    },

    /** The flags a scope reads with these filters (as `features` picks them), with the segments they use, ascending by id. */
    async scoped(scope: ReadScope, filters: FeatureFilters): Promise<ScopedFlags> {
      const { version, flags: reading } = flagsOf(scope.environment)
      const flags = await reading
      const tagged = filters.tag && filters.tag.length > 0 ? await flagsTagged(db, filters.tag) : undefined
      const features = visible(flags, scope, filters, tagged)
      const used = new Set(features.flatMap((feature) => feature.strategies.flatMap((strategy) => strategy.segments ?? [])))
      const segments = [...used]
        .sort((a, b) => a - b)
        .map((id) => flags.segments.get(id))
        .filter((s) => s !== undefined)
      return { version, revisionId: flags.revisionId, features, segments }
    },

    /**
     * The answer `features` would give a token of this scope without filters, when it is built
     * already for the current flags; else undefined. The keys are made once per scope object
     * (a remembered principal's), not on every poll.
     */
    rememberedAnswer(tokenScope: TokenScope, segmentsApart: boolean): ClientAnswer | undefined {
      const version = changes.version('flags')
      if (version === undefined) return undefined
      let keys = unfilteredKeys.get(tokenScope)
      if (keys === undefined) {
        const scope = readScope(tokenScope, undefined)
        keys = [answerKey(scope, NO_FILTERS, false), answerKey(scope, NO_FILTERS, true)]
        unfilteredKeys.set(tokenScope, keys)
      }
      const known = answers.get(keys[segmentsApart ? 1 : 0])
      return known?.version === version ? known.answer : undefined
    },

    /** `GET /api/client/features/:name`: one flag the scope may read, or undefined. */
    async feature(scope: ReadScope, name: string, segmentsApart: boolean): Promise<ClientFeature | undefined> {
      const flags = await flagsOf(scope.environment).flags
      const feature = visible(flags, scope, {}).find((candidate) => candidate.name === name)
      return feature && (segmentsApart ? feature : inlineSegments(feature, flags.segments))
    },

    /** An environment's flags (for the frontend API's evaluator). */
    environmentFlags: (environment: string): { version: number | undefined; flags: Promise<EnvironmentFlags> } => flagsOf(environment),

    /**
     * An environment's flags as the SDKs are served them, with each strategy's id and title and the
     * disabled strategies marked (for the playground's explanations), read now.
     */
    explainedFlags: (environment: string): Promise<EnvironmentFlags> => readEnvironmentFlags(db, environment, { explained: true }),

    /** The flags a scope may read, from an environment's flags. */
    visible: (flags: EnvironmentFlags, scope: ReadScope): ClientFeature[] => visible(flags, scope, {}),
  }
}

export type ClientFeaturesService = ReturnType<typeof createClientFeaturesService>
