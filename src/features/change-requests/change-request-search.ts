/**
 * GET /api/admin/search/change-requests (docs/change-requests.md#searching): every project's
 * requests, filtered and paged as the reference's searchChangeRequests; drafts only their author's.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid, quote } from '../../http/errors.ts'
import { parsePaging } from '../../http/paging.ts'
import { parseIntegerFilter, parseOperatorFilter } from '../../http/search-operators.ts'
import type { ChangeRequestState } from './change-request-schemas.ts'
import type { ChangeRequestSearchItem, ChangeRequestSearchQuery } from './change-request-search-schemas.ts'
import { flagsOfRequests, segmentsOfRequests, searchRequests, type ChangeRequestSearch } from './change-request-search-store.ts'
import { OPEN_STATES } from './change-request-store.ts'
import { scheduleOf, user } from './describe.ts'

const LIST = ['IS', 'IS_ANY_OF'] as const
const STATES_OF: Record<string, readonly ChangeRequestState[]> = {
  open: OPEN_STATES,
  closed: ['Applied', 'Cancelled', 'Rejected'],
}

function refuse(name: string, message: string, value: string): never {
  const path = `/query/${name}`
  throw invalid(`The \`${path}\` parameter ${message} You sent ${quote(value)}.`, path)
}

/** The query as a search by `viewerId`; a malformed parameter is a 400 naming it. */
export function parseChangeRequestSearch(query: ChangeRequestSearchQuery, viewerId: number): ChangeRequestSearch {
  const state = parseOperatorFilter(query.state, 'state', LIST)
  for (const value of state?.values ?? []) if (!(value in STATES_OF)) refuse('state', 'takes only open or closed.', query.state!)
  if (query.sortBy !== undefined && query.sortBy !== 'createdAt') refuse('sortBy', 'takes only createdAt.', query.sortBy)
  const createdBy = parseIntegerFilter(query.createdBy, 'createdBy', LIST)?.numbers
  const requestedApprovers = parseIntegerFilter(query.requestedApproverId, 'requestedApproverId', LIST)?.numbers
  return {
    viewerId,
    ...(createdBy ? { createdBy } : {}),
    ...(requestedApprovers ? { requestedApprovers } : {}),
    ...(state ? { states: [...new Set(state.values.flatMap((value) => STATES_OF[value]!))] } : {}),
    order: query.sortOrder ?? 'desc',
    ...parsePaging(query, { defaultLimit: 50, maxLimit: 1000, overMax: 'clamp' }),
  }
}

export function createChangeRequestSearch({ db }: { db: Kysely<Database> }) {
  return {
    /** `{changeRequests: [the page], total: all that match}`. */
    async search(search: ChangeRequestSearch): Promise<{ changeRequests: ChangeRequestSearchItem[]; total: number }> {
      const { requests, total } = await searchRequests(db, search)
      const ids = requests.map((request) => request.id)
      const flags = await flagsOfRequests(db, ids)
      const segments = await segmentsOfRequests(db, ids)
      return {
        changeRequests: requests.map((request) => ({
          id: request.id,
          title: request.title,
          project: request.project,
          environment: request.environment,
          state: request.state,
          createdBy: user(request.createdByUserId, request.createdBy),
          createdAt: request.createdAt,
          features: flags.get(request.id) ?? [],
          segments: segments.get(request.id) ?? [],
          ...scheduleOf(request),
        })),
        total,
      }
    },
  }
}

export type ChangeRequestSearchService = ReturnType<typeof createChangeRequestSearch>
