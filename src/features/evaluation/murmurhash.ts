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
 * hashes only the rest, and no joined string is built (nor flattened) per call.
 */
export function prefixedMurmurhash3(prefix: string, seed = 0): (id: string) => number {
  const prefixLength = prefix.length
  const mixedEnd = prefixLength - (prefixLength & 3)
  let mixed = seed | 0
  for (let i = 0; i < mixedEnd; i += 4) {
    mixed = mixBlock(mixed, (prefix.charCodeAt(i) & 0xff) | ((prefix.charCodeAt(i + 1) & 0xff) << 8) | ((prefix.charCodeAt(i + 2) & 0xff) << 16) | ((prefix.charCodeAt(i + 3) & 0xff) << 24))
  }
  // The prefix's last 0–3 code units, still to be hashed with the id's first ones.
  const rest = prefix.slice(mixedEnd)
  const restLength = rest.length
  const r0 = restLength > 0 ? rest.charCodeAt(0) & 0xff : 0
  const r1 = restLength > 1 ? rest.charCodeAt(1) & 0xff : 0
  const r2 = restLength > 2 ? rest.charCodeAt(2) & 0xff : 0
  return (id) => {
    const total = restLength + id.length
    // Code unit k of rest + id, low byte.
    const at = (k: number) => (k < restLength ? (k === 0 ? r0 : k === 1 ? r1 : r2) : id.charCodeAt(k - restLength) & 0xff)
    const tail = total & 3
    const blocksEnd = total - tail
    let h = mixed
    let k = 0
    // Blocks that begin in the prefix's rest (at most one), then blocks of the id alone.
    if (restLength > 0 && blocksEnd > 0) {
      h = mixBlock(h, at(0) | (at(1) << 8) | (at(2) << 16) | (at(3) << 24))
      k = 4
    }
    for (let i = k - restLength; k < blocksEnd; k += 4, i += 4) {
      h = mixBlock(h, (id.charCodeAt(i) & 0xff) | ((id.charCodeAt(i + 1) & 0xff) << 8) | ((id.charCodeAt(i + 2) & 0xff) << 16) | ((id.charCodeAt(i + 3) & 0xff) << 24))
    }
    if (tail > 0) h = mixTail(h, at(k), tail >= 2 ? at(k + 1) : 0, tail === 3 ? at(k + 2) : 0)
    return finalMix(h, prefixLength + id.length)
  }
}

function mixBlock(h: number, block: number): number {
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

function finalMix(h: number, length: number): number {
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
    h = mixBlock(h, (key.charCodeAt(i) & 0xff) | ((key.charCodeAt(i + 1) & 0xff) << 8) | ((key.charCodeAt(i + 2) & 0xff) << 16) | ((key.charCodeAt(i + 3) & 0xff) << 24))
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
