/**
 * Event-read response bodies, remembered with the number of events that existed when
 * they were read. Events are immutable and ids gap-free, so while the count is the same
 * the answer is the same — on every instance, since the count is read from the database
 * each time. Bounded: a few dozen short bodies, least recently used out first.
 */
const MAX_ENTRIES = 64
const MAX_BODY_LENGTH = 256 * 1024

export function createEventBodyCache() {
  const entries = new Map<string, { eventCount: number; body: Buffer }>()
  return {
    get(key: string, eventCount: number): Buffer | undefined {
      const entry = entries.get(key)
      if (entry === undefined || entry.eventCount !== eventCount) return undefined
      // Refresh its place: the Map's insertion order is the eviction order.
      entries.delete(key)
      entries.set(key, entry)
      return entry.body
    },
    set(key: string, eventCount: number, body: Buffer): void {
      if (body.length > MAX_BODY_LENGTH) return
      entries.delete(key)
      entries.set(key, { eventCount, body })
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
    },
  }
}
