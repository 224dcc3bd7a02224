import type { ChangeWatch } from '../../db/change-watch.ts'
import type { ResolvedToken } from './token-store.ts'
import type { Principal } from '../../http/permissions.ts'

// Far more tokens than a deployment uses; a bound so that many distinct valid tokens cannot grow it without end.
const MAX_ENTRIES = 10_000

/**
 * Principals of recently presented tokens, by secret hash, so that a request costs no token
 * query. Valid only while `watch` reports the `'tokens'` version they were read at: a change that
 * may concern tokens (anywhere: another instance, by hand; see change-watch.ts) empties it, and it
 * is not used at all while the watch cannot tell. An entry also ends when its token expires.
 * Unknown tokens are never remembered.
 */
export function createPrincipalCache(watch: ChangeWatch) {
  const entries = new Map<string, ResolvedToken>()
  let entriesVersion: number | undefined

  return {
    /** `version`: the watch's `'tokens'` version before the lookup (undefined: nothing is known, nothing is used). */
    get(secretHash: string, version: number | undefined, now: string): Principal | undefined {
      if (version === undefined) return undefined
      if (version !== entriesVersion) {
        entries.clear()
        entriesVersion = version
        return undefined
      }
      const entry = entries.get(secretHash)
      if (entry === undefined) return undefined
      if (entry.expiresAt !== null && entry.expiresAt <= now) {
        entries.delete(secretHash)
        return undefined
      }
      return entry.principal
    },

    /** Remembers a lookup made at `version`, unless something changed while it ran. */
    set(secretHash: string, version: number | undefined, resolved: ResolvedToken): void {
      if (version === undefined || version !== entriesVersion || watch.version('tokens') !== version) return
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
      entries.set(secretHash, resolved)
    },
  }
}

export type PrincipalCache = ReturnType<typeof createPrincipalCache>
