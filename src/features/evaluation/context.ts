import type { EvaluationContext } from './types.ts'

/**
 * A context field as the SDK resolves it (`resolveContextValue`): the context's own field,
 * else `properties[field]`, as a string; undefined when both are missing or null.
 * Unlike the SDK, inherited members (`constructor`, `toString`) are not fields.
 */
export function contextValue(context: EvaluationContext, field: string): string | undefined {
  let value = Object.hasOwn(context, field) ? (context as Record<string, unknown>)[field] : undefined
  if (value === undefined || value === null) {
    const { properties } = context
    value = properties != null && Object.hasOwn(properties, field) ? properties[field] : undefined
  }
  return value === undefined || value === null ? undefined : String(value)
}
