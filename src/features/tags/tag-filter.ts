/**
 * Tags where flags are listed: the `tag=type:value` filter (client API, project flag list) and the
 * tags each flag of a list shows.
 */
import type { ExpressionBuilder, Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { quote, validationFailed } from '../../http/errors.ts'
import type { EventTag } from '../events/event-types.ts'
import { createTagStore } from './tag-store.ts'

/** `[type, value]` */
export type TagFilter = [string, string]

/**
 * `simple:beta` → `['simple', 'beta']`, as the reference reads a tag filter: the type ends at the
 * first colon (a type is URL-friendly, so it holds none), the value may hold more. 400 otherwise.
 */
export function parseTagFilter(values: readonly string[]): TagFilter[] {
  return values.map((value, index) => {
    const at = value.indexOf(':')
    if (at <= 0 || at === value.length - 1) {
      throw validationFailed([
        { path: `/query/tag/${index}`, message: `The \`/query/tag\` filter must look like "type:value". You sent ${quote(value)}.` },
      ])
    }
    return [value.slice(0, at), value.slice(at + 1)]
  })
}

/** `features.name` has any of the tags (the feature_tags_tag_idx finds their flags). */
export function hasAnyTag(tags: readonly TagFilter[]) {
  return (eb: ExpressionBuilder<Database, 'features'>) =>
    eb(
      'features.name',
      'in',
      eb
        .selectFrom('feature_tags')
        .select('feature_tags.feature_name')
        .where((inner) =>
          inner.or(
            tags.map(([type, value]) =>
              inner.and([inner('feature_tags.tag_type', '=', type), inner('feature_tags.tag_value', '=', value)]),
            ),
          ),
        ),
    )
}

/** Each flag with its tags, as the reference's flag list shows them: one query for the whole list. */
export async function withTags<F extends { name: string }>(
  db: Kysely<Database>,
  flags: readonly F[],
): Promise<Array<F & { tags: EventTag[] }>> {
  const tags = await createTagStore(db).ofFlags(flags.map((flag) => flag.name))
  return flags.map((flag) => ({ ...flag, tags: (tags.get(flag.name) ?? []).map(({ type, value }) => ({ value, type })) }))
}
