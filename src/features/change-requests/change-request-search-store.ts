/** The change-request search's queries (docs/change-requests.md#searching): a page of requests, their total, their flags. */
import type { ExpressionBuilder, Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { ChangeRequestState } from './change-request-schemas.ts'
import { toRequest, type StoredRequest } from './change-request-store.ts'

export interface ChangeRequestSearch {
  /** The caller: drafts are shown to their author only. */
  viewerId: number
  createdBy?: number[]
  /** Requests In review that any of these people may still approve (not theirs, not reviewed by them). */
  requestedApprovers?: number[]
  states?: ChangeRequestState[]
  order: 'asc' | 'desc'
  offset: number
  limit: number
}

type Requests = ExpressionBuilder<Database, 'change_requests'>

/** Every filter of `search` as one condition (indexes: created_by (0030), state and id (0030), reviews' key). */
function matches(eb: Requests, search: ChangeRequestSearch) {
  const conditions = [eb.or([eb('state', '!=', 'Draft'), eb('created_by_user_id', '=', search.viewerId)])]
  if (search.createdBy) conditions.push(eb('created_by_user_id', 'in', search.createdBy))
  if (search.states) conditions.push(eb('state', 'in', search.states))
  if (search.requestedApprovers) {
    conditions.push(eb('state', '=', 'In review'))
    conditions.push(
      eb.or(
        search.requestedApprovers.map((userId) =>
          eb.and([
            eb('created_by_user_id', '!=', userId),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('change_request_reviews')
                  .select('change_request_reviews.user_id')
                  .whereRef('change_request_reviews.change_request_id', '=', 'change_requests.id')
                  .where('change_request_reviews.user_id', '=', userId),
              ),
            ),
          ]),
        ),
      ),
    )
  }
  return eb.and(conditions)
}

/** One page of the requests that match, in id order (the order they were made), and how many match in all. */
export async function searchRequests(
  db: Kysely<Database>,
  search: ChangeRequestSearch,
): Promise<{ requests: StoredRequest[]; total: number }> {
  const rows = await db
    .selectFrom('change_requests')
    .selectAll()
    .where((eb) => matches(eb, search))
    .orderBy('id', search.order)
    .limit(search.limit)
    .offset(search.offset)
    .execute()
  const counted = await db
    .selectFrom('change_requests')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .where((eb) => matches(eb, search))
    .executeTakeFirstOrThrow()
  return { requests: rows.map(toRequest), total: Number(counted.total) }
}

/** The flags each request changes, in the order their first change was added. */
export async function flagsOfRequests(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, string[]>> {
  const flags = new Map<number, string[]>()
  if (ids.length === 0) return flags
  const rows = await db
    .selectFrom('change_request_changes')
    .select(['change_request_id', 'feature', (eb) => eb.fn.min('id').as('first')])
    .where('change_request_id', 'in', [...ids])
    .where('feature', 'is not', null)
    .groupBy(['change_request_id', 'feature'])
    .orderBy('change_request_id')
    .orderBy('first')
    .execute()
  for (const row of rows) {
    const id = Number(row.change_request_id)
    const list = flags.get(id)
    if (list) list.push(row.feature!)
    else flags.set(id, [row.feature!])
  }
  return flags
}

/** The segments each request changes (their names as its changes give them), in the order their first change was added. */
export async function segmentsOfRequests(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, string[]>> {
  const segments = new Map<number, string[]>()
  if (ids.length === 0) return segments
  const rows = await db
    .selectFrom('change_request_changes')
    .select(['change_request_id', 'payload'])
    .where('change_request_id', 'in', [...ids])
    .where('feature', 'is', null)
    .orderBy('change_request_id')
    .orderBy('id')
    .execute()
  for (const row of rows) {
    const id = Number(row.change_request_id)
    const { name } = JSON.parse(row.payload) as { name: string }
    const list = segments.get(id) ?? []
    if (!list.includes(name)) list.push(name)
    segments.set(id, list)
  }
  return segments
}
