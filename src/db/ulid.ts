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

let lastMonotonic = ''

/**
 * A ULID greater than every one this function returned before in this process: in the same
 * millisecond (or after the clock stepped back), the previous one plus one. For rows listed in id
 * order as the order they were made (a flag's links), which ulid() cannot promise within a millisecond.
 */
export function monotonicUlid(now: number = Date.now()): string {
  const fresh = ulid(now)
  lastMonotonic = fresh > lastMonotonic ? fresh : successor(lastMonotonic)
  return lastMonotonic
}

function successor(id: string): string {
  const digits = [...id]
  for (let i = digits.length - 1; i >= 0; i--) {
    const value = CROCKFORD.indexOf(digits[i]!)
    if (value < 31) {
      digits[i] = CROCKFORD[value + 1]!
      return digits.join('')
    }
    digits[i] = '0'
  }
  return digits.join('')
}
