/**
 * The rules of a body that its schema cannot say (a name's format, a constraint's value for its
 * operator), declared per route beside the schema. The service runs them on a valid body; when
 * the schema fails, error-handler.ts runs them on every field the schema found no fault in, so
 * `details` lists every violation at once: an empty name is reported beside a wrong type elsewhere.
 */
import type { ErrorDetail } from './errors.ts'

/** Whether the schema found no fault at or under a pointer into the body (`/name`, `/constraints/2`). */
export type Clean = (pointer: string) => boolean

export type BodyRules = (body: unknown, clean: Clean) => ErrorDetail[]

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's body rules (see body-rules.ts), for a report that lists every violation. */
    bodyRules?: BodyRules
  }
}

/** For a body the schema accepted: every field is clean. */
export const ALL_CLEAN: Clean = () => true

/**
 * The places the schema found no fault at, under or above, given where its faults are (pointers
 * relative to the body; a missing or an unknown property's fault is that property's pointer).
 */
export function cleanExcept(faults: readonly string[]): Clean {
  return (pointer) => !faults.some((fault) => fault === pointer || fault.startsWith(`${pointer}/`) || pointer.startsWith(`${fault}/`))
}

/** A rule of one top-level field, run when the field was sent and its type is right. */
// biome-ignore lint/suspicious/noExplicitAny: the schema has already checked the field's type; each rule states the type it expects
export function field(name: string, check: (value: any, path: string) => ErrorDetail[]): BodyRules {
  return (body, clean) => {
    const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined
    return value !== undefined && clean(`/${name}`) ? check(value, `/body/${name}`) : []
  }
}

/** Several rules as one, their violations in order. */
export function allOf(...rules: BodyRules[]): BodyRules {
  return (body, clean) => rules.flatMap((rule) => rule(body, clean))
}

/**
 * No two items of the top-level list `list` share the string at `key`: each repeat is reported at
 * its own path, `describe` saying which earlier item it repeats. Items whose key is not a clean string are skipped.
 */
export function uniqueAmong(list: string, key: string, describe: (earlier: number, value: string) => string): BodyRules {
  return (body, clean) => {
    const items = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[list] : undefined
    if (!Array.isArray(items)) return []
    const first = new Map<string, number>()
    const details: ErrorDetail[] = []
    for (const [index, item] of items.entries()) {
      const value = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined
      if (typeof value !== 'string' || !clean(`/${list}/${index}/${key}`)) continue
      const earlier = first.get(value)
      if (earlier === undefined) first.set(value, index)
      else {
        const path = `/body/${list}/${index}/${key}`
        details.push({ path, message: `The \`${path}\` property must be unique among ${describe(earlier, value)} too.` })
      }
    }
    return details
  }
}
