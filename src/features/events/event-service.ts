import type { Kysely } from 'kysely'
import { streamPages } from '../../db/cursor.ts'
import type { Database } from '../../db/tables.ts'
import { eventListPieces, openJsonBody, type JsonBody } from './event-stream.ts'
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
export function createEventService({ db, reader }: { db: Kysely<Database>; reader: Kysely<Database> }) {
  const streamList = (head: string, query: EventJsonQuery): Promise<JsonBody> =>
    openJsonBody(eventListPieces(head, streamPages(reader, query, PAGE_SIZE)))

  return {
    /** `{"version":1,"events":[…last 100, newest first],"totalEvents":<all events>}` */
    async latest(): Promise<string> {
      const { events, total } = await latestEvents(db, LATEST_EVENTS_LIMIT)
      return `{"version":1,"events":[${events.join(',')}],"totalEvents":${total}}`
    },

    /** `{"version":1,"events":[…every event of the project, newest first],"totalEvents":<their count>}` */
    byProject: (project: string): Promise<JsonBody> => streamList('{"version":1,"events":[', projectEventsQuery(reader, project)),

    /** `{"version":1,"toggleName":"<name>","events":[…every event of the flag, newest first],"totalEvents":<their count>}` */
    byFeature: (featureName: string): Promise<JsonBody> =>
      streamList(`{"version":1,"toggleName":${JSON.stringify(featureName)},"events":[`, featureEventsQuery(reader, featureName)),
  }
}

export type EventService = ReturnType<typeof createEventService>
