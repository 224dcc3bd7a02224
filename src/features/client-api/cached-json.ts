/**
 * `<head>item,item,…]<tail>}` (`{"toggles":[…]}`, OFREP's `{"flags":[…]}`), the same bytes as
 * `JSON.stringify`, but copied from UTF-8 made once per item: the evaluators' answers are shared,
 * frozen objects, a few per flag, so a few hundred objects are not serialized and encoded again
 * on every request. The ETag folds, in order, each item's SHA-256 digest (its first 160 bits, also
 * made once) with MurmurHash3's block mixing: equal lists of item texts are equal bodies, so it
 * follows the body, is the same on every instance for the same answer, and costs a few
 * multiplications per item rather than hashing tens of kilobytes per request.
 */
import { hash } from 'node:crypto'
import { finalMix, mixBlock } from '../evaluation/murmurhash.ts'

// The ETag's 160 bits: five 32-bit lanes, each folding in one word of every item's digest.
const ETAG_LANES = 5
const COMMA = 0x2c
const CLOSE_BRACKET = 0x5d
const CLOSE_BRACE = 0x7d

export interface WrittenJson {
  readonly bytes: Buffer
  readonly digest: Uint32Array
}

/** A text's UTF-8 and the digest words the ETag folds. */
export function writtenJson(text: string): WrittenJson {
  const bytes = Buffer.from(text)
  const digest = hash('sha256', bytes, 'buffer')
  return { bytes, digest: Uint32Array.from({ length: ETAG_LANES }, (_, lane) => digest.readUInt32LE(lane * 4)) }
}

/** Writes arrays of `T` (kept by identity: one writer per evaluator) after `head`, each item's JSON made once by `json`. */
export function cachedJsonArrayWriter<T extends object>(head: string, json: (item: T) => string) {
  const written = new Map<T, WrittenJson>()
  const entryOf = (item: T) => {
    let entry = written.get(item)
    if (entry === undefined) {
      entry = writtenJson(json(item))
      written.set(item, entry)
    }
    return entry
  }
  const headBytes = Buffer.from(head)
  const lanes = new Uint32Array(ETAG_LANES)
  return {
    /** One item's JSON. */
    item: (item: T): Buffer => entryOf(item).bytes,
    /** The body, with `tail` (made once by its caller, e.g. `,"eventStreams":[…]`) before the closing brace, and its strong ETag. */
    write(items: readonly T[], tail?: WrittenJson): { json: Buffer; etag: string } {
      const entries = new Array<WrittenJson>(items.length)
      let length = headBytes.length + Math.max(items.length - 1, 0) + 2 + (tail?.bytes.length ?? 0)
      lanes.fill(0)
      for (let i = 0; i < items.length; i++) {
        const entry = entryOf(items[i]!)
        entries[i] = entry
        length += entry.bytes.length
        for (let lane = 0; lane < ETAG_LANES; lane++) lanes[lane] = mixBlock(lanes[lane]!, entry.digest[lane]!)
      }
      const body = Buffer.allocUnsafeSlow(length)
      let at = headBytes.copy(body, 0)
      for (let i = 0; i < entries.length; i++) {
        if (i > 0) body[at++] = COMMA
        body.set(entries[i]!.bytes, at)
        at += entries[i]!.bytes.length
      }
      body[at++] = CLOSE_BRACKET
      if (tail !== undefined) at += tail.bytes.copy(body, at)
      body[at] = CLOSE_BRACE
      for (let lane = 0; lane < ETAG_LANES; lane++) {
        const folded = tail === undefined ? lanes[lane]! : mixBlock(lanes[lane]!, tail.digest[lane]!)
        lanes[lane] = finalMix(folded, items.length)
      }
      const etag = Buffer.allocUnsafe(ETAG_LANES * 4)
      for (let lane = 0; lane < ETAG_LANES; lane++) etag.writeUInt32LE(lanes[lane]!, lane * 4)
      return { json: body, etag: `"${etag.toString('base64url')}"` }
    },
  }
}
