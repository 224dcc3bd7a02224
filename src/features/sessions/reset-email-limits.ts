/**
 * How often `POST /auth/reset/password-email` may be asked: anyone may call it, so it must not
 * become a way to flood someone's mailbox or to make Pennon spam. Per address asked for: one email
 * a minute (the reference's limit), further asks answered alike and dropped, so the answer still
 * says nothing about the address. Per client address: RESET_EMAILS_PER_CLIENT asks per 15 minutes,
 * then 429. Counted in memory, per instance.
 */
import { createAuthThrottle } from '../../http/auth-throttle.ts'
import { tooManyRequests } from '../../http/errors.ts'
import { hashSecret } from '../api-tokens/token-secret.ts'

const RESET_EMAILS_PER_CLIENT = 10

export function createResetEmailLimits() {
  const perEmail = createAuthThrottle(1, 60_000)
  const perClient = createAuthThrottle(RESET_EMAILS_PER_CLIENT, 15 * 60_000)
  return {
    /** 429 once the client has asked too often; false when this email address had its email this minute. */
    take(client: string, email: string): boolean {
      if (perClient.reserve(client, 1) === 0)
        throw tooManyRequests(perClient.retryAfter(client), 'Too many password emails asked for from this address: try again later.')
      // Hashed: a throttle keeps keys of up to 64 characters.
      return perEmail.reserve(hashSecret(email.trim().toLowerCase()), 1) === 1
    },
  }
}

export type ResetEmailLimits = ReturnType<typeof createResetEmailLimits>
