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
    const idLength = id.length
    const total = restLength + idLength
    const tail = total & 3
    const blocksEnd = total - tail
    let h = mixed
    // k: position in rest + id of the next byte to hash; i = k - restLength is its place in id.
    let k = 0
    if (restLength > 0 && blocksEnd > 0) {
      // The one block that begins in the prefix's rest and ends in the id.
      const b1 = restLength > 1 ? r1 : id.charCodeAt(1 - restLength) & 0xff
      const b2 = restLength > 2 ? r2 : id.charCodeAt(2 - restLength) & 0xff
      h = mixBlock(h, r0 | (b1 << 8) | (b2 << 16) | ((id.charCodeAt(3 - restLength) & 0xff) << 24))
      k = 4
    }
    let i = k - restLength
    for (; k < blocksEnd; k += 4, i += 4) {
      h = mixBlock(h, (id.charCodeAt(i) & 0xff) | ((id.charCodeAt(i + 1) & 0xff) << 8) | ((id.charCodeAt(i + 2) & 0xff) << 16) | ((id.charCodeAt(i + 3) & 0xff) << 24))
    }
    if (tail > 0) {
      // The last 1–3 bytes: all of the id when it is shorter than the prefix's rest needs, else its end.
      if (k < restLength) {
        // Only when no whole block was hashed: rest + id is shorter than 4 bytes.
        const byte = (at: number) => (at < restLength ? (at === 0 ? r0 : at === 1 ? r1 : r2) : id.charCodeAt(at - restLength) & 0xff)
        h = mixTail(h, byte(0), tail >= 2 ? byte(1) : 0, tail === 3 ? byte(2) : 0)
      } else {
        h = mixTail(h, id.charCodeAt(i) & 0xff, tail >= 2 ? id.charCodeAt(i + 1) & 0xff : 0, tail === 3 ? id.charCodeAt(i + 2) & 0xff : 0)
      }
    }
    return finalMix(h, prefixLength + idLength)
  }
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
