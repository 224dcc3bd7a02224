/**
 * Deltas per scope (environment, projects, filters), derived from the flags client-features-service
 * builds once per flags version: a scope's state is rebuilt when the version moved, diffed with the
 * one before, and the step kept (the last `historySize` per scope, the last MAX_SCOPES scopes). An
 * SDK naming a state no step starts from — too old, from another instance, from before a restart —
 * is sent a hydration, never a silent gap.
 */
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { ClientFeaturesService, FeatureFilters, ReadScope } from './client-features-service.ts'
import { deltaState, diffStates, eventsSince, hydrationEvent, type DeltaState, type DeltaStep } from './delta-state.ts'

/** What an SDK holding state `known` is sent. */
export type DeltaAnswer =
  | { kind: 'current'; hash: string }
  | { kind: 'events'; hash: string; events: string[] }
  | { kind: 'hydration'; hash: string; events: [string] }

interface ScopeDeltas {
  state: DeltaState | undefined
  version: number | undefined
  steps: DeltaStep[]
  /** Refreshes of one scope run one after the other: each diffs with the state the one before left. */
  queue: Promise<unknown>
}

// A few hundred distinct scopes (tokens × filters); each keeps its flags' JSON (shared with the other caches' objects, not copied).
const MAX_SCOPES = 256

/** The key of a scope, as the features answers key theirs. */
export const scopeKey = (scope: ReadScope, filters: FeatureFilters): string =>
  JSON.stringify([scope.environment, scope.projects, filters.project, filters.namePrefix, filters.tag])

export function createDeltaService({
  clientFeatures,
  changes,
  historySize,
}: {
  clientFeatures: ClientFeaturesService
  changes: ChangeWatch
  historySize: number
}) {
  const scopes = new Map<string, ScopeDeltas>()

  function entry(key: string): ScopeDeltas {
    let deltas = scopes.get(key)
    if (deltas) {
      scopes.delete(key)
    } else {
      deltas = { state: undefined, version: undefined, steps: [], queue: Promise.resolve() }
      if (scopes.size >= MAX_SCOPES) scopes.delete(scopes.keys().next().value as string)
    }
    scopes.set(key, deltas)
    return deltas
  }

  /** The scope's state at the current flags version, with the step that led there kept. */
  async function refresh(deltas: ScopeDeltas, scope: ReadScope, filters: FeatureFilters): Promise<DeltaState> {
    const version = changes.version('flags')
    if (deltas.state && version !== undefined && deltas.version === version) return deltas.state
    const scoped = await clientFeatures.scoped(scope, filters)
    const next = deltaState(scoped.revisionId, scoped.features, scoped.segments)
    const before = deltas.state
    if (before && before.hash !== next.hash) {
      deltas.steps.push(diffStates(before, next))
      if (deltas.steps.length > historySize) deltas.steps.splice(0, deltas.steps.length - historySize)
    }
    if (!before || before.hash !== next.hash) deltas.state = next
    deltas.version = scoped.version
    return deltas.state!
  }

  function current(scope: ReadScope, filters: FeatureFilters): Promise<{ deltas: ScopeDeltas; state: DeltaState }> {
    const deltas = entry(scopeKey(scope, filters))
    const run = deltas.queue.then(() => refresh(deltas, scope, filters))
    deltas.queue = run.catch(() => {})
    return run.then((state) => ({ deltas, state }))
  }

  return {
    /**
     * What an SDK holding state `known` (its ETag or Last-Event-ID; undefined: nothing) is sent:
     * nothing new, the events since (compacted), or a hydration.
     */
    async since(scope: ReadScope, filters: FeatureFilters, known: string | undefined): Promise<DeltaAnswer> {
      const { deltas, state } = await current(scope, filters)
      if (known === state.hash) return { kind: 'current', hash: state.hash }
      const events = known === undefined ? undefined : eventsSince(deltas.steps, known)
      if (events === undefined || events.length === 0) return { kind: 'hydration', hash: state.hash, events: [hydrationEvent(state)] }
      return { kind: 'events', hash: state.hash, events: events.map((event) => event.json) }
    },
  }
}

export type DeltaService = ReturnType<typeof createDeltaService>
