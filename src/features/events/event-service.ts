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
 * a flag's) are streamed from a cursor on `reader`; those that turn out to fit in
 * REMEMBERED_LENGTH are kept whole once read, and longer ones never sit in memory whole.
 */
/** JSON bytes: whole (and cacheable) when short or remembered, a stream when long. */
export type ResponseBody = Buffer | Readable

// Answers up to this size (a project's history of some 15,000 events) are read ahead of the client
// and remembered once complete; longer ones are streamed at the client's pace every time.
const REMEMBERED_LENGTH = 8 * 1024 * 1024
// Reads ahead under way at once: each holds up to REMEMBERED_LENGTH until it completes or gives up.
const MAX_READS_AHEAD = 2

export function createEventService({ db, reader, changes }: { db: Kysely<Database>; reader: Kysely<Database>; changes: ChangeWatch }) {
  // Answers are remembered while `changes` reports no write to the database (events are never
  // changed, only added): a repeated read then costs no query at all. Each read takes the version
  // its request began at (admin-pipeline.ts), or reads it now.
  // A few dozen answers, two of the longest at most; feature names are short, project ids too.
  const cache = createAnswerCache(changes, {
    maxEntries: 64,
    maxBodyLength: REMEMBERED_LENGTH,
    maxTotalLength: 2 * REMEMBERED_LENGTH,
    maxKeyLength: 1024,
  })
  // Reads of an answer not remembered yet, by key: a request for the same answer at the same
  // version waits for that read instead of making its own (ten clients asking at once cost one read).
  const reading = new Map<string, { version: number; whole: Promise<Buffer | undefined> }>()

  /** A short list is read whole; a long one is streamed from a cursor, and read ahead to be remembered when it fits. */
  const list = async (key: string, head: string, query: EventJsonQuery, version: number | undefined): Promise<ResponseBody> => {
    const cached = cache.get(key, version)
    if (cached !== undefined) return cached
    const shared = reading.get(key)
    if (shared !== undefined && shared.version === version) {
      const whole = await shared.whole
      if (whole !== undefined) return whole
    }

    // Only one read ahead per answer, and a few in all (each holds up to REMEMBERED_LENGTH meanwhile).
    const readAhead = version !== undefined && !reading.has(key) && reading.size < MAX_READS_AHEAD
    let settle: ((whole: Buffer | undefined) => void) | undefined
    const entry = readAhead ? { version, whole: new Promise<Buffer | undefined>((resolve) => (settle = resolve)) } : undefined
    if (entry !== undefined) reading.set(key, entry)
    const finish = (whole: Buffer | undefined) => {
      if (entry !== undefined && reading.get(key) === entry) reading.delete(key)
      settle?.(whole)
      if (whole !== undefined) cache.set(key, version, whole)
    }
    let body: Awaited<ReturnType<typeof openJsonBody>>
    try {
      body = await openJsonBody(eventListPieces(head, streamPages(reader, query, PAGE_SIZE)), {
        readAhead: readAhead ? REMEMBERED_LENGTH : 0,
      })
    } catch (error) {
      finish(undefined)
      throw error
    }
    if (typeof body === 'string') {
      // Encoded once: a remembered answer is then sent without converting its text again.
      const bytes = Buffer.from(body)
      finish(bytes)
      return bytes
    }
    void body.whole.then(finish)
    return body.stream
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
      list(
        `feature:${featureName}`,
        `{"version":1,"toggleName":${JSON.stringify(featureName)},"events":[`,
        featureEventsQuery(reader, featureName),
        version,
      ),
  }
}

export type EventService = ReturnType<typeof createEventService>
