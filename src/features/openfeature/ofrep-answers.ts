/**
 * A decision of the evaluator (evaluation/evaluate.ts) as OFREP's evaluation answer. The value:
 * an enabled flag whose variant carries a payload answers the payload, typed (reason SPLIT);
 * otherwise the flag's `enabled`, with the reason the decision gives. The answer's JSON is made
 * once per decision (decisions are shared objects, a few per flag) and copied on every request.
 */
import { cachedJsonArrayWriter, type WrittenJson, writtenJson } from '../client-api/cached-json.ts'
import type { ClientFeature } from '../client-api/client-features-store.ts'
import type { BodyPool } from '../../http/body-pool.ts'
import type { Decision, DecisionWhy } from '../evaluation/evaluate.ts'

export type OfrepReason = 'STATIC' | 'TARGETING_MATCH' | 'SPLIT' | 'DISABLED' | 'DEFAULT'

const REASONS: Record<DecisionWhy, OfrepReason> = {
  off: 'DISABLED',
  dependency: 'DISABLED',
  'no-match': 'DEFAULT',
  targeted: 'TARGETING_MATCH',
  unconditional: 'STATIC',
  rollout: 'SPLIT',
}

export interface OfrepAnswer {
  key: string
  value: unknown
  reason: OfrepReason
  variant: string
  metadata: Record<string, string | number | boolean>
}

/** A payload as its typed value: `json` parsed, `number` a number; text otherwise (and when it does not parse). */
function payloadValue(payload: { type: string; value: string }): unknown {
  if (payload.type === 'json') {
    try {
      return JSON.parse(payload.value)
    } catch {
      return payload.value
    }
  }
  if (payload.type === 'number') {
    const number = Number(payload.value)
    return payload.value.trim() !== '' && Number.isFinite(number) ? number : payload.value
  }
  return payload.value
}

export function ofrepAnswer(decision: Decision, feature: ClientFeature | undefined): OfrepAnswer {
  const { variant } = decision
  const metadata: OfrepAnswer['metadata'] = {}
  if (feature !== undefined) {
    metadata.project = feature.project
    metadata.type = feature.type
    metadata.stale = feature.stale
  }
  metadata.variantEnabled = variant.enabled
  const payload = decision.enabled && variant.enabled ? variant.payload : undefined
  if (payload !== undefined) {
    metadata.payloadType = payload.type
    return { key: decision.name, value: payloadValue(payload), reason: 'SPLIT', variant: variant.name, metadata }
  }
  return { key: decision.name, value: decision.enabled, reason: REASONS[decision.why], variant: variant.name, metadata }
}

/**
 * Writes answers for one evaluator (one scope and flags version): each decision's JSON made once,
 * a bulk body copied from them (into `bodies`) with a tail (the event streams) and its ETag
 * (client-api/cached-json.ts). The flags that are off come first, their answers copied as one
 * piece made once: the same for every context, and often half of a scope's flags.
 */
export function answersWriter(features: readonly ClientFeature[], switchedOff: readonly Decision[], bodies: BodyPool) {
  const byName = new Map(features.map((feature) => [feature.name, feature]))
  const writer = cachedJsonArrayWriter<Decision>(
    '{"flags":[',
    (decision) => JSON.stringify(ofrepAnswer(decision, byName.get(decision.name))),
    { idOf: (decision) => decision.id, bodies },
  )
  const off = writer.run(switchedOff)
  return {
    /** One answer's JSON. */
    one: (decision: Decision): Buffer => writer.item(decision),
    /**
     * `{"flags":[…]<tail>}`, the flags that are off and then `decided` (those that are on), and its
     * strong ETag (equal bodies, equal ETags, on every instance).
     */
    bulk: (decided: readonly Decision[], tail: WrittenJson): { json: Buffer; etag: string } => writer.write(decided, tail, off),
  }
}

export type AnswersWriter = ReturnType<typeof answersWriter>

/** A bulk body's tail: `,"eventStreams":[…]` (or nothing), made once and kept by its caller. */
export function bulkTail(eventStreams: readonly object[] | undefined): WrittenJson {
  return writtenJson(eventStreams === undefined ? '' : `,"eventStreams":${JSON.stringify(eventStreams)}`)
}
