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
import type { BodyPool } from '../../http/body-pool.ts'
import { finalMix, mixBlock } from '../evaluation/murmurhash.ts'

// The ETag's 160 bits: five 32-bit lanes, each folding in one word of every item's digest.
const COMMA = 0x2c
const CLOSE_BRACKET = 0x5d
const CLOSE_BRACE = 0x7d

/** A text's UTF-8, and the five digest words the ETag folds (fields, not an array: read a thousand times a request). */
export interface WrittenJson {
  readonly bytes: Buffer
  readonly d0: number
  readonly d1: number
  readonly d2: number
  readonly d3: number
  readonly d4: number
}

/** A text's UTF-8 and the digest words the ETag folds. */
export function writtenJson(text: string): WrittenJson {
  const bytes = Buffer.from(text)
  const digest = hash('sha256', bytes, 'buffer')
  return {
    bytes,
    d0: digest.readUInt32LE(0),
    d1: digest.readUInt32LE(4),
    d2: digest.readUInt32LE(8),
    d3: digest.readUInt32LE(12),
    d4: digest.readUInt32LE(16),
  }
}

export interface ArrayWriterOptions<T> {
  /** Items numbered densely from 0 (the evaluator's decisions): kept in an array by number, a load rather than a hash lookup per item. */
  idOf?: (item: T) => number
  /** Where bodies are written (http/body-pool.ts: the caller gives each back once sent); by default a new buffer each. */
  bodies?: Pick<BodyPool, 'take'>
}

/** Writes arrays of `T` (kept by identity: one writer per evaluator) after `head`, each item's JSON made once by `json`. */
export function cachedJsonArrayWriter<T extends object>(
  head: string,
  json: (item: T) => string,
  { idOf, bodies }: ArrayWriterOptions<T> = {},
) {
  const written = new Map<T, WrittenJson>()
  const numbered: Array<WrittenJson | undefined> = []
  const entryOf = (item: T): WrittenJson => {
    if (idOf !== undefined) {
      const id = idOf(item)
      return (numbered[id] ??= writtenJson(json(item)))
    }
    let entry = written.get(item)
    if (entry === undefined) {
      entry = writtenJson(json(item))
      written.set(item, entry)
    }
    return entry
  }
  const headBytes = Buffer.from(head)
  return {
    /** One item's JSON. */
    item: (item: T): Buffer => entryOf(item).bytes,
    /** The body, with `tail` (made once by its caller, e.g. `,"eventStreams":[…]`) before the closing brace, and its strong ETag. */
    write(items: readonly T[], tail?: WrittenJson): { json: Buffer; etag: string } {
      const count = items.length
      const entries = new Array<WrittenJson>(count)
      let length = headBytes.length + Math.max(count - 1, 0) + 2 + (tail?.bytes.length ?? 0)
      let l0 = 0
      let l1 = 0
      let l2 = 0
      let l3 = 0
      let l4 = 0
      for (let i = 0; i < count; i++) {
        const entry = entryOf(items[i]!)
        entries[i] = entry
        length += entry.bytes.length
        l0 = mixBlock(l0, entry.d0)
        l1 = mixBlock(l1, entry.d1)
        l2 = mixBlock(l2, entry.d2)
        l3 = mixBlock(l3, entry.d3)
        l4 = mixBlock(l4, entry.d4)
      }
      const body = bodies === undefined ? Buffer.allocUnsafeSlow(length) : bodies.take(length)
      let at = headBytes.copy(body, 0)
      for (let i = 0; i < count; i++) {
        if (i > 0) body[at++] = COMMA
        const bytes = entries[i]!.bytes
        body.set(bytes, at)
        at += bytes.length
      }
      body[at++] = CLOSE_BRACKET
      if (tail !== undefined) {
        at += tail.bytes.copy(body, at)
        l0 = mixBlock(l0, tail.d0)
        l1 = mixBlock(l1, tail.d1)
        l2 = mixBlock(l2, tail.d2)
        l3 = mixBlock(l3, tail.d3)
        l4 = mixBlock(l4, tail.d4)
      }
      body[at] = CLOSE_BRACE
      const etag = Buffer.allocUnsafe(20)
      etag.writeUInt32LE(finalMix(l0, count), 0)
      etag.writeUInt32LE(finalMix(l1, count), 4)
      etag.writeUInt32LE(finalMix(l2, count), 8)
      etag.writeUInt32LE(finalMix(l3, count), 12)
      etag.writeUInt32LE(finalMix(l4, count), 16)
      return { json: body, etag: `"${etag.toString('base64url')}"` }
    },
  }
}
