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
const COMMA_BYTES = Buffer.from(',')

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

/** Items written once, joined by commas, and their ETag lanes folded: what `write` copies whole before the items it is given. */
export interface JsonRun {
  readonly bytes: Buffer
  readonly count: number
  readonly l0: number
  readonly l1: number
  readonly l2: number
  readonly l3: number
  readonly l4: number
}

const EMPTY_RUN: JsonRun = { bytes: Buffer.alloc(0), count: 0, l0: 0, l1: 0, l2: 0, l3: 0, l4: 0 }

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
    /** Items that lead many bodies alike (OFREP's flags that are off), made once: `write` copies them as one. */
    run(items: readonly T[]): JsonRun {
      const parts: Buffer[] = []
      let { l0, l1, l2, l3, l4 } = EMPTY_RUN
      for (const item of items) {
        const entry = entryOf(item)
        parts.push(entry.bytes)
        l0 = mixBlock(l0, entry.d0)
        l1 = mixBlock(l1, entry.d1)
        l2 = mixBlock(l2, entry.d2)
        l3 = mixBlock(l3, entry.d3)
        l4 = mixBlock(l4, entry.d4)
      }
      const bytes = Buffer.concat(parts.flatMap((part, index) => (index === 0 ? [part] : [COMMA_BYTES, part])))
      return { bytes, count: items.length, l0, l1, l2, l3, l4 }
    },
    /**
     * The body, with `tail` (made once by its caller, e.g. `,"eventStreams":[…]`) before the closing
     * brace, and its strong ETag. `lead` (from `run`) comes before `items`: the same bytes and ETag as
     * writing its items and then these.
     */
    write(items: readonly T[], tail?: WrittenJson, lead: JsonRun = EMPTY_RUN): { json: Buffer; etag: string } {
      const count = items.length
      const total = lead.count + count
      const entries = new Array<WrittenJson>(count)
      // The run holds the commas between its own items; here, one before each item but a first.
      const commas = lead.count > 0 ? count : Math.max(count - 1, 0)
      let length = headBytes.length + lead.bytes.length + commas + 2 + (tail?.bytes.length ?? 0)
      let { l0, l1, l2, l3, l4 } = lead
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
      at += lead.bytes.copy(body, at)
      for (let i = 0; i < count; i++) {
        if (i > 0 || lead.count > 0) body[at++] = COMMA
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
      etag.writeUInt32LE(finalMix(l0, total), 0)
      etag.writeUInt32LE(finalMix(l1, total), 4)
      etag.writeUInt32LE(finalMix(l2, total), 8)
      etag.writeUInt32LE(finalMix(l3, total), 12)
      etag.writeUInt32LE(finalMix(l4, total), 16)
      return { json: body, etag: `"${etag.toString('base64url')}"` }
    },
  }
}
