/**
 * An OpenFeature evaluation context as an Unleash context, mapped as Unleash's own OpenFeature
 * providers map it: `targetingKey` is the `userId`; `sessionId`, `remoteAddress`, `environment`,
 * `appName` and `currentTime` stay at the top level; every other field is a custom property
 * (docs/openfeature.md). The frontend API's defaults follow (the caller's address, a random
 * sessionId): both APIs make their context in one place, so they cannot differ.
 */
import { contextFrom } from '../client-api/frontend-service.ts'
import type { EvaluationContext } from '../evaluation/types.ts'
import { OfrepError } from './ofrep-errors.ts'

/** Bounds of what a caller (a public frontend token) may send: fields, and each value's and name's length. */
export const MAX_CONTEXT_FIELDS = 1000
export const MAX_VALUE_LENGTH = 10_000
export const MAX_NAME_LENGTH = 255

/**
 * The Unleash context for a sent OpenFeature context. Strings are taken as sent; numbers and
 * booleans as their text (Unleash compares text); a date-time as its text. Objects and arrays
 * (OpenFeature's structures) have no Unleash counterpart and are left out, but `properties`,
 * an object of texts, is taken as Unleash's own properties (what the Unleash SDKs send).
 */
export function unleashContext(sent: Record<string, unknown>, callerAddress: string): EvaluationContext {
  const fields: Record<string, unknown> = {}
  let count = 0
  for (const [name, value] of Object.entries(sent)) {
    if (++count > MAX_CONTEXT_FIELDS) throw invalidContext(`The context has more than ${MAX_CONTEXT_FIELDS} fields.`)
    if (name.length > MAX_NAME_LENGTH) throw invalidContext(`A context field's name is longer than ${MAX_NAME_LENGTH} characters.`)
    if (name === 'targetingKey') continue
    if (name === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const properties: Record<string, string> = {}
      for (const [property, text] of Object.entries(value)) {
        if (++count > MAX_CONTEXT_FIELDS) throw invalidContext(`The context has more than ${MAX_CONTEXT_FIELDS} fields.`)
        const scalar = scalarText(`properties.${property}`, text)
        if (scalar !== undefined) properties[property] = scalar
      }
      fields.properties = properties
      continue
    }
    const scalar = scalarText(name, value)
    if (scalar !== undefined) fields[name] = scalar
  }
  const key = sent.targetingKey
  if (key !== undefined) {
    if (typeof key !== 'string') throw invalidContext('`targetingKey` must be a string.')
    // Sent, but naming nobody: the caller meant to target a user and could not say which.
    if (key === '') throw new OfrepError(400, 'TARGETING_KEY_MISSING', '`targetingKey` is empty: send the user it names, or leave it out.')
    if (key.length > MAX_VALUE_LENGTH) throw invalidContext(`\`targetingKey\` is longer than ${MAX_VALUE_LENGTH} characters.`)
    fields.userId = key
  }
  return contextFrom(fields, callerAddress)
}

function scalarText(name: string, value: unknown): string | undefined {
  let text: string
  if (typeof value === 'string') text = value
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value)
  else return undefined
  if (text.length > MAX_VALUE_LENGTH)
    throw invalidContext(`The context field \`${name.slice(0, 100)}\` is longer than ${MAX_VALUE_LENGTH} characters.`)
  return text
}

const invalidContext = (details: string) => new OfrepError(400, 'INVALID_CONTEXT', details)
