/**
 * MurmurHash3 (x86, 32-bit) and the bucket normalisation of the Unleash SDKs.
 *
 * The SDKs hash with the `murmurhash3js` package, which does not encode the string as
 * UTF-8: it reads UTF-16 code units and keeps only the low byte of each (`charCodeAt(i) & 0xff`),
 * and mixes in the string's `length` in code units. That is reproduced here on purpose, so
 * non-ASCII ids land in the same buckets as with the SDKs (and differ from a UTF-8 murmur3).
 */

const C1 = 0xcc9e2d51
const C2 = 0x1b873593

/** Seed of strategy rollouts (`normalizedStrategyValue` in the Node SDK). */
export const STRATEGY_SEED = 0
/** Seed of variant selection (`normalizedVariantValue` in the Node SDK). */
export const VARIANT_SEED = 86028157

/**
 * `(id) => murmurhash3(prefix + id, seed)`, with the prefix's whole 4-byte blocks mixed once
 * here: a strategy's or variant's `groupId:` is the same for every id it buckets, so each call
 * hashes only the rest, and no joined string is built (nor flattened) per call. The id's own
 * blocks come from idLayout(), which reads each id's bytes once for all the prefixes that hash it.
 */
export function prefixedMurmurhash3(prefix: string, seed = 0): (id: string) => number {
  const prefixLength = prefix.length
  const mixedEnd = prefixLength - (prefixLength & 3)
  let mixed = seed | 0
  for (let i = 0; i < mixedEnd; i += 4) {
    mixed = mixBlock(
      mixed,
      (prefix.charCodeAt(i) & 0xff) |
        ((prefix.charCodeAt(i + 1) & 0xff) << 8) |
        ((prefix.charCodeAt(i + 2) & 0xff) << 16) |
        ((prefix.charCodeAt(i + 3) & 0xff) << 24),
    )
  }
  // The prefix's last 0–3 code units, still to be hashed with the id's first ones.
  const restLength = prefixLength - mixedEnd
  let restBits = 0
  for (let j = 0; j < restLength; j++) restBits |= (prefix.charCodeAt(mixedEnd + j) & 0xff) << (8 * j)
  return (id) => {
    let h = mixed
    if (restLength + id.length < 4) {
      // No whole block: the rest's bytes and the id's, as the tail.
      let bits = restBits
      for (let j = 0; j < id.length; j++) bits |= (id.charCodeAt(j) & 0xff) << (8 * (restLength + j))
      if (restLength + id.length > 0) h = mixTail(h, bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff)
      return finalMix(h, prefixLength + id.length)
    }
    const layout = idLayout(id, restLength)
    // The block that begins in the prefix's rest and ends in the id.
    if (restLength > 0) h = mixBlock(h, restBits | layout.head)
    const { words } = layout
    for (let m = 0; m < words.length; m++) h = mixBlock(h, words[m]!)
    if (layout.tail > 0) h = mixTail(h, layout.t0, layout.t1, layout.t2)
    return finalMix(h, prefixLength + id.length)
  }
}

/**
 * An id's bytes as murmur reads them after a prefix whose last block holds `offset` (1–3) bytes
 * of its own, or none (0): the id's part of that shared block (`head`, already shifted into
 * place), the id's whole blocks after it, and its last 0–3 bytes.
 */
interface IdLayout {
  head: number
  words: Int32Array
  tail: number
  t0: number
  t1: number
  t2: number
}

// One evaluation hashes the same few ids (a userId, a sessionId) with hundreds of prefixes, at one
// of four offsets each: the last few ids' layouts are kept, each offset's made when first asked.
const LAYOUTS_KEPT = 4
const keptIds: (string | undefined)[] = new Array(LAYOUTS_KEPT).fill(undefined)
const keptLayouts: (IdLayout | undefined)[][] = Array.from({ length: LAYOUTS_KEPT }, () => [undefined, undefined, undefined, undefined])
let nextKept = 0

/** The layout of `id` after `offset` bytes of a prefix's rest; rest + id is at least 4 bytes. */
function idLayout(id: string, offset: number): IdLayout {
  let slot = keptIds.indexOf(id)
  if (slot < 0) {
    slot = nextKept
    nextKept = (nextKept + 1) % LAYOUTS_KEPT
    keptIds[slot] = id
    keptLayouts[slot]!.fill(undefined)
  }
  const layouts = keptLayouts[slot]!
  return (layouts[offset] ??= makeLayout(id, offset))
}

function makeLayout(id: string, offset: number): IdLayout {
  const byte = (at: number) => id.charCodeAt(at) & 0xff
  const start = offset === 0 ? 0 : 4 - offset
  let head = 0
  for (let j = 0; j < start; j++) head |= byte(j) << (8 * (offset + j))
  const count = (id.length - start) >> 2
  const words = new Int32Array(count)
  for (let m = 0, at = start; m < count; m++, at += 4)
    words[m] = byte(at) | (byte(at + 1) << 8) | (byte(at + 2) << 16) | (byte(at + 3) << 24)
  const end = start + count * 4
  const tail = id.length - end
  return { head, words, tail, t0: tail > 0 ? byte(end) : 0, t1: tail > 1 ? byte(end + 1) : 0, t2: tail > 2 ? byte(end + 2) : 0 }
}

/** One 4-byte block into the hash state (also folds values in order elsewhere: frontend-service.ts). */
export function mixBlock(h: number, block: number): number {
  let k = Math.imul(block, C1)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, C2)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

/** The last 1–3 bytes (those missing are 0). */
function mixTail(h: number, b0: number, b1: number, b2: number): number {
  let k = b0 | (b1 << 8) | (b2 << 16)
  k = Math.imul(k, C1)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, C2)
  return h ^ k
}

/** The last step of MurmurHash3: the length, then avalanche. */
export function finalMix(h: number, length: number): number {
  h ^= length
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** MurmurHash3 x86 32-bit of `key`'s code units (low byte of each), as an unsigned integer. */
export function murmurhash3(key: string, seed = 0): number {
  const length = key.length
  const tail = length & 3
  const blocksEnd = length - tail
  let h = seed | 0
  let i = 0
  for (; i < blocksEnd; i += 4) {
    h = mixBlock(
      h,
      (key.charCodeAt(i) & 0xff) |
        ((key.charCodeAt(i + 1) & 0xff) << 8) |
        ((key.charCodeAt(i + 2) & 0xff) << 16) |
        ((key.charCodeAt(i + 3) & 0xff) << 24),
    )
  }
  if (tail === 3) h = mixTail(h, key.charCodeAt(i) & 0xff, key.charCodeAt(i + 1) & 0xff, key.charCodeAt(i + 2) & 0xff)
  else if (tail === 2) h = mixTail(h, key.charCodeAt(i) & 0xff, key.charCodeAt(i + 1) & 0xff, 0)
  else if (tail === 1) h = mixTail(h, key.charCodeAt(i) & 0xff, 0, 0)
  return finalMix(h, length)
}

/**
 * The SDKs' bucket of `id` within `groupId`: `murmurhash3("groupId:id", seed) % normalizer + 1`,
 * so 1..normalizer. Both parts go through a template string, as in the SDK: an undefined
 * groupId hashes as "undefined".
 */
export function normalizedValue(id: string, groupId: string | undefined, normalizer = 100, seed = 0): number {
  return (murmurhash3(`${groupId}:${id}`, seed) % normalizer) + 1
}

/** Percentage bucket (1..100) used by flexibleRollout and the gradual rollout strategies. */
export function normalizedStrategyValue(id: string, groupId: string | undefined): number {
  return normalizedValue(id, groupId, 100, STRATEGY_SEED)
}

/** Variant bucket (1..totalWeight) used by variant selection. */
export function normalizedVariantValue(id: string, groupId: string | undefined, totalWeight: number): number {
  return normalizedValue(id, groupId, totalWeight, VARIANT_SEED)
}

/** `(id) => normalizedValue(id, groupId, normalizer, seed)` for one groupId, compiled once. */
export function bucketsOf(groupId: string | undefined, normalizer: number, seed: number): (id: string) => number {
  const hash = prefixedMurmurhash3(`${groupId}:`, seed)
  return (id) => (hash(id) % normalizer) + 1
}
