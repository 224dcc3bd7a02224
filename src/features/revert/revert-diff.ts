/**
 * The pure side of reverting an event: which event types can be reverted and with which
 * permission, what an event touched (so a later event that touched the same is a conflict), and
 * the diff a revert answers, read from the events the revert wrote (so it is exactly what changed,
 * side effects included: a switch turned off with its last active strategy, a default strategy
 * added when switching on).
 */
import { isDeepStrictEqual } from 'node:util'
import type { Permission } from '../../http/permissions.ts'
import type { FeatureStrategy } from '../flag-environments/strategy-store.ts'
import type { Variant } from '../flag-environments/variant-rules.ts'

/** An event as stored (the JSON the event reads serve). */
export interface StoredEvent {
  id: number
  type: string
  createdBy: string
  createdAt: string
  // biome-ignore lint/suspicious/noExplicitAny: an event's data is whatever its type wrote; each revert reads the fields it knows
  data: any
  // biome-ignore lint/suspicious/noExplicitAny: as data
  preData: any
  featureName: string | null
  project: string | null
  environment: string | null
  groupId: string
}

/** Each revertible event type, with the permission the equivalent admin call needs. */
export const REVERTIBLE: Readonly<Record<string, Permission>> = {
  'feature-metadata-updated': 'UPDATE_FEATURE',
  'feature-stale-on': 'UPDATE_FEATURE',
  'feature-stale-off': 'UPDATE_FEATURE',
  'feature-environment-enabled': 'UPDATE_FEATURE_ENVIRONMENT',
  'feature-environment-disabled': 'UPDATE_FEATURE_ENVIRONMENT',
  // Reverting an addition deletes, reverting a removal creates.
  'feature-strategy-add': 'DELETE_FEATURE_STRATEGY',
  'feature-strategy-update': 'UPDATE_FEATURE_STRATEGY',
  'feature-strategy-remove': 'CREATE_FEATURE_STRATEGY',
  'feature-environment-variants-updated': 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
  'feature-dependency-added': 'UPDATE_FEATURE_DEPENDENCY',
  'feature-dependency-removed': 'UPDATE_FEATURE_DEPENDENCY',
  'feature-dependencies-removed': 'UPDATE_FEATURE_DEPENDENCY',
}

export const REVERT_PERMISSIONS: readonly Permission[] = [...new Set(Object.values(REVERTIBLE))]

export const isRevertible = (type: string): boolean => Object.hasOwn(REVERTIBLE, type)

export const METADATA_FIELDS = ['description', 'type', 'stale', 'impressionData'] as const
export type MetadataField = (typeof METADATA_FIELDS)[number]

/** The metadata fields a feature-metadata-updated event changed. */
export function changedMetadata(data: Record<string, unknown>, preData: Record<string, unknown>): MetadataField[] {
  return METADATA_FIELDS.filter((field) => !isDeepStrictEqual(data?.[field], preData?.[field]))
}

/**
 * What an event changed, as keys: `metadata:<field>`, `enabled:<environment>`,
 * `strategy:<id>`, `variants:<environment>`, `dependency`. Two events of one flag conflict
 * when their keys meet.
 */
export function touches(event: StoredEvent): string[] {
  switch (event.type) {
    case 'feature-metadata-updated':
      return changedMetadata(event.data, event.preData).map((field) => `metadata:${field}`)
    case 'feature-stale-on':
    case 'feature-stale-off':
      return ['metadata:stale']
    case 'feature-environment-enabled':
    case 'feature-environment-disabled':
      return [`enabled:${event.environment}`]
    case 'feature-strategy-add':
    case 'feature-strategy-update':
    case 'feature-strategy-remove':
      return [`strategy:${(event.data ?? event.preData)?.id}`]
    case 'strategy-order-changed': {
      // Only the strategies whose sort order moved.
      const before = new Map<string, number>(
        (event.preData?.strategyIds ?? []).map((id: string, index: number) => [id, event.preData.sortOrders[index]]),
      )
      const ids: string[] = event.data?.strategyIds ?? []
      return ids.filter((id, index) => before.get(id) !== event.data.sortOrders[index]).map((id) => `strategy:${id}`)
    }
    case 'feature-environment-variants-updated':
      return [`variants:${event.environment}`]
    case 'feature-dependency-added':
    case 'feature-dependency-removed':
    case 'feature-dependencies-removed':
      return ['dependency']
    default:
      return []
  }
}

/**
 * The later events of the same flag that touched what `target` touched, oldest first. Events of
 * the target's own change (its groupId) are part of it, not later changes.
 */
export function conflictsOf(target: StoredEvent, later: readonly StoredEvent[]): StoredEvent[] {
  const keys = new Set(touches(target))
  return later.filter(
    (event) =>
      event.id > target.id &&
      event.groupId !== target.groupId &&
      event.featureName === target.featureName &&
      touches(event).some((key) => keys.has(key)),
  )
}

const STRATEGY_FIELDS = ['name', 'title', 'disabled', 'parameters', 'constraints', 'variants', 'segments', 'sortOrder'] as const

export type Change =
  | { kind: 'metadata'; field: MetadataField; from: string | boolean | null; to: string | boolean | null }
  | { kind: 'enabled'; environment: string; from: boolean; to: boolean }
  | { kind: 'strategy-added'; environment: string; strategy: FeatureStrategy }
  | { kind: 'strategy-updated'; environment: string; strategyId: string; fields: Array<{ field: string; from: unknown; to: unknown }> }
  | { kind: 'strategy-removed'; environment: string; strategy: FeatureStrategy }
  | { kind: 'variants'; environment: string; from: Variant[]; to: Variant[] }
  | { kind: 'dependency-added'; parent: string; enabled: boolean; variants: string[] }
  | { kind: 'dependency-removed'; parent: string }

/**
 * The diff of a revert, from the events it wrote, in their order. A stale change written both as
 * feature-metadata-updated and feature-stale-on/off is shown once.
 */
export function changesOf(events: readonly StoredEvent[]): Change[] {
  const changes: Change[] = []
  const environment = (event: StoredEvent) => event.environment ?? ''
  for (const event of events) {
    switch (event.type) {
      case 'feature-metadata-updated':
        for (const field of changedMetadata(event.data, event.preData))
          changes.push({ kind: 'metadata', field, from: event.preData[field], to: event.data[field] })
        break
      case 'feature-stale-on':
      case 'feature-stale-off': {
        const on = event.type === 'feature-stale-on'
        if (!changes.some((change) => change.kind === 'metadata' && change.field === 'stale'))
          changes.push({ kind: 'metadata', field: 'stale', from: !on, to: on })
        break
      }
      case 'feature-environment-enabled':
      case 'feature-environment-disabled': {
        const on = event.type === 'feature-environment-enabled'
        changes.push({ kind: 'enabled', environment: environment(event), from: !on, to: on })
        break
      }
      case 'feature-strategy-add':
        changes.push({ kind: 'strategy-added', environment: environment(event), strategy: event.data })
        break
      case 'feature-strategy-update': {
        const fields = STRATEGY_FIELDS.filter((field) => !isDeepStrictEqual(event.preData[field], event.data[field])).map((field) => ({
          field,
          from: event.preData[field],
          to: event.data[field],
        }))
        changes.push({ kind: 'strategy-updated', environment: environment(event), strategyId: event.data.id, fields })
        break
      }
      case 'feature-strategy-remove':
        changes.push({ kind: 'strategy-removed', environment: environment(event), strategy: event.preData })
        break
      case 'feature-environment-variants-updated':
        changes.push({ kind: 'variants', environment: environment(event), from: event.preData.variants, to: event.data.variants })
        break
      case 'feature-dependency-added':
        changes.push({
          kind: 'dependency-added',
          parent: event.data.feature,
          enabled: event.data.enabled ?? true,
          variants: event.data.variants ?? [],
        })
        break
      case 'feature-dependency-removed':
        changes.push({ kind: 'dependency-removed', parent: event.data.feature })
        break
      default:
        // A revert writes only the events above; anything else would be a bug, shown rather than hidden.
        throw new Error(`a revert wrote an event of type ${event.type}`)
    }
  }
  return changes
}
