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

/** MurmurHash3 x86 32-bit of `key`'s code units (low byte of each), as an unsigned integer. */
export function murmurhash3(key: string, seed = 0): number {
  const length = key.length
  const tail = length & 3
  const blocksEnd = length - tail
  let h = seed | 0
  let i = 0
  for (; i < blocksEnd; i += 4) {
    let k =
      (key.charCodeAt(i) & 0xff) |
      ((key.charCodeAt(i + 1) & 0xff) << 8) |
      ((key.charCodeAt(i + 2) & 0xff) << 16) |
      ((key.charCodeAt(i + 3) & 0xff) << 24)
    k = Math.imul(k, C1)
    k = (k << 15) | (k >>> 17)
    k = Math.imul(k, C2)
    h ^= k
    h = (h << 13) | (h >>> 19)
    h = (Math.imul(h, 5) + 0xe6546b64) | 0
  }
  if (tail > 0) {
    let k = 0
    if (tail === 3) k ^= (key.charCodeAt(i + 2) & 0xff) << 16
    if (tail >= 2) k ^= (key.charCodeAt(i + 1) & 0xff) << 8
    k ^= key.charCodeAt(i) & 0xff
    k = Math.imul(k, C1)
    k = (k << 15) | (k >>> 17)
    k = Math.imul(k, C2)
    h ^= k
  }
  h ^= length
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
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
