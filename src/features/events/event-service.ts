import type { Kysely } from 'kysely'
import { streamPages } from '../../db/cursor.ts'
import type { Database } from '../../db/tables.ts'
import type { ChangeWatch } from '../../db/change-watch.ts'
import { createAnswerCache } from '../../db/answer-cache.ts'
import type { Readable } from 'node:stream'
import { eventListPieces, openJsonBody } from './event-stream.ts'
import { featureEventsQuery, latestEvents, projectEventsQuery, type EventJsonQuery } from './event-store.ts'

/** GET /events without a project: the last 100 (the seed's limit). */
export const LATEST_EVENTS_LIMIT = 100

// Rows per cursor fetch (about 120 KB of event JSON): fewer round trips beyond this gain little,
// and a larger page is more memory alive at every collection.
const PAGE_SIZE = 250

/**
 * Event reads. Each answer is the response body as JSON text: events are stored
 * serialized, so they are concatenated, never parsed. Unbounded lists (a project's,
 * a flag's) are streamed from a cursor on `reader`, so they never sit in memory whole.
 */
/** JSON bytes: whole (and cacheable) when short, a stream when long. */
export type ResponseBody = Buffer | Readable

export function createEventService({ db, reader, changes }: { db: Kysely<Database>; reader: Kysely<Database>; changes: ChangeWatch }) {
  // Answers are remembered while `changes` reports no write to the database (events are never
  // changed, only added): a repeated read then costs no query at all. Each read takes the version
  // its request began at (admin-pipeline.ts), or reads it now.
  // A few dozen short bodies; feature names are short, project ids too.
  const cache = createAnswerCache(changes, { maxEntries: 64, maxBodyLength: 256 * 1024, maxKeyLength: 1024 })

  /** A short list is read whole and remembered; a long one is streamed from a cursor. */
  const list = async (key: string, head: string, query: EventJsonQuery, version: number | undefined): Promise<ResponseBody> => {
    const cached = cache.get(key, version)
    if (cached !== undefined) return cached
    const body = await openJsonBody(eventListPieces(head, streamPages(reader, query, PAGE_SIZE)))
    if (typeof body !== 'string') return body
    // Encoded once: a remembered answer is then sent without converting its text again.
    const bytes = Buffer.from(body)
    cache.set(key, version, bytes)
    return bytes
  }

  return {
    /** `{"version":1,"events":[…last 100, newest first],"totalEvents":<all events>}` */
    async latest(version = changes.version()): Promise<Buffer> {
      const cached = cache.get('latest', version)
      if (cached !== undefined) return cached
      const { events, total } = await latestEvents(db, LATEST_EVENTS_LIMIT)
      const body = Buffer.from(`{"version":1,"events":[${events.join(',')}],"totalEvents":${total}}`)
      cache.set('latest', version, body)
      return body
    },

    /** `{"version":1,"events":[…every event of the project, newest first],"totalEvents":<their count>}` */
    byProject: (project: string, version = changes.version()): Promise<ResponseBody> =>
      list(`project:${project}`, '{"version":1,"events":[', projectEventsQuery(reader, project), version),

    /** `{"version":1,"toggleName":"<name>","events":[…every event of the flag, newest first],"totalEvents":<their count>}` */
    byFeature: (featureName: string, version = changes.version()): Promise<ResponseBody> =>
      list(`feature:${featureName}`, `{"version":1,"toggleName":${JSON.stringify(featureName)},"events":[`, featureEventsQuery(reader, featureName), version),
  }
}

export type EventService = ReturnType<typeof createEventService>
