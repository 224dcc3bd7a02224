/**
 * The credential in an OFREP event stream's URL (`EventSource` cannot send headers). It names the
 * token (by its name, not a secret), the scope, the hour it ends, and signs those with the token's
 * stored secret hash: every instance reads the same hash from the database, so every instance
 * writes the same URL for the same hour (the bulk answer, which carries it, keeps one ETag) and
 * accepts what another wrote, without a shared key of their own. Only a holder of the token (or of
 * the database) can make one; it expires; a deleted token's no longer verifies.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** A credential is made for the hour under way and works until the end of the next: one URL an hour, never less than an hour to use it. */
export const CREDENTIAL_PERIOD_MS = 3_600_000

export interface StreamGrant {
  /** The token's name; undefined with AUTH_TYPE=none (no token, nothing to sign). */
  token: string | undefined
  environment: string
  projects: readonly string[]
  /** Unix milliseconds after which it is refused. */
  expires: number
}

const signed = (grant: StreamGrant) => JSON.stringify([grant.token ?? null, grant.environment, grant.projects, grant.expires])

export function sign(grant: StreamGrant, secretHash: string): string {
  return createHmac('sha256', secretHash).update('ofrep-events\u0000').update(signed(grant)).digest('base64url')
}

export function verify(grant: StreamGrant, secretHash: string, signature: string): boolean {
  const expected = Buffer.from(sign(grant, secretHash))
  const given = Buffer.from(signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

/** The expiry of the credential made at `now`: the end of the hour after this one. */
export const expiryAt = (now: number): number => (Math.floor(now / CREDENTIAL_PERIOD_MS) + 2) * CREDENTIAL_PERIOD_MS

/** The URL's query: what the stream route reads back. */
export function grantQuery(grant: StreamGrant, signature: string | undefined): string {
  const query = new URLSearchParams()
  if (grant.token !== undefined) query.set('token', grant.token)
  query.set('environment', grant.environment)
  query.set('projects', grant.projects.join(','))
  query.set('expires', String(grant.expires))
  if (signature !== undefined) query.set('signature', signature)
  return query.toString()
}
