/**
 * The contexts the playground evaluates, from the context sent, as the reference makes them.
 * A context's fields are read as text, as SDKs send them: a top-level value that is not text
 * (a number, an object) is left out, and the advanced playground lists it in its warnings.
 * Unless the context names one, `environment` is `default`, the SDK's (not the environment
 * evaluated); `appName` is required; nothing else is filled in (no sessionId, no remoteAddress,
 * and DATE constraints compare with the time of the request when `currentTime` is absent).
 */
import type { EvaluationContext } from '../evaluation/types.ts'

/** A context as sent: sdkContextSchema. */
export interface SentContext {
  appName: string
  properties?: Record<string, string>
  [field: string]: unknown
}

/** A context of the advanced playground: one value per field, properties among the fields (sdkFlatContextSchema). */
export type FlatContext = Record<string, string>

/** The SDK's environment, which a context without one gets. */
export const SDK_ENVIRONMENT = 'default'

/** The fields of `sent` that are text (`properties` apart), in order; the others' names. */
function textFields(sent: SentContext): { fields: [string, string][]; removed: string[] } {
  const fields: [string, string][] = []
  const removed: string[] = []
  for (const [field, value] of Object.entries(sent)) {
    if (field === 'properties') continue
    if (typeof value === 'string') fields.push([field, value])
    else removed.push(field)
  }
  return { fields, removed }
}

/** The context the playground evaluates for `sent`. */
export function evaluationContext(sent: SentContext): EvaluationContext {
  return { environment: SDK_ENVIRONMENT, ...Object.fromEntries(textFields(sent).fields), properties: { ...sent.properties } }
}

/** The context evaluated for one combination of the advanced playground. */
export function flatEvaluationContext(flat: FlatContext): EvaluationContext {
  return { environment: SDK_ENVIRONMENT, ...flat }
}

export interface Combinations {
  /** How many contexts `generate` makes: the product of each field's number of values (a float, however large). */
  count: number
  /** Top-level fields left out because their value is not text: `warnings.invalidContextProperties`. */
  invalidContextProperties: string[]
  /** Every combination, the first field's values varying slowest. Call it once `count` is known to be bounded. */
  generate(): FlatContext[]
}

/**
 * The advanced playground's contexts, as the reference makes them: each text field, and each
 * property (flattened among the fields: a property named as a field replaces it), split at every
 * comma (`"1,2,3"`: three values; nothing trimmed, an empty part is a value), then every
 * combination of one value per field. `appName` is split too, and comes last.
 */
export function contextCombinations(sent: SentContext): Combinations {
  const ordered = new Map<string, string[]>()
  const invalidContextProperties: string[] = []
  for (const [field, value] of Object.entries(sent)) {
    if (field === 'appName') continue
    if (field === 'properties') for (const [name, text] of Object.entries(sent.properties ?? {})) ordered.set(name, text.split(','))
    else if (typeof value === 'string') ordered.set(field, value.split(','))
    else invalidContextProperties.push(field)
  }
  ordered.set('appName', sent.appName.split(','))
  let count = 1
  for (const list of ordered.values()) count *= list.length
  return {
    count,
    invalidContextProperties,
    generate() {
      let contexts: FlatContext[] = [{}]
      for (const [field, list] of ordered) contexts = contexts.flatMap((context) => list.map((value) => ({ ...context, [field]: value })))
      return contexts
    },
  }
}
