import { isDeepStrictEqual } from 'node:util'
import type { Kysely } from 'kysely'
import { advanceCounter } from '../../db/counters.ts'
import type { Database, EventsTable } from '../../db/tables.ts'
import type { AuditContext } from './audit.ts'
import type { NewEvent } from './event-types.ts'

// 11 bound values per row; SQLite allows 32,766 per statement.
const ROWS_PER_INSERT = 1000

/**
 * Appends events inside the caller's transaction, so a change and its events
 * commit or vanish together. An event whose data deep-equals its preData records
 * nothing and is dropped. Ids come from a gap-free counter, so the newest event's
 * id is also the number of events.
 */
export async function appendEvents(trx: Kysely<Database>, audit: AuditContext, events: readonly NewEvent[]): Promise<void> {
  const kept = events.filter((event) => {
    const data = 'data' in event ? event.data : null
    const preData = 'preData' in event ? event.preData : null
    return !(data && preData && isDeepStrictEqual(data, preData))
  })
  if (kept.length === 0) return

  const lastId = await advanceCounter(trx, 'event_id', kept.length)
  const firstId = lastId - kept.length + 1
  const rows = kept.map((event, index) => toRow(firstId + index, audit, event))
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await trx.insertInto('events').values(rows.slice(start, start + ROWS_PER_INSERT)).execute()
  }
}

function toRow(id: number, audit: AuditContext, event: NewEvent): EventsTable {
  const featureName = event.featureName ?? null
  const project = event.project ?? null
  const environment = event.environment ?? null
  // Keys in the order the API shows them; the stored text is served verbatim.
  const json = JSON.stringify({
    id,
    type: event.type,
    createdBy: audit.createdBy,
    createdAt: audit.createdAt,
    createdByUserId: audit.createdByUserId,
    data: 'data' in event ? event.data : null,
    preData: 'preData' in event ? event.preData : null,
    tags: [],
    featureName,
    project,
    environment,
    groupType: audit.groupType,
    groupId: audit.groupId,
  })
  return {
    id,
    type: event.type,
    created_by: audit.createdBy,
    created_by_user_id: audit.createdByUserId,
    created_at: audit.createdAt,
    feature_name: featureName,
    project,
    environment,
    group_type: audit.groupType,
    group_id: audit.groupId,
    json,
  }
}
