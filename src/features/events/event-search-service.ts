import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { parsePaging } from '../../http/paging.ts'
import { parseDateFilter, parseIntegerFilter, parseOperatorFilter } from '../../http/search-operators.ts'
import type { EventSearchQuery } from './event-schemas.ts'
import { eventCreators, searchEvents, type EventSearch } from './event-search-store.ts'

const LIST = ['IS', 'IS_ANY_OF'] as const
const DAY = 86_400_000

/** The names the reference gives its two built-in actors. */
const BUILT_IN_NAMES = new Map([
  [-1337, 'Unleash System'],
  [-42, 'Unleash Admin Token'],
])

/** Names of users by id (users/, above this folder, handed by app.ts). */
export type UserNames = (ids: readonly number[]) => Promise<Map<number, string>>

/** The query parameters of GET /search/events as a search; a malformed one is a 400 naming it. */
export function parseEventSearch(query: EventSearchQuery, withProjectOnly: boolean): EventSearch {
  const from = parseDateFilter(query.from, 'from', ['IS'])
  const to = parseDateFilter(query.to, 'to', ['IS'])
  return {
    ...(query.query ? { query: query.query } : {}),
    ...optional('ids', parseIntegerFilter(query.id, 'id', LIST)?.numbers),
    ...optional('groupIds', parseOperatorFilter(query.groupId, 'groupId', LIST)?.values),
    ...optional('featureNames', parseOperatorFilter(query.feature, 'feature', LIST)?.values),
    ...optional('projects', parseOperatorFilter(query.project, 'project', LIST)?.values),
    ...optional('types', parseOperatorFilter(query.type, 'type', LIST)?.values),
    ...optional('environments', parseOperatorFilter(query.environment, 'environment', LIST)?.values),
    ...optional('createdByUserIds', parseIntegerFilter(query.createdBy, 'createdBy', LIST)?.numbers),
    // `to` names the last day included: events before the next midnight.
    ...optional('from', from?.dayStart.toISOString()),
    ...optional('before', to === undefined ? undefined : new Date(to.dayStart.getTime() + DAY).toISOString()),
    ...(withProjectOnly ? { withProjectOnly } : {}),
    ...parsePaging(query, { defaultLimit: 50, maxLimit: 1000, overMax: 'clamp' }),
  }
}

const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>))

export function createEventSearchService({ db, userNames }: { db: Kysely<Database>; userNames: UserNames }) {
  return {
    /** `{"events":[…the page, newest first],"total":<all that match>}`, the events as stored. */
    async search(search: EventSearch): Promise<Buffer> {
      const { events, total } = await searchEvents(db, search)
      return Buffer.from(`{"events":[${events.join(',')}],"total":${total}}`)
    },

    /** Everyone who made an event: a user's name, else the name their latest event gives. */
    async creators(): Promise<Array<{ id: number; name: string }>> {
      const creators = await eventCreators(db)
      const names = await userNames(creators.map((creator) => creator.id).filter((id) => id > 0))
      return creators
        .map(({ id, createdBy }) => ({ id, name: BUILT_IN_NAMES.get(id) ?? names.get(id) ?? createdBy }))
        .filter((creator) => creator.name !== '')
    },
  }
}

export type EventSearchService = ReturnType<typeof createEventSearchService>
