import { randomBytes } from 'node:crypto'

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * A ULID (26 characters: 48 bits of milliseconds, then 80 random bits, Crockford base 32),
 * the ids the reference gives strategies: unguessable, and sorted by creation time.
 */
export function ulid(now: number = Date.now()): string {
  let time = ''
  for (let rest = now, i = 0; i < 10; i++, rest = Math.floor(rest / 32)) time = CROCKFORD[rest % 32] + time
  const random = randomBytes(16)
  let tail = ''
  for (let i = 0; i < 16; i++) tail += CROCKFORD[random[i]! % 32]
  return time + tail
}
