/**
 * The delta protocol's pure part: what one scope reads, as serialized flags and segments; the
 * events that turn one such state into the next (per flag and per segment: updated or removed);
 * and the events since an earlier state, compacted. A state is named by a hash of its content,
 * so the name is the same on every instance and after a restart: an SDK sending it back holds
 * exactly that content, whoever served it.
 */
import { createHash } from 'node:crypto'
import type { ClientFeature, ClientSegment } from './client-features-store.ts'

/** One scope's flags and segments as SDKs are sent them, by name and by id. */
export interface DeltaState {
  /** The state's name: ETag of `/delta`, SSE event id of `/streaming`. */
  hash: string
  /** The event id when it was read (the events' `eventId`). */
  revisionId: number
  features: Map<string, { json: string; project: string }>
  segments: Map<number, string>
}

/** The events from one state to the next, as JSON texts: segments updated, flags updated or removed, segments removed. */
export interface DeltaStep {
  from: string
  to: string
  events: DeltaEventText[]
}

/** One event, serialized once; `key` names what it is about (`f:` a flag, `s:` a segment), so later events replace it. */
export interface DeltaEventText {
  key: string
  order: 0 | 1 | 2
  json: string
}

// Serialized once per flag object: environments are read once per version and shared by every scope.
const serialized = new WeakMap<object, string>()
function once(value: ClientFeature | ClientSegment): string {
  let json = serialized.get(value)
  if (json === undefined) {
    json = JSON.stringify(value)
    serialized.set(value, json)
  }
  return json
}

/** A scope's state from what it reads (flags in name order, segments by id). */
export function deltaState(revisionId: number, features: readonly ClientFeature[], segments: readonly ClientSegment[]): DeltaState {
  const digest = createHash('sha256')
  const featureMap: DeltaState['features'] = new Map()
  for (const feature of features) {
    const json = once(feature)
    featureMap.set(feature.name, { json, project: feature.project })
    digest.update(json).update('\n')
  }
  digest.update('segments\n')
  const segmentMap: DeltaState['segments'] = new Map()
  for (const segment of segments) {
    const json = once(segment)
    segmentMap.set(segment.id, json)
    digest.update(json).update('\n')
  }
  return { hash: digest.digest('base64url').slice(0, 27), revisionId, features: featureMap, segments: segmentMap }
}

/** The hydration event of a state: everything it holds. */
export function hydrationEvent(state: DeltaState): string {
  const features = [...state.features.values()].map((feature) => feature.json).join(',')
  const segments = [...state.segments.values()].join(',')
  return `{"eventId":${state.revisionId},"type":"hydration","features":[${features}],"segments":[${segments}]}`
}

/**
 * The events that make `before` into `after`. Segments come first (a flag updated next may use
 * them), removed segments last (a flag removed before may have used them).
 */
export function diffStates(before: DeltaState, after: DeltaState): DeltaStep {
  const eventId = after.revisionId
  const events: DeltaEventText[] = []
  for (const [id, json] of after.segments) {
    if (before.segments.get(id) !== json)
      events.push({ key: `s:${id}`, order: 0, json: `{"eventId":${eventId},"type":"segment-updated","segment":${json}}` })
  }
  for (const [name, feature] of after.features) {
    if (before.features.get(name)?.json !== feature.json)
      events.push({ key: `f:${name}`, order: 1, json: `{"eventId":${eventId},"type":"feature-updated","feature":${feature.json}}` })
  }
  for (const [name, feature] of before.features) {
    if (!after.features.has(name)) {
      events.push({
        key: `f:${name}`,
        order: 1,
        json: `{"eventId":${eventId},"type":"feature-removed","featureName":${JSON.stringify(name)},"project":${JSON.stringify(feature.project)}}`,
      })
    }
  }
  for (const id of before.segments.keys()) {
    if (!after.segments.has(id))
      events.push({ key: `s:${id}`, order: 2, json: `{"eventId":${eventId},"type":"segment-removed","segmentId":${id}}` })
  }
  return { from: before.hash, to: after.hash, events }
}

/**
 * The events since state `known`, from the steps kept (oldest first), compacted: only the last
 * event about each flag and segment, in the order above. Undefined when `known` is none of the
 * states the steps start from (a state no longer kept, or never seen here): the caller hydrates.
 */
export function eventsSince(steps: readonly DeltaStep[], known: string): DeltaEventText[] | undefined {
  let start = -1
  for (let i = steps.length - 1; i >= 0; i--) {
    if (steps[i]!.from === known) {
      start = i
      break
    }
  }
  if (start < 0) return undefined
  const last = new Map<string, DeltaEventText>()
  for (let i = start; i < steps.length; i++) {
    for (const event of steps[i]!.events) {
      last.delete(event.key)
      last.set(event.key, event)
    }
  }
  return [...last.values()].sort((a, b) => a.order - b.order)
}

/** A delta body: `{"events":[…]}`. */
export const eventsBody = (events: readonly string[]): string => `{"events":[${events.join(',')}]}`
