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
   * Counts an attempt before its outcome is known, unless the address is over its limit: 0 when
   * counted, else the seconds to wait. One synchronous step, so attempts that arrive together
   * cannot all pass the check before any of them is counted.
   */
  take(address: string, now?: number): number
  /** Gives back an attempt `take` counted that did not fail (successes cost nothing). */
  giveBack(address: string, now?: number): void
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

  const throttle: AuthThrottle = {
    retryAfter(address, now = Date.now()) {
      if (limitPerMinute === 0) return 0
      const window = windows.get(address.slice(0, MAX_ADDRESS_LENGTH))
      if (!window || now - window.start >= WINDOW_MS || window.failures < limitPerMinute) return 0
      return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000))
    },
    recordFailure(fullAddress, now = Date.now()) {
      if (limitPerMinute === 0) return
      const address = fullAddress.slice(0, MAX_ADDRESS_LENGTH)
      const window = windows.get(address)
      if (window && now - window.start < WINDOW_MS) {
        window.failures++
        return
      }
      windows.delete(address)
      if (windows.size >= MAX_TRACKED_ADDRESSES) prune(now)
      windows.set(address, { start: now, failures: 1 })
    },
    take(address, now = Date.now()) {
      const retryAfter = throttle.retryAfter(address, now)
      if (retryAfter === 0) throttle.recordFailure(address, now)
      return retryAfter
    },
    giveBack(fullAddress, now = Date.now()) {
      const window = windows.get(fullAddress.slice(0, MAX_ADDRESS_LENGTH))
      if (window && now - window.start < WINDOW_MS && window.failures > 0) window.failures--
    },
  }
  return throttle
}
