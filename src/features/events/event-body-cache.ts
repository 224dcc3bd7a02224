import type { ChangeWatch } from '../../db/change-watch.ts'

/**
 * Event-read response bodies, remembered with the version of the database they were read
 * at (change-watch.ts): while the version is the same, no event was added anywhere, so the
 * answer is the same. Bounded: a few dozen short bodies, least recently used out first.
 */
const MAX_ENTRIES = 64
const MAX_BODY_LENGTH = 256 * 1024

export function createEventBodyCache(changes: ChangeWatch) {
  const entries = new Map<string, { version: number; body: Buffer }>()
  return {
    /** `version`: what the watch said before the lookup (undefined: nothing is known, nothing is used). */
    get(key: string, version: number | undefined): Buffer | undefined {
      if (version === undefined) return undefined
      const entry = entries.get(key)
      if (entry === undefined || entry.version !== version) return undefined
      // Refresh its place: the Map's insertion order is the eviction order.
      entries.delete(key)
      entries.set(key, entry)
      return entry.body
    },
    /** Remembers a body read at `version`, unless something was written while it was read. */
    set(key: string, version: number | undefined, body: Buffer): void {
      if (version === undefined || body.length > MAX_BODY_LENGTH || changes.version() !== version) return
      entries.delete(key)
      entries.set(key, { version, body })
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
    },
  }
}
