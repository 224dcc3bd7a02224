/**
 * Counts failed authentications per client address in one-minute windows, each starting at
 * the address's first failure. Past the limit the address is throttled for the rest of its
 * window: its credentials that do not authenticate get 429 and cost no token query, while
 * valid ones are answered as usual (auth.ts), so a shared address (an office, a load
 * balancer without TRUST_PROXY) is never locked out by someone else's wrong token.
 */
export interface AuthThrottle {
  /** Seconds until the address may try again, or 0 when it is not throttled. */
  retryAfter(address: string, now?: number): number
  recordFailure(address: string, now?: number): void
  /**
   * Counts up to `wanted` failures of the address before the credentials that may fail are tried,
   * so that requests under way at once share what the address has left; returns how many it
   * counted (all of them without a limit). Those that then work are given back with `forgive`.
   */
  reserve(address: string, wanted: number, now?: number): number
  forgive(address: string, count: number, now?: number): void
}

// Bounds the memory an address-hopping client can make us spend: so many addresses, each so long
// (an IPv6 address with a zone fits; with TRUST_PROXY=true a client may name itself anything).
const MAX_TRACKED_ADDRESSES = 10_000
const MAX_ADDRESS_LENGTH = 64

/** `limitPerMinute` failures per `windowMs` (one minute unless told; sign-ins count per 15 minutes). */
export function createAuthThrottle(limitPerMinute: number, windowMs = 60_000): AuthThrottle {
  const WINDOW_MS = windowMs
  const windows = new Map<string, { start: number; failures: number }>()

  function prune(now: number): void {
    for (const [address, window] of windows) {
      if (now - window.start >= WINDOW_MS) windows.delete(address)
    }
    // Still full: forget the oldest (a Map iterates in insertion order).
    while (windows.size >= MAX_TRACKED_ADDRESSES) windows.delete(windows.keys().next().value as string)
  }

  /** The address's window, a new one if it has none running. */
  function currentWindow(fullAddress: string, now: number): { start: number; failures: number } {
    const address = fullAddress.slice(0, MAX_ADDRESS_LENGTH)
    const window = windows.get(address)
    if (window && now - window.start < WINDOW_MS) return window
    windows.delete(address)
    if (windows.size >= MAX_TRACKED_ADDRESSES) prune(now)
    const fresh = { start: now, failures: 0 }
    windows.set(address, fresh)
    return fresh
  }

  return {
    retryAfter(address, now = Date.now()) {
      if (limitPerMinute === 0) return 0
      const window = windows.get(address.slice(0, MAX_ADDRESS_LENGTH))
      if (!window || now - window.start >= WINDOW_MS || window.failures < limitPerMinute) return 0
      return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000))
    },
    recordFailure(address, now = Date.now()) {
      if (limitPerMinute === 0) return
      currentWindow(address, now).failures++
    },
    reserve(address, wanted, now = Date.now()) {
      if (limitPerMinute === 0) return wanted
      const window = currentWindow(address, now)
      const counted = Math.max(0, Math.min(wanted, limitPerMinute - window.failures))
      window.failures += counted
      return counted
    },
    forgive(address, count, now = Date.now()) {
      const window = windows.get(address.slice(0, MAX_ADDRESS_LENGTH))
      // A window that ended meanwhile took what was counted with it.
      if (window && now - window.start < WINDOW_MS) window.failures = Math.max(0, window.failures - count)
    },
  }
}
