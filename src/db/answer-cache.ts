import type { ChangeWatch, Watched } from './change-watch.ts'

/**
 * Response bodies remembered with the version of the database they were computed at
 * (change-watch.ts): while the version is the same, nothing was written anywhere, so the
 * answer is the same. Bounded in entries, key length, body length and bytes in all; least
 * recently used out first. Bodies are JSON bytes, sent as they are.
 */
export interface AnswerCacheLimits {
  maxEntries: number
  maxBodyLength: number
  /** All bodies together: a few long answers must not add up to more memory than this. */
  maxTotalLength: number
  /** Longer keys (a huge batch, say) are not remembered: they would cost more memory than they save. */
  maxKeyLength: number
}

/** `watched`: which version of the watch the answers depend on (change-watch.ts). */
export function createAnswerCache(changes: ChangeWatch, limits: AnswerCacheLimits, watched: Watched = 'any') {
  const entries = new Map<string, { version: number; body: Buffer }>()
  let totalLength = 0

  const forget = (key: string) => {
    const entry = entries.get(key)
    if (entry === undefined) return
    entries.delete(key)
    totalLength -= entry.body.length
  }

  return {
    /** `version`: what the watch said before the lookup (undefined: nothing is known, nothing is used). */
    get(key: string, version: number | undefined): Buffer | undefined {
      if (version === undefined) return undefined
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.version !== version) {
        // Versions only grow: an answer from before this request's version is never used again.
        if (entry.version < version) forget(key)
        return undefined
      }
      // Refresh its place: the Map's insertion order is the eviction order.
      entries.delete(key)
      entries.set(key, entry)
      return entry.body
    },
    /** Remembers a body computed at `version`, unless something was written meanwhile. */
    set(key: string, version: number | undefined, body: Buffer): void {
      if (version === undefined || body.length > limits.maxBodyLength || key.length > limits.maxKeyLength) return
      if (changes.version(watched) !== version) return
      forget(key)
      entries.set(key, { version, body })
      totalLength += body.length
      while (entries.size > limits.maxEntries || totalLength > limits.maxTotalLength) forget(entries.keys().next().value as string)
    },
  }
}

export type AnswerCache = ReturnType<typeof createAnswerCache>
