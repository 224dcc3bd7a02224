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
  // The expiry as a number, so that a hit compares it with Date.now() rather than formatting a date.
  const entries = new Map<string, { principal: Principal; expiresAtMs: number }>()
  let entriesVersion: number | undefined

  return {
    /** `version`: the watch's `'tokens'` version before the lookup (undefined: nothing is known, nothing is used). */
    get(secretHash: string, version: number | undefined, nowMs: number): Principal | undefined {
      if (version === undefined) return undefined
      if (version !== entriesVersion) {
        entries.clear()
        entriesVersion = version
        return undefined
      }
      const entry = entries.get(secretHash)
      if (entry === undefined) return undefined
      if (entry.expiresAtMs <= nowMs) {
        entries.delete(secretHash)
        return undefined
      }
      return entry.principal
    },

    /** Remembers a lookup made at `version`, unless something changed while it ran. */
    set(secretHash: string, version: number | undefined, resolved: ResolvedToken): void {
      if (version === undefined || version !== entriesVersion || watch.version('tokens') !== version) return
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
      const expiresAtMs = resolved.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(resolved.expiresAt)
      // A date that does not parse is taken as past: the token is looked up again, never kept beyond its time.
      entries.set(secretHash, {
        principal: resolved.principal,
        expiresAtMs: Number.isNaN(expiresAtMs) ? Number.NEGATIVE_INFINITY : expiresAtMs,
      })
    },
  }
}

export type PrincipalCache = ReturnType<typeof createPrincipalCache>

/**
 * Every working token's principal, by secret hash, read by one query (`readAll`) instead of one
 * per credential: what a throttled address's credentials are checked against (auth.ts), so that
 * wrong ones cost no query. Read only when asked, and kept while the watch's `'tokens'` version
 * is the one the read began at (a read still running at that version serves as well). Otherwise
 * (or when the watch cannot tell) the answer comes from a read that begins after the question —
 * as current as a lookup made then — shared by every question waiting for it: at most one read
 * runs at a time, and at most one more waits for it.
 */
export function createPrincipalSnapshot(watch: ChangeWatch, readAll: (now: string) => Promise<Map<string, ResolvedToken>>) {
  type Principals = Map<string, ResolvedToken>
  let kept: { version: number; principals: Principals } | undefined
  let running: { version: number | undefined; read: Promise<Principals> } | undefined
  let queued: Promise<Principals> | undefined

  function startRead(): Promise<Principals> {
    const version = watch.version('tokens')
    const read = readAll(new Date().toISOString())
      .then((principals) => {
        if (version !== undefined && watch.version('tokens') === version) kept = { version, principals }
        return principals
      })
      .finally(() => {
        if (running?.read === read) running = undefined
      })
    running = { version, read }
    return read
  }

  /** A read that begins no earlier than this call. */
  function freshRead(): Promise<Principals> {
    if (queued) return queued
    if (!running) return startRead()
    const next = running.read
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        queued = undefined
        return startRead()
      })
    queued = next
    return next
  }

  return {
    /** Who `secretHash` is at `now` (undefined: no working token has it). */
    async find(secretHash: string, now: string): Promise<ResolvedToken | undefined> {
      const version = watch.version('tokens')
      let principals: Principals
      if (version !== undefined && kept?.version === version) principals = kept.principals
      else if (version !== undefined && running?.version === version) principals = await running.read
      else principals = await freshRead()
      const entry = principals.get(secretHash)
      return entry && (entry.expiresAt === null || entry.expiresAt > now) ? entry : undefined
    },
  }
}

export type PrincipalSnapshot = ReturnType<typeof createPrincipalSnapshot>
