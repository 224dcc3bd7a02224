/**
 * Applying a change request: every change through the same in-transaction calls the direct routes
 * use (so the same rules, locks and events), in the order they were added, inside the caller's
 * transaction. A change that no longer applies (its flag archived or gone, its strategy deleted
 * since, its parent gone, a payload the rules now refuse) fails the whole apply with a 409 naming it.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError, invalidOperation, quote } from '../../http/errors.ts'
import type { AuditContext } from '../events/audit.ts'
import type { FlagEnvironmentService } from '../flag-environments/flag-environment-service.ts'
import type { StrategyService } from '../flag-environments/strategy-service.ts'
import type { FlagService } from '../flags/flag-service.ts'
import type { SegmentService } from '../segments/segment-service.ts'
import type { ChangeAction, PayloadOf } from './change-request-schemas.ts'
import type { StoredChange, StoredRequest } from './change-request-store.ts'

export interface ApplyServices {
  flagEnvironments: Pick<FlagEnvironmentService, 'toggleIn' | 'putVariantsIn'>
  strategies: Pick<StrategyService, 'createIn' | 'updateIn' | 'deleteIn' | 'setSortOrderIn'>
  /** Changes of the flag as a whole: its archiving and its dependencies. */
  flags: Pick<FlagService, 'archiveIn' | 'addIn' | 'removeIn' | 'removeAllIn'>
  /** A segment's changes (`feature: null`). */
  segments: Pick<SegmentService, 'updateIn' | 'deleteIn'>
}

/** A segment's change, with the direct routes' rules and events (segment-updated, segment-deleted). */
function applySegmentChange(trx: Kysely<Database>, services: ApplyServices, change: StoredChange, audit: AuditContext) {
  if (change.action === 'deleteSegment') return services.segments.deleteIn(trx, (change.payload as PayloadOf<'deleteSegment'>).id, audit)
  const { id, ...fields } = change.payload as PayloadOf<'updateSegment'>
  return services.segments.updateIn(trx, id, fields, audit)
}

async function applyOne(trx: Kysely<Database>, services: ApplyServices, request: StoredRequest, change: StoredChange, audit: AuditContext) {
  if (change.feature === null) return applySegmentChange(trx, services, change, audit)
  const place = { project: request.project, feature: change.feature, environment: request.environment }
  const action = change.action as ChangeAction
  switch (action) {
    case 'updateEnabled':
      return services.flagEnvironments.toggleIn(trx, place, (change.payload as PayloadOf<'updateEnabled'>).enabled, audit)
    case 'addStrategy':
      return services.strategies.createIn(trx, place, change.payload as PayloadOf<'addStrategy'>, audit)
    case 'updateStrategy': {
      const { id, ...fields } = change.payload as PayloadOf<'updateStrategy'>
      return services.strategies.updateIn(trx, place, id, fields, audit)
    }
    case 'deleteStrategy':
      return services.strategies.deleteIn(trx, place, (change.payload as PayloadOf<'deleteStrategy'>).id, audit)
    case 'reorderStrategy':
      return services.strategies.setSortOrderIn(trx, place, change.payload as PayloadOf<'reorderStrategy'>, audit)
    case 'patchVariant':
      return services.flagEnvironments.putVariantsIn(trx, place, (change.payload as PayloadOf<'patchVariant'>).variants, audit)
    case 'archiveFeature':
      return services.flags.archiveIn(trx, request.project, change.feature, audit)
    case 'addDependency':
      return services.flags.addIn(
        trx,
        { ...(change.payload as PayloadOf<'addDependency'>), project: request.project, child: change.feature },
        audit,
      )
    case 'deleteDependency': {
      const { feature: parent } = change.payload as PayloadOf<'deleteDependency'>
      return parent === undefined
        ? services.flags.removeAllIn(trx, request.project, change.feature, audit)
        : services.flags.removeIn(trx, request.project, change.feature, parent, audit)
    }
    case 'updateSegment':
    case 'deleteSegment':
      throw new Error(`Change ${change.id}: ${action} names a flag.`)
  }
}

/** Every change of `request`, in order; `audit` must let the changes past the gate (skipsChangeRequests). */
export async function applyChanges(
  trx: Kysely<Database>,
  services: ApplyServices,
  request: StoredRequest,
  changes: readonly StoredChange[],
  audit: AuditContext,
): Promise<void> {
  for (const change of changes) {
    try {
      await applyOne(trx, services, request, change, audit)
    } catch (error) {
      // What the direct route would answer with a 400 or a 404 is, here, a conflict with what changed since.
      if (error instanceof AppError && error.status < 500 && error.status !== 403) {
        const what =
          change.feature === null
            ? `${change.action} of segment ${(change.payload as { id: number }).id}) conflicts with the segment as it is now`
            : `${change.action} of flag ${quote(change.feature)} in environment ${quote(request.environment)}) conflicts with the flag as it is now`
        throw invalidOperation(
          `Change request ${request.id} cannot be applied: change ${change.id} (${what}: ${error.message} Nothing was applied.`,
        )
      }
      throw error
    }
  }
}
