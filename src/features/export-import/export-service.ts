/**
 * POST /features-batch/export: the flags selected, with what the import needs to make them again
 * in one environment — their state there, strategies, tags, dependencies, links, and the context fields,
 * segments (by name) and tag types those use. A read: no event (the reference writes one).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { exceedsLimit } from '../../http/errors.ts'
import { createContextFieldStore } from '../context-fields/context-field-store.ts'
import { createFlagLinkStore } from '../flags/flag-link-store.ts'
import { createTagTypeStore } from '../tags/tag-type-store.ts'
import { MAX_IMPORT_FEATURES, type ExportQuery, type ExportResult } from './export-import-schemas.ts'
import { createExportImportStore, type ExportImportStore } from './export-import-store.ts'

/** As the reference chooses: features (when not empty), else tag, else project, else every active flag. */
async function selectFlags(store: ExportImportStore, query: ExportQuery) {
  if (typeof query.tag === 'string') return store.flagsNamed(await store.flagsTaggedWithValue(query.tag))
  if (query.features && query.features.length > 0) return store.flagsNamed([...new Set(query.features)])
  return store.activeFlags(query.project)
}

export function createExportService({ db }: { db: Kysely<Database> }) {
  return {
    /** Read as other reads are, outside a transaction (on SQLite one would hold the write lock). */
    export: async (query: ExportQuery): Promise<ExportResult> => {
      const store = createExportImportStore(db)
      const flags = await selectFlags(store, query)
      if (flags.length > MAX_IMPORT_FEATURES) {
        throw exceedsLimit(
          `The export selects ${flags.length} flags; at most ${MAX_IMPORT_FEATURES} go in one export (an import takes as many): select fewer, by features, tag or project.`,
        )
      }
      const names = flags.map((flag) => flag.name)
      const [states, strategies, tags, dependencies, segments, fields, tagTypes, links] = await Promise.all([
        store.environmentStates(names, query.environment),
        store.strategies(names, query.environment),
        store.tags(names),
        store.dependencies(names),
        store.segments(),
        createContextFieldStore(db).list({ project: 'any' }),
        createTagTypeStore(db).list(),
        createFlagLinkStore(db).ofFlags(names),
      ])
      const environments = flags.flatMap((flag) => {
        const state = states.get(flag.name)
        return state
          ? [{ enabled: state.enabled, featureName: flag.name, environment: query.environment, variants: state.variants, name: flag.name }]
          : []
      })
      // The context fields the strategies and variants name (constraints, stickiness, overrides).
      const used = new Set<string>()
      for (const strategy of strategies) {
        if (strategy.parameters.stickiness !== undefined) used.add(strategy.parameters.stickiness)
        for (const constraint of strategy.constraints) used.add(constraint.contextName)
      }
      for (const { variants } of environments) {
        for (const variant of variants) {
          used.add(variant.stickiness)
          for (const override of variant.overrides ?? []) used.add(override.contextName)
        }
      }
      const usedSegments = new Set(strategies.flatMap((strategy) => strategy.segments))
      const usedTagTypes = new Set(tags.map((tag) => tag.tagType))
      const children = new Map<string, Array<{ feature: string; enabled: boolean; variants: string[] }>>()
      for (const dependency of dependencies)
        children.set(dependency.child, [{ feature: dependency.parent, enabled: dependency.enabled, variants: dependency.variants }])
      return {
        features: flags.map(({ name, description, type, project, stale, impressionData, archived }) => ({
          name,
          description,
          type,
          project,
          stale,
          impressionData,
          archived,
        })),
        featureStrategies: strategies.map(
          ({ name, id, featureName, title, parameters, constraints, variants, disabled, segments: ids }) => ({
            name,
            id,
            featureName,
            title,
            parameters,
            constraints,
            variants,
            disabled,
            segments: ids,
          }),
        ),
        featureEnvironments: environments,
        contextFields: fields
          .filter((field) => used.has(field.name))
          .map(({ name, description, stickiness, sortOrder, legalValues, project }) => ({
            name,
            description,
            stickiness,
            sortOrder,
            legalValues,
            ...(project === undefined ? {} : { project }),
          })),
        featureTags: tags,
        segments: segments.filter((segment) => usedSegments.has(segment.id)).map(({ id, name }) => ({ id, name })),
        tagTypes: tagTypes.filter((tagType) => usedTagTypes.has(tagType.name)),
        dependencies: [...children].map(([feature, parents]) => ({ feature, dependencies: parents })),
        // As the reference: the flags that have links, in the order of their first link's id (when it was added),
        // each with its links in the order they were added.
        links: [...links]
          .sort(([, a], [, b]) => (a[0]!.id < b[0]!.id ? -1 : 1))
          .map(([feature, list]) => ({ feature, links: list.map(({ id, url, title }) => ({ id, url, title })) })),
      }
    },
  }
}

export type ExportService = ReturnType<typeof createExportService>
