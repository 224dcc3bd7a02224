/**
 * What a change in a request may be: the permission of its action (its direct route's), what it must
 * find when added (as the direct route would), and which earlier change of the request it replaces.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid, notFound, quote } from '../../http/errors.ts'
import type { Permission } from '../../http/permissions.ts'
import { createSegmentStore } from '../segments/segment-store.ts'
import { findFlagEnvironment } from '../flag-environments/flag-environment.ts'
import { createStrategyStore } from '../flag-environments/strategy-store.ts'
import { archivedFlag } from '../flags/flag-errors.ts'
import { createFlagStore } from '../flags/flag-store.ts'
import type { ChangeAction, ChangeBody, PayloadOf } from './change-request-schemas.ts'

/** The permission the direct route of each action needs: adding that change to a request needs it too. */
export const ACTION_PERMISSIONS: Record<ChangeAction, Permission | readonly Permission[]> = {
  updateEnabled: 'UPDATE_FEATURE_ENVIRONMENT',
  addStrategy: 'CREATE_FEATURE_STRATEGY',
  updateStrategy: 'UPDATE_FEATURE_STRATEGY',
  deleteStrategy: 'DELETE_FEATURE_STRATEGY',
  reorderStrategy: 'UPDATE_FEATURE_STRATEGY',
  patchVariant: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
  archiveFeature: 'DELETE_FEATURE',
  addDependency: 'UPDATE_FEATURE_DEPENDENCY',
  deleteDependency: 'UPDATE_FEATURE_DEPENDENCY',
  // Either, as the direct segment routes.
  updateSegment: ['UPDATE_SEGMENT', 'UPDATE_PROJECT_SEGMENT'],
  deleteSegment: ['DELETE_SEGMENT', 'UPDATE_PROJECT_SEGMENT'],
}

/** Actions a flag has at most one of in a request: a later one replaces it (per strategy id for a strategy's update or deletion). */
const REPLACED: ReadonlySet<string> = new Set([
  'updateEnabled',
  'patchVariant',
  'reorderStrategy',
  'updateStrategy',
  'deleteStrategy',
  'archiveFeature',
  'addDependency',
  'deleteDependency',
  'updateSegment',
  'deleteSegment',
])
/** Actions whose target is the thing their payload's id names (a strategy, a segment), not the flag alone. */
const BY_ID: ReadonlySet<string> = new Set(['updateStrategy', 'deleteStrategy', 'updateSegment', 'deleteSegment'])
export const sameTarget = (
  a: { feature: string | null; action: string; payload?: unknown },
  b: { feature: string | null; action: string; payload?: unknown },
) =>
  a.feature === b.feature &&
  a.action === b.action &&
  REPLACED.has(a.action) &&
  (!BY_ID.has(a.action) || (a.payload as { id: unknown }).id === (b.payload as { id: unknown }).id)

const noSegment = (project: string, id: number) => notFound(`Project ${quote(project)} has no segment ${id}.`)

/**
 * A segment's change: the segment must be there and the project's (a global segment has no
 * project whose change requests it could go through). Answers the payload to store: a deletion
 * keeps the segment's name, as the reference shows it.
 */
export async function checkSegmentTarget(trx: Kysely<Database>, project: string, body: ChangeBody): Promise<unknown> {
  const { id } = body.payload as { id: number }
  const segment = await createSegmentStore(trx).find(id)
  if (!segment || segment.project !== project) throw noSegment(project, id)
  return body.action === 'deleteSegment' ? { id, name: segment.name } : body.payload
}

/**
 * As the direct routes answer: the flag and its environment must be there, the flag not archived, a
 * strategy named by id one of its own, a parent to depend on another active flag of the project.
 * Answers the payload to store.
 */
export async function checkTarget(
  trx: Kysely<Database>,
  project: string,
  environment: string,
  body: ChangeBody,
  at = '/body',
): Promise<unknown> {
  if (body.feature === null) return checkSegmentTarget(trx, project, body)
  const place = { project, feature: body.feature, environment }
  const { flag } = await findFlagEnvironment(trx, place)
  if (flag.archived) throw archivedFlag(flag.name)
  if (body.action === 'updateStrategy' || body.action === 'deleteStrategy') {
    const { id: strategyId } = body.payload as { id: string }
    if (!(await createStrategyStore(trx).find(place, strategyId)))
      throw notFound(`Flag ${quote(body.feature)} has no strategy ${quote(strategyId)} in environment ${quote(environment)}.`)
  }
  if (body.action === 'addDependency') {
    const { feature: parent } = body.payload as PayloadOf<'addDependency'>
    if (parent === body.feature) {
      const path = `${at}/payload/feature`
      throw invalid(`The \`${path}\` property names the flag itself (${quote(parent)}): a flag cannot depend on itself.`, path)
    }
    const found = await createFlagStore(trx).find(parent)
    if (!found || found.project !== project || found.archived)
      throw notFound(`There's no active flag named ${quote(parent)} in project ${quote(project)} to depend on.`)
  }
  return body.payload
}
