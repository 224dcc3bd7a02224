/**
 * Attempts at proving something secret — a password at sign-in, the current password when
 * changing it, an invite or reset link — counted per client address and, where there is one, per
 * account (docs/security.md, "Failed sign-ins"). An attempt is counted the moment it starts, before
 * its verdict, and given back unless it fails: attempts sent together see each other, so a burst
 * gets at most the limit's verdicts and 429 for the rest. Counts are kept in memory, per instance.
 */
import { createAuthThrottle } from '../../http/auth-throttle.ts'
import { AppError, tooManyRequests } from '../../http/errors.ts'
import { hashSecret } from '../api-tokens/token-secret.ts'

const WINDOW_MS = 15 * 60_000
// An address may fail this many times more over all accounts (password spraying) than for one.
const ADDRESS_FACTOR = 4

/** A failed attempt: the verdict "wrong" (a wrong password, an unknown link), which is what is counted. */
const isWrong = (error: unknown): boolean => error instanceof AppError && error.status === 401

export function createPasswordAttempts(failuresPerAccount: number) {
  const perAccount = createAuthThrottle(failuresPerAccount, WINDOW_MS)
  const perAddress = createAuthThrottle(failuresPerAccount * ADDRESS_FACTOR, WINDOW_MS)
  const refused = (seconds: number) =>
    tooManyRequests(seconds, `Too many failed sign-ins from this address: try again in ${seconds} seconds.`)

  return {
    /** 429 while `address` (a key of http/client-address.ts) is held: asked before any work. */
    check(address: string): void {
      const seconds = perAddress.retryAfter(address)
      if (seconds > 0) throw refused(seconds)
    },

    /**
     * Runs `attempt`, counted for `address` and `account` (any string naming the account; the
     * pair is counted, so only this address is slowed down for it) from the start. It counts as
     * failed when it throws a 401; otherwise, right or without a verdict, it is given back.
     */
    async prove<T>(address: string, account: string | undefined, attempt: () => Promise<T>): Promise<T> {
      // Hashed: a throttle keeps keys of up to 64 characters, and an account name may be long.
      const pair = account === undefined ? undefined : hashSecret(`${account}\n${address}`)
      // Counted at once, before anything is awaited: requests under way together see each other.
      if (perAddress.reserve(address, 1) === 0) throw refused(perAddress.retryAfter(address))
      if (pair !== undefined && perAccount.reserve(pair, 1) === 0) {
        perAddress.forgive(address, 1)
        throw refused(perAccount.retryAfter(pair))
      }
      const giveBack = () => {
        perAddress.forgive(address, 1)
        if (pair !== undefined) perAccount.forgive(pair, 1)
      }
      let result: T
      try {
        result = await attempt()
      } catch (error) {
        if (!isWrong(error)) giveBack()
        throw error
      }
      giveBack()
      return result
    },
  }
}

export type PasswordAttempts = ReturnType<typeof createPasswordAttempts>
