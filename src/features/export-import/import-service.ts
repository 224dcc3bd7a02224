/**
 * POST /features-batch/validate and /features-batch/import. An import is one transaction: the
 * reference's checks (import-validation.ts), then every change through the services' in-transaction
 * calls, so the same rules run and the same events are written as by the equivalent admin calls,
 * closed by a `features-imported` event. Anything refused rolls all of it back. One import (or
 * validate's trial of one) runs at a time per instance (importRunning).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError, tooManyRequests, type ErrorDetail } from '../../http/errors.ts'
import type { Principal } from '../../http/permissions.ts'
import { auditContext, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { ContextFieldService } from '../context-fields/context-field-service.ts'
import type { FlagEnvironmentService } from '../flag-environments/flag-environment-service.ts'
import type { FlagEnvironmentPlace } from '../flag-environments/flag-environment.ts'
import type { DependencyService } from '../flags/dependency-service.ts'
import { dependencyToStore } from '../flags/dependency-rules.ts'
import { createDependencyStore } from '../flags/dependency-store.ts'
import type { FlagLinkService } from '../flags/flag-link-service.ts'
import type { FlagMetadataService } from '../flags/flag-metadata-service.ts'
import type { FlagService } from '../flags/flag-service.ts'
import type { StrategyService } from '../flag-environments/strategy-service.ts'
import { createStrategyStore } from '../flag-environments/strategy-store.ts'
import type { TagService } from '../tags/tag-service.ts'
import type { TagTypeService } from '../tags/tag-type-service.ts'
import type { Tag } from '../tags/tag-store.ts'
import type { ImportBody, ValidateResult } from './export-import-schemas.ts'
import { checkImport, findings, readTarget, refusalItem, validateAnswer, type Target } from './import-validation.ts'

export interface ImportDeps {
  db: Kysely<Database>
  flags: FlagService
  metadata: FlagMetadataService
  flagEnvironments: FlagEnvironmentService
  strategies: StrategyService
  dependencies: DependencyService
  tags: TagService
  tagTypes: TagTypeService
  contextFields: ContextFieldService
  links: FlagLinkService
}

/** What a second import is told to wait: a maximal import takes a few seconds on SQLite (docs/security.md). */
export const IMPORT_RETRY_AFTER_SECONDS = 5

/** The 429 of an import that finds another running on this instance. */
export const importRunning = (): AppError =>
  tooManyRequests(IMPORT_RETRY_AFTER_SECONDS, `Another import is running: try again in ${IMPORT_RETRY_AFTER_SECONDS} seconds.`)

/** The file without the flags archived here (and their environments, strategies and tags), as the reference drops them. */
function withoutArchived(body: ImportBody, target: Target): ImportBody['data'] {
  const archived = new Set(target.flags.filter((flag) => flag.archived).map((flag) => flag.name))
  const { data } = body
  const featureTags = (data.featureTags ?? []).filter((tag) => !archived.has(tag.featureName))
  const usedTypes = new Set(featureTags.map((tag) => tag.tagType))
  return {
    ...data,
    features: data.features.filter((feature) => !archived.has(feature.name)),
    featureEnvironments: (data.featureEnvironments ?? []).filter(
      (environment) => !archived.has(environment.featureName ?? environment.name),
    ),
    featureStrategies: data.featureStrategies.filter(
      (strategy) => strategy.featureName !== undefined && !archived.has(strategy.featureName),
    ),
    featureTags,
    tagTypes: (data.tagTypes ?? []).filter((tagType) => usedTypes.has(tagType.name)),
  }
}

/** A refusal of one item of the file, its details placed in the body (`/body/data/…`), nothing imported. */
function inFile(error: unknown, where: string, what: string): unknown {
  if (!(error instanceof AppError) || error.status !== 400) return error
  const details: ErrorDetail[] = (error.details ?? [{ message: error.message }]).map((detail) => ({
    ...detail,
    ...(detail.path === undefined ? {} : { path: detail.path.replace(/^\/body/, where) }),
  }))
  return new AppError(400, error.errorName, `${what}: ${error.message}`, { details })
}

/** Thrown inside validate's trial import, once every write went through, to roll them back. */
class TrialDone {}

export function createImportService(deps: ImportDeps) {
  const { db } = deps
  // An import holds the writer for seconds and costs that much CPU: they are not stacked (429 instead).
  // Validate's trial is an import rolled back, so it takes the same turn.
  let running = false
  async function alone<T>(work: () => Promise<T>): Promise<T> {
    if (running) throw importRunning()
    running = true
    try {
      return await work()
    } finally {
      running = false
    }
  }

  async function importIn(trx: Kysely<Database>, body: ImportBody, actor: Principal): Promise<void> {
    const { project, environment } = body
    const target = await readTarget(trx, body)
    checkImport(findings(body, target, actor))
    const data = withoutArchived(body, target)
    const audit = auditContext(actor)
    const existing = new Set(target.flags.filter((flag) => flag.project === project && !flag.archived).map((flag) => flag.name))

    // Flags: created, or their metadata replaced.
    for (const [index, feature] of data.features.entries()) {
      const fields = {
        description: feature.description || null,
        type: feature.type ?? 'release',
        stale: feature.stale ?? false,
        impressionData: feature.impressionData ?? false,
      }
      try {
        if (existing.has(feature.name)) await deps.metadata.changeIn(trx, project, feature.name, fields, audit)
        else {
          await deps.flags.createIn(
            trx,
            project,
            { name: feature.name, description: fields.description ?? '', type: fields.type, impressionData: fields.impressionData },
            audit,
          )
          if (fields.stale) await deps.metadata.markStaleIn(trx, project, [feature.name], true, audit)
        }
      } catch (error) {
        throw inFile(error, `/body/data/features/${index}`, `Flag ${JSON.stringify(feature.name)}`)
      }
    }
    // Environment variants, where the file has some.
    for (const featureEnvironment of data.featureEnvironments ?? []) {
      if ((featureEnvironment.variants ?? []).length === 0) continue
      const place = { project, feature: featureEnvironment.featureName ?? featureEnvironment.name, environment }
      await deps.flagEnvironments.putVariantsIn(trx, place, featureEnvironment.variants!, audit)
    }
    // Tag types and context fields the target lacks; then each flag's tags as in the file.
    for (const tagType of data.tagTypes ?? []) {
      if (target.tagTypes.has(tagType.name)) continue
      target.tagTypes.add(tagType.name)
      const { name, description, icon, color } = tagType
      await deps.tagTypes.createIn(
        trx,
        {
          name,
          ...(description == null ? {} : { description }),
          ...(icon === undefined ? {} : { icon }),
          ...(color === undefined ? {} : { color }),
        },
        audit,
      )
    }
    const wanted = new Map<string, Tag[]>(data.features.map((feature) => [feature.name, []]))
    for (const tag of data.featureTags ?? [])
      if (tag.tagType !== undefined) wanted.get(tag.featureName)?.push({ type: tag.tagType, value: tag.tagValue })
    await deps.tags.setFlagTagsIn(trx, wanted, audit, actor.userId)
    for (const field of data.contextFields ?? []) {
      if (target.fields.has(field.name)) continue
      const { name, description, legalValues, stickiness } = field
      await deps.contextFields.createIn(
        trx,
        {
          name,
          description: description ?? null,
          legalValues: legalValues ?? [],
          stickiness: stickiness ?? false,
          ...(field.project ? { project } : {}),
        },
        audit,
      )
    }

    // The environment: the file's strategies replace the flags' (added first, so a flag on stays on), then the switches, then the parents.
    await replaceStrategies(trx, body, data, target, audit)
    for (const featureEnvironment of data.featureEnvironments ?? []) {
      await deps.flagEnvironments.toggleIn(
        trx,
        { project, feature: featureEnvironment.name, environment },
        featureEnvironment.enabled,
        audit,
      )
    }
    const imported = new Set(data.features.map((feature) => feature.name))
    for (const { feature: child, dependencies } of data.dependencies ?? []) {
      if (!imported.has(child)) continue
      const current = await createDependencyStore(trx).parentOf(child)
      for (const parent of dependencies) {
        // Already so: nothing to write (the tags, too, change only where they differ).
        const stored = dependencyToStore(parent.enabled, parent.variants)
        if (
          current?.parent === parent.feature &&
          current.enabled === stored.enabled &&
          JSON.stringify(current.variants) === JSON.stringify(stored.variants)
        )
          continue
        await deps.dependencies.addIn(
          trx,
          {
            project,
            child,
            feature: parent.feature,
            ...(parent.enabled === undefined ? {} : { enabled: parent.enabled }),
            ...(parent.variants === undefined ? {} : { variants: parent.variants }),
          },
          audit,
        )
      }
    }
    // Links: each flag the file lists them for gets exactly those (new ids), as the reference's import does.
    const wantedLinks = new Map<string, { index: number; links: Array<{ url: string; title?: string | null | undefined }> }>()
    for (const [index, { feature, links }] of (data.links ?? []).entries()) {
      if (!imported.has(feature)) continue
      const entry = wantedLinks.get(feature) ?? { index, links: [] }
      entry.links.push(...links)
      wantedLinks.set(feature, entry)
    }
    for (const [feature, { index, links }] of wantedLinks) {
      try {
        await deps.links.setLinksIn(trx, project, feature, links, audit)
      } catch (error) {
        throw inFile(error, `/body/data/links/${index}`, `Links of flag ${JSON.stringify(feature)}`)
      }
    }
    await appendEvents(trx, audit, [{ type: 'features-imported', project, environment }])
  }

  /** Segments are the target's of the same name (validated to exist); strategy ids are new. */
  async function replaceStrategies(
    trx: Kysely<Database>,
    body: ImportBody,
    data: ImportBody['data'],
    target: Target,
    audit: AuditContext,
  ): Promise<void> {
    const { project, environment } = body
    const segmentIds = new Map<number, number>()
    for (const segment of data.segments ?? []) {
      const found = target.segments.find(
        (existing) => existing.name === segment.name && (existing.project === null || existing.project === project),
      )
      if (found) segmentIds.set(segment.id, found.id)
    }
    const store = createStrategyStore(trx)
    const before = new Map<string, string[]>()
    for (const feature of data.features)
      before.set(
        feature.name,
        (await store.list(feature.name, environment)).map((strategy) => strategy.id),
      )
    const kept = new Set(data.featureStrategies)
    for (const [index, strategy] of body.data.featureStrategies.entries()) {
      if (!kept.has(strategy)) continue
      const { id: _id, featureName, sortOrder, segments, disabled, ...rest } = strategy
      const at = `/body/data/featureStrategies/${index}`
      const place: FlagEnvironmentPlace = { project, feature: featureName!, environment }
      try {
        const mapped = (segments ?? []).map((id, i) => {
          const found = segmentIds.get(id)
          if (found === undefined)
            throw new AppError(400, 'ValidationError', `Segment ${id} is not in the file's segments list.`, {
              details: [
                {
                  path: `/body/segments/${i}`,
                  message: `The \`/body/segments/${i}\` property must be the id of a segment the file's \`segments\` list names. You sent ${id}.`,
                },
              ],
            })
          return found
        })
        await deps.strategies.createIn(
          trx,
          place,
          { ...rest, ...(disabled == null ? {} : { disabled }), ...(sortOrder === undefined ? {} : { sortOrder }), segments: mapped },
          audit,
        )
      } catch (error) {
        throw inFile(error, at, `Strategy ${index} (of flag ${JSON.stringify(featureName)})`)
      }
    }
    for (const [feature, ids] of before)
      for (const id of ids) await deps.strategies.deleteIn(trx, { project, feature, environment }, id, audit)
  }

  /**
   * The import itself, in a transaction always rolled back: what its writes' rules refuse (a
   * strategy's parameters or constraints, variants, a parent, a name…), or nothing. One code path
   * with the import, so validate cannot say yes to a file the import refuses.
   */
  async function trial(body: ImportBody, actor: Principal): Promise<AppError | undefined> {
    await deps.strategies.refreshNames()
    try {
      await db.transaction().execute(async (trx) => {
        await importIn(trx, body, actor)
        throw new TrialDone()
      })
    } catch (error) {
      if (error instanceof TrialDone) return undefined
      if (error instanceof AppError && error.status < 500) return error
      throw error
    }
    return undefined
  }

  return {
    /**
     * What the import would say: errors, warnings and the caller's missing permissions; when none
     * of those stops it, the import tried and rolled back (its refusal is the error). Writes nothing.
     */
    validate: async (body: ImportBody, actor: Principal): Promise<ValidateResult> => {
      // Asked first: on SQLite the reads below would wait for the running import's writer, then try it again.
      if (running) throw importRunning()
      const answer = validateAnswer(body.project, findings(body, await readTarget(db, body), actor))
      // Tried only for a caller who may import: it costs what an import costs and takes its locks.
      if (answer.errors.length > 0 || answer.permissions.length > 0) return answer
      const refusal = await alone(() => trial(body, actor))
      return refusal === undefined ? answer : { ...answer, errors: [refusalItem(refusal)] }
    },

    /** Whether an import runs now: the route refuses another before reading its body. */
    running: (): boolean => running,

    import: (body: ImportBody, actor: Principal): Promise<void> =>
      alone(async () => {
        // As the strategy routes do before a write: else each strategy's check in the transaction
        // reads every definition name again (the names remembered would be none or out of date).
        await deps.strategies.refreshNames()
        await db.transaction().execute((trx) => importIn(trx, body, actor))
      }),
  }
}

export type ImportService = ReturnType<typeof createImportService>
