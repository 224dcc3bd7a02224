/**
 * The rules of tag bodies beyond their schemas (body-rules.ts), as the reference's: a tag type's
 * name is URL-friendly and 2–50 characters long; a tag's value is 2–50 characters long once
 * trimmed (it is stored trimmed).
 */
import { allOf, ALL_CLEAN, field, type BodyRules, type Clean } from '../../http/body-rules.ts'
import { urlFriendlyNameProblems } from '../../http/common-schemas.ts'
import { quote, validationFailed, type ErrorDetail } from '../../http/errors.ts'

export const TAG_MIN_LENGTH = 2
export const TAG_MAX_LENGTH = 50

export function tagTypeNameProblems(value: string, path: string): ErrorDetail[] {
  if (value.length < TAG_MIN_LENGTH || value.length > TAG_MAX_LENGTH) {
    return [
      {
        path,
        message: `The \`${path}\` property must be ${TAG_MIN_LENGTH} to ${TAG_MAX_LENGTH} characters long. You sent ${quote(value)}.`,
      },
    ]
  }
  return urlFriendlyNameProblems(value, path)
}

export function tagValueProblems(value: string, path: string): ErrorDetail[] {
  const length = value.trim().length
  if (length >= TAG_MIN_LENGTH && length <= TAG_MAX_LENGTH) return []
  return [
    {
      path,
      message: `The \`${path}\` property must be ${TAG_MIN_LENGTH} to ${TAG_MAX_LENGTH} characters long, leading and trailing white space aside. You sent ${quote(value)}.`,
    },
  ]
}

/** The value rule of every tag in a list at `pointer` (relative to the body). */
function tagListRules(pointer: string): BodyRules {
  return (body, clean: Clean) => {
    let list: unknown = body
    for (const key of pointer.split('/').slice(1))
      list = typeof list === 'object' && list !== null ? (list as Record<string, unknown>)[key] : undefined
    if (!Array.isArray(list)) return []
    return list.flatMap((tag: unknown, index) => {
      const value = typeof tag === 'object' && tag !== null ? (tag as { value?: unknown }).value : undefined
      const at = `${pointer}/${index}/value`
      return typeof value === 'string' && clean(at) ? tagValueProblems(value, `/body${at}`) : []
    })
  }
}

export const tagTypeRules: BodyRules = field('name', tagTypeNameProblems)
export const tagRules: BodyRules = field('value', tagValueProblems)
export const updateTagsRules: BodyRules = allOf(tagListRules('/addedTags'), tagListRules('/removedTags'))
export const bulkTagsRules: BodyRules = allOf(tagListRules('/tags/addedTags'), tagListRules('/tags/removedTags'))
/** A new flag's `tags` (POST /projects/:projectId/features). */
export const newFlagTagsRules: BodyRules = tagListRules('/tags')

/** Runs a route's body rules in the service too (a caller other than the route is held to them as well). */
export function check(rules: BodyRules, body: unknown): void {
  const details = rules(body, ALL_CLEAN)
  if (details.length > 0) throw validationFailed(details)
}
