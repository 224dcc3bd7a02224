import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Principal } from '../../http/permissions.ts'

// Far more signed-in browsers than one instance serves; a bound so that many sessions cannot grow it without end.
const MAX_ENTRIES = 10_000

interface RememberedSession {
  principal: Principal
  /** Until when it may be used without a read: its inactivity clock's next write, or its end, whichever is first. */
  untilMs: number
}

/**
 * Principals of recently seen session cookies, by the cookie's secret, so that a request with a
 * session costs no query (as a token's costs none: principal-cache.ts). Valid only while `watch`
 * reports the `'sessions'` version they were read at: a sign-out, a deleted session, or any change
 * to who a user is (role, password, deletion) on this instance or another (a notification on
 * PostgreSQL, data_version on SQLite) empties it; nothing is used while the watch cannot tell.
 * An entry is used only until the session's inactivity clock is due to be written again (once a
 * minute) or its absolute end, so the session's expiry rules are checked by the read as before.
 */
export function createSessionCache(watch: ChangeWatch) {
  const entries = new Map<string, RememberedSession>()
  let entriesVersion: number | undefined

  return {
    /** `version`: the watch's `'sessions'` version before any read (undefined: nothing is used). */
    get(secret: string, version: number | undefined, nowMs: number): Principal | undefined {
      if (version === undefined) return undefined
      if (version !== entriesVersion) {
        entries.clear()
        entriesVersion = version
        return undefined
      }
      const entry = entries.get(secret)
      if (entry === undefined) return undefined
      if (entry.untilMs <= nowMs) {
        entries.delete(secret)
        return undefined
      }
      return entry.principal
    },

    /** Remembers a session read at `version`, unless something that may end it happened since. */
    set(secret: string, version: number | undefined, principal: Principal, untilMs: number): void {
      if (version === undefined || version !== entriesVersion || watch.version('sessions') !== version) return
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
      entries.set(secret, { principal, untilMs })
    },
  }
}
