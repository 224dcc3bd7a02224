import { hash, randomBytes, timingSafeEqual } from 'node:crypto'

/** 64 hex characters of randomness: the part of a token nobody can guess. */
export function generateSecretPart(): string {
  return randomBytes(32).toString('hex')
}

/** Only this hash is stored; looking a token up means hashing what was presented (one-shot: half the cost of a Hash object). */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex')
}

/** Constant-time comparison of two hex hashes of equal length. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/** `*:*.<hex>` for admin tokens, `<project>:<environment>.<hex>` otherwise (`[]` for several projects). */
export function apiTokenSecret(type: string, projects: readonly string[], environment: string): string {
  if (type === 'admin') return `*:*.${generateSecretPart()}`
  const project = projects.length === 1 ? projects[0] : '[]'
  return `${project}:${environment}.${generateSecretPart()}`
}

/** `user:<hex>`: a token that acts as an account, a service account's or a person's. */
export function accountTokenSecret(): string {
  return `user:${generateSecretPart()}`
}
