/**
 * Passwords: stored only as scrypt hashes (Node's crypto), checked against the rules the reference
 * applies (the OWASP strength test it uses), and hashed a few at a time so that sign-in attempts
 * cannot take all memory or CPU. Parameters (docs/security.md): N = 2^16, r = 8, p = 1, a 16-byte
 * random salt and a 32-byte key: 64 MiB and about 0.2 s of one core per hash on a current server.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import owasp from 'owasp-password-strength-test'
import { AppError, tooManyRequests } from '../../http/errors.ts'

const LOG_N = 16
const R = 8
const P = 1
const KEY_LENGTH = 32
// Leaves room for the 128 × N × r bytes scrypt needs.
const MAX_MEMORY = 2 * 128 * 2 ** LOG_N * R

// Hashes running at once, and waiting: past both, a sign-in is refused with 429 instead of queued.
const MAX_RUNNING = 2
const MAX_WAITING = 32
// Places (running or waiting) one client address may hold at once: a small part of the 34, so that
// nobody can take the queue from everyone else by keeping requests in flight.
export const MAX_HASHES_PER_ADDRESS = 4

owasp.config({ allowPassphrases: false, maxLength: 128, minLength: 10 })

function derive(password: string, salt: Buffer, options: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
  )
}

// One queue per process: it shares out the process's CPU and memory, whatever app or command asks.
let running = 0
const waiting: Array<() => void> = []
const heldBy = new Map<string, number>()

/**
 * Runs `work` when one of MAX_RUNNING slots is free; refuses (429) when MAX_WAITING wait already,
 * or when `owner` (a client address key, http/client-address.ts) holds MAX_HASHES_PER_ADDRESS places.
 */
async function inTurn<T>(owner: string, work: () => Promise<T>): Promise<T> {
  const held = heldBy.get(owner) ?? 0
  if (held >= MAX_HASHES_PER_ADDRESS)
    throw tooManyRequests(1, 'Too many sign-ins and password changes from this address at once: try again in a second.')
  if (running >= MAX_RUNNING && waiting.length >= MAX_WAITING)
    throw tooManyRequests(1, 'Too many sign-ins and password changes at once: try again in a second.')
  heldBy.set(owner, held + 1)
  try {
    if (running >= MAX_RUNNING) await new Promise<void>((resolve) => waiting.push(resolve))
    running++
    try {
      return await work()
    } finally {
      running--
      waiting.shift()?.()
    }
  } finally {
    const left = (heldBy.get(owner) ?? 1) - 1
    if (left === 0) heldBy.delete(owner)
    else heldBy.set(owner, left)
  }
}

/**
 * `scrypt$<log2 N>$<r>$<p>$<salt, base64>$<key, base64>`: the parameters travel with the hash, so they can change later.
 * `owner` is who asks (a client address key; a command names itself): see inTurn.
 */
export function hashPassword(password: string, owner: string): Promise<string> {
  return inTurn(owner, async () => {
    const salt = randomBytes(16)
    const key = await derive(password, salt, { N: 2 ** LOG_N, r: R, p: P, maxmem: MAX_MEMORY }, KEY_LENGTH)
    return `scrypt$${LOG_N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`
  })
}

// Compared against when no user or no password matches the name, so a wrong name costs what a wrong password does.
const NOBODY = `scrypt$${LOG_N}$${R}$${P}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`

/** Whether `password` matches `encoded` (null: no password set; the same work is done, and the answer is false). */
export function verifyPassword(password: string, encoded: string | null, owner: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, key] = (encoded ?? NOBODY).split('$')
  if (scheme !== 'scrypt' || !logN || !r || !p || salt === undefined || key === undefined) return Promise.resolve(false)
  const expected = Buffer.from(key, 'base64')
  return inTurn(owner, async () => {
    const options = { N: 2 ** Number(logN), r: Number(r), p: Number(p), maxmem: 2 * 128 * 2 ** Number(logN) * Number(r) }
    const actual = await derive(password, Buffer.from(salt, 'base64'), options, expected.length)
    return encoded !== null && timingSafeEqual(actual, expected)
  })
}

/** A wrong password (or an unknown name: the answer does not tell them apart). */
export const passwordMismatch = () => new AppError(401, 'PasswordMismatch', 'Wrong password, try again.')

/** 400 with every rule the password breaks (the reference's OwaspValidationError), or nothing. */
export function checkPasswordRules(password: string): void {
  const result = owasp.test(password)
  if (result.strong) return
  const [first = 'The password is not strong enough.'] = result.errors
  throw new AppError(400, 'OwaspValidationError', first, { details: [{ message: first, validationErrors: result.errors }] })
}
