/**
 * POST /events/:id/revert: restores what one event changed, as it was before, by the same
 * service calls the admin routes make (so the same rules run and the same events are written),
 * all in one transaction. A dry run makes the same changes and rolls them back: its diff is
 * exactly what applying would do. The history is the event log itself (no second one).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError, forbidden, invalid, invalidOperation, notFound, quote } from '../../http/errors.ts'
import { missingPermissions, type Principal } from '../../http/permissions.ts'
import { auditContext, type AuditContext } from '../events/audit.ts'
import type { FlagEnvironmentPlace } from '../flag-environments/flag-environment.ts'
import { createFlagEnvironmentStore } from '../flag-environments/flag-environment-store.ts'
import type { FlagEnvironmentService } from '../flag-environments/flag-environment-service.ts'
import type { DependencyService } from '../flags/dependency-service.ts'
import { createDependencyStore } from '../flags/dependency-store.ts'
import { archivedFlag } from '../flags/flag-errors.ts'
import type { FlagMetadataService } from '../flags/flag-metadata-service.ts'
import { createFlagStore } from '../flags/flag-store.ts'
import type { StrategyInput, StrategyService } from '../flag-environments/strategy-service.ts'
import { createStrategyStore } from '../flag-environments/strategy-store.ts'
import { createSegmentStore } from '../segments/segment-store.ts'
import { eventJson, flagEventsAfter, flagEventsBefore } from '../events/event-store.ts'
import { eventMark, eventsWrittenSince } from '../events/event-log.ts'
import { changedMetadata, changesOf, conflictsOf, isRevertible, REVERTIBLE, type Change, type StoredEvent } from './revert-diff.ts'

export interface RevertResult {
  event: { id: number; type: string; featureName: string; project: string; environment: string | null }
  dryRun: boolean
  changes: Change[]
}

export interface RevertOptions {
  dryRun: boolean
  force: boolean
}

/** Thrown to roll a dry run (or a revert that changed nothing) back, carrying its answer. */
class RolledBack {
  readonly result: RevertResult
  constructor(result: RevertResult) {
    this.result = result
  }
}

const MAX_CONFLICTS_LISTED = 20

const parse = (json: string): StoredEvent => JSON.parse(json) as StoredEvent

export interface RevertDeps {
  db: Kysely<Database>
  metadata: FlagMetadataService
  flagEnvironments: FlagEnvironmentService
  strategies: StrategyService
  dependencies: DependencyService
}

export function createRevertService({ db, metadata, flagEnvironments, strategies, dependencies }: RevertDeps) {
  /** The events of a flag after `id`, oldest first (events_feature_name_id_idx). */
  async function eventsOfFlagAfter(trx: Kysely<Database>, featureName: string, id: number): Promise<StoredEvent[]> {
    return (await flagEventsAfter(trx, featureName, id)).map(parse)
  }

  /** The dependency the flag had before `event` removed it: the latest feature-dependency-added before it (for that parent, when it names one). */
  async function dependencyBefore(
    trx: Kysely<Database>,
    event: StoredEvent,
  ): Promise<{ feature: string; enabled?: boolean; variants?: string[] } | undefined> {
    const rows = await flagEventsBefore(trx, event.featureName!, event.id, [
      'feature-dependency-added',
      'feature-dependency-removed',
      'feature-dependencies-removed',
    ])
    for (const json of rows) {
      const earlier = parse(json)
      if (event.type === 'feature-dependencies-removed') return earlier.type === 'feature-dependency-added' ? earlier.data : undefined
      if (earlier.type === 'feature-dependency-added' && earlier.data.feature === event.data.feature) return earlier.data
    }
    return undefined
  }

  /** A restored strategy takes up its segments again: each must still exist. */
  async function checkSegments(trx: Kysely<Database>, event: StoredEvent, segments: readonly number[]): Promise<void> {
    if (segments.length === 0) return
    const found = await createSegmentStore(trx).existing(segments)
    const missing = segments.filter((id) => !found.has(id))
    if (missing.length > 0) {
      const list = missing.join(', ')
      throw invalidOperation(
        `Event ${event.id} cannot be reverted: the strategy ${quote(event.preData.id)} it would restore uses segment${missing.length > 1 ? 's' : ''} ${list}, which no longer exist${missing.length > 1 ? '' : 's'}.`,
      )
    }
  }

  /** Makes what `event` changed as it was before, through the services' in-transaction calls. */
  async function restore(trx: Kysely<Database>, event: StoredEvent, audit: AuditContext): Promise<void> {
    const project = event.project!
    const feature = event.featureName!
    const place: FlagEnvironmentPlace = { project, feature, environment: event.environment ?? '' }
    switch (event.type) {
      case 'feature-metadata-updated': {
        const fields = Object.fromEntries(changedMetadata(event.data, event.preData).map((field) => [field, event.preData[field]]))
        await metadata.changeIn(trx, project, feature, fields, audit)
        return
      }
      case 'feature-stale-on':
      case 'feature-stale-off':
        return metadata.markStaleIn(trx, project, [feature], event.type === 'feature-stale-off', audit)
      case 'feature-environment-enabled':
      case 'feature-environment-disabled':
        return flagEnvironments.toggleIn(trx, place, event.type === 'feature-environment-disabled', audit)
      case 'feature-strategy-add':
        // Gone already (a later removal, forced past): nothing to change.
        if (await createStrategyStore(trx).find(place, event.data.id)) await strategies.deleteIn(trx, place, event.data.id, audit)
        return
      case 'feature-strategy-update':
      case 'feature-strategy-remove': {
        const { id, ...fields } = event.preData
        await checkSegments(trx, event, fields.segments ?? [])
        await strategies.restoreIn(trx, place, id, fields as StrategyInput, audit)
        return
      }
      case 'feature-environment-variants-updated':
        await flagEnvironments.putVariantsIn(trx, place, event.preData.variants, audit)
        return
      case 'feature-dependency-added':
        if ((await createDependencyStore(trx).parentOf(feature))?.parent === event.data.feature)
          await dependencies.removeIn(trx, project, feature, event.data.feature, audit)
        return
      case 'feature-dependency-removed':
      case 'feature-dependencies-removed': {
        const before = await dependencyBefore(trx, event)
        if (!before)
          throw invalidOperation(
            `Event ${event.id} cannot be reverted: no earlier event of flag ${quote(feature)} says which dependency it had.`,
          )
        const current = await createDependencyStore(trx).parentOf(feature)
        const enabled = before.enabled ?? true
        const variants = enabled ? (before.variants ?? []) : []
        if (
          current &&
          current.parent === before.feature &&
          current.enabled === enabled &&
          JSON.stringify(current.variants) === JSON.stringify(variants)
        )
          return
        await dependencies.addIn(
          trx,
          {
            project,
            child: feature,
            feature: before.feature,
            enabled,
            ...(before.variants === undefined ? {} : { variants: before.variants }),
          },
          audit,
        )
        return
      }
    }
  }

  async function revertIn(trx: Kysely<Database>, id: number, options: RevertOptions, actor: Principal): Promise<RevertResult> {
    const json = await eventJson(trx, id)
    if (json === undefined) throw notFound(`Event ${id} does not exist.`)
    const event = parse(json)
    const permission = REVERTIBLE[event.type]
    if (!permission || !event.featureName || !event.project || !isRevertible(event.type)) {
      throw invalid(
        `Event ${id} is a ${quote(event.type)} event, which cannot be reverted. Revertible: ${Object.keys(REVERTIBLE).join(', ')}.`,
        '/params/id',
      )
    }
    if (missingPermissions(actor, permission))
      throw forbidden(`Missing permission: reverting a ${quote(event.type)} event needs "${permission}".`, [permission])

    // Lock what the event changed before reading what came after it: a change committed meanwhile
    // (which takes the same lock) is then either seen as a later event or waits for this revert.
    if (event.environment) await createFlagEnvironmentStore(trx).lock(event.featureName, event.environment)
    // A dependency's parent too, both at once in the name order addDependency locks them in (for
    // "all removed", the parent the flag had: read from events before this one, which never change).
    else {
      const parent =
        typeof event.data?.feature === 'string'
          ? event.data.feature
          : event.type === 'feature-dependencies-removed'
            ? (await dependencyBefore(trx, event))?.feature
            : undefined
      await createFlagStore(trx).lockMany([event.featureName, ...(parent === undefined ? [] : [parent])])
    }
    const later = await eventsOfFlagAfter(trx, event.featureName, id)
    const deleted = later.find((other) => other.type === 'feature-deleted')
    const flag = await createFlagStore(trx).find(event.featureName)
    if (deleted || !flag || flag.project !== event.project) {
      throw new AppError(
        409,
        'InvalidOperationError',
        `Event ${id} cannot be reverted: flag ${quote(event.featureName)} was deleted since${deleted ? ` (event ${deleted.id})` : ''}.`,
        {
          details: [
            {
              message: `Flag ${quote(event.featureName)} was deleted.`,
              ...(deleted ? { eventId: deleted.id, eventType: deleted.type } : {}),
            },
          ],
        },
      )
    }
    if (flag.archived) throw archivedFlag(flag.name)
    const conflicts = conflictsOf(event, later)
    if (conflicts.length > 0 && !options.force) {
      const first = conflicts[0]!
      const more = conflicts.length > 1 ? ` and ${conflicts.length - 1} more` : ''
      throw new AppError(
        409,
        'InvalidOperationError',
        `Event ${id} cannot be reverted: later events changed the same things (event ${first.id}, ${first.type}${more}). Send force=true to revert anyway.`,
        {
          details: conflicts.slice(0, MAX_CONFLICTS_LISTED).map((other) => ({
            message: `Event ${other.id} (${other.type}) by ${quote(other.createdBy)} at ${other.createdAt} changed the same ${describeTouched(other)} since.`,
            eventId: other.id,
            eventType: other.type,
          })),
        },
      )
    }

    const mark = await eventMark(trx)
    try {
      await restore(trx, event, auditContext(actor))
    } catch (error) {
      // The world moved on (an environment left the project, a parent was archived, a strategy's
      // rules changed): what the event changed cannot be restored. Said as a conflict, not as a bad request.
      if (error instanceof AppError && (error.status === 400 || error.status === 404)) {
        throw invalidOperation(`Event ${id} cannot be reverted: ${error.message}`)
      }
      throw error
    }
    const written = await eventsWrittenSince(trx, mark)
    const result: RevertResult = {
      event: { id, type: event.type, featureName: event.featureName, project: event.project, environment: event.environment },
      dryRun: options.dryRun,
      changes: changesOf(written.map(parse)),
    }
    if (options.dryRun || written.length === 0) throw new RolledBack(result)
    return result
  }

  return {
    /** Reverts event `id` (or, with dryRun, says what that would change): one transaction, rolled back for a dry run. */
    revert: async (id: number, options: RevertOptions, actor: Principal): Promise<RevertResult> => {
      try {
        return await db.transaction().execute((trx) => revertIn(trx, id, options, actor))
      } catch (error) {
        if (error instanceof RolledBack) return error.result
        throw error
      }
    },
  }
}

function describeTouched(event: StoredEvent): string {
  if (event.type.startsWith('feature-dependenc')) return 'dependency'
  if (event.type.startsWith('feature-strategy') || event.type === 'strategy-order-changed') return 'strategy'
  if (event.type === 'feature-environment-variants-updated') return `variants in ${quote(event.environment)}`
  if (event.type === 'feature-environment-enabled' || event.type === 'feature-environment-disabled')
    return `switch in ${quote(event.environment)}`
  return 'metadata'
}

export type RevertService = ReturnType<typeof createRevertService>
