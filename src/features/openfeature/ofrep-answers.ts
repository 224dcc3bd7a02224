/**
 * A decision of the evaluator (evaluation/evaluate.ts) as OFREP's evaluation answer. The value:
 * an enabled flag whose variant carries a payload answers the payload, typed (reason SPLIT);
 * otherwise the flag's `enabled`, with the reason the decision gives. The answer's JSON is made
 * once per decision (decisions are shared objects, a few per flag) and copied on every request.
 */
import { hash } from 'node:crypto'
import type { ClientFeature } from '../client-api/client-features-store.ts'
import type { Decision, DecisionWhy } from '../evaluation/evaluate.ts'
import { finalMix, mixBlock } from '../evaluation/murmurhash.ts'

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

// The ETag's 160 bits, as the frontend API's (client-api/frontend-service.ts): five lanes folding each answer's digest.
const LANES = 5

interface Written {
  bytes: Buffer
  digest: Uint32Array
}

const written = (text: string): Written => {
  const bytes = Buffer.from(text)
  const digest = hash('sha256', bytes, 'buffer')
  return { bytes, digest: Uint32Array.from({ length: LANES }, (_, lane) => digest.readUInt32LE(lane * 4)) }
}

/**
 * Writes answers for one evaluator (one scope and flags version): each decision's JSON made once;
 * a bulk body copied from them with a tail (the event streams), its ETag folded from their digests.
 */
export function answersWriter(features: readonly ClientFeature[]) {
  const byName = new Map(features.map((feature) => [feature.name, feature]))
  const entries = new Map<Decision, Written>()
  const entryOf = (decision: Decision) => {
    let entry = entries.get(decision)
    if (entry === undefined) {
      entry = written(JSON.stringify(ofrepAnswer(decision, byName.get(decision.name))))
      entries.set(decision, entry)
    }
    return entry
  }
  const head = Buffer.from('{"flags":[')
  const lanes = new Uint32Array(LANES)
  return {
    /** One answer's JSON. */
    one: (decision: Decision): Buffer => entryOf(decision).bytes,
    /** `{"flags":[…]<tail>}` and its strong ETag (equal bodies, equal ETags, on every instance). */
    bulk(decisions: readonly Decision[], tail: { bytes: Buffer; digest: Uint32Array }): { json: Buffer; etag: string } {
      const chosen = new Array<Written>(decisions.length)
      let length = head.length + Math.max(decisions.length - 1, 0) + 1 + tail.bytes.length + 1
      lanes.fill(0)
      for (let i = 0; i < decisions.length; i++) {
        const entry = entryOf(decisions[i]!)
        chosen[i] = entry
        length += entry.bytes.length
        for (let lane = 0; lane < LANES; lane++) lanes[lane] = mixBlock(lanes[lane]!, entry.digest[lane]!)
      }
      const json = Buffer.allocUnsafeSlow(length)
      let at = head.copy(json, 0)
      for (let i = 0; i < chosen.length; i++) {
        if (i > 0) json[at++] = COMMA
        json.set(chosen[i]!.bytes, at)
        at += chosen[i]!.bytes.length
      }
      json[at++] = CLOSE_BRACKET
      at += tail.bytes.copy(json, at)
      json[at] = CLOSE_BRACE
      for (let lane = 0; lane < LANES; lane++) lanes[lane] = finalMix(mixBlock(lanes[lane]!, tail.digest[lane]!), decisions.length)
      const etag = Buffer.allocUnsafe(LANES * 4)
      for (let lane = 0; lane < LANES; lane++) etag.writeUInt32LE(lanes[lane]!, lane * 4)
      return { json, etag: `"${etag.toString('base64url')}"` }
    },
  }
}

export type AnswersWriter = ReturnType<typeof answersWriter>

/** A bulk body's tail: `,"eventStreams":[…]` (or nothing), made once and kept by its caller. */
export function bulkTail(eventStreams: readonly object[] | undefined): { bytes: Buffer; digest: Uint32Array } {
  return written(eventStreams === undefined ? '' : `,"eventStreams":${JSON.stringify(eventStreams)}`)
}

const COMMA = 0x2c
const CLOSE_BRACKET = 0x5d
const CLOSE_BRACE = 0x7d
