/**
 * The reference's "actionable" count (docs/change-requests.md#actionable-requests): the project's
 * requests that wait for something the caller may do. One query on change_requests_project_state_idx
 * (project, state), with the reviews' key for "not yet approved by them".
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export interface ActionableCaller {
  userId: number
  /** Holds APPROVE_CHANGE_REQUEST: requests In review by others that they have not reviewed count. */
  mayApprove: boolean
  /** Holds APPLY_CHANGE_REQUEST: Approved requests, and Scheduled ones whose schedule failed or is suspended, count. */
  mayApply: boolean
}

/** Schedules that will not apply by themselves: someone must schedule them again, apply or end them. */
const STUCK_SCHEDULES = ['failed', 'suspended']

export async function countActionable(db: Kysely<Database>, project: string, caller: ActionableCaller): Promise<number> {
  const states = [...(caller.mayApprove ? ['In review'] : []), ...(caller.mayApply ? ['Approved', 'Scheduled'] : [])]
  if (states.length === 0) return 0
  const row = await db
    .selectFrom('change_requests')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .where('project', '=', project)
    .where('state', 'in', states)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('state', '=', 'In review'),
          eb('created_by_user_id', '!=', caller.userId),
          eb.not(
            eb.exists(
              eb
                .selectFrom('change_request_reviews')
                .select('change_request_reviews.user_id')
                .whereRef('change_request_reviews.change_request_id', '=', 'change_requests.id')
                .where('change_request_reviews.user_id', '=', caller.userId),
            ),
          ),
        ]),
        eb('state', '=', 'Approved'),
        eb.and([eb('state', '=', 'Scheduled'), eb('schedule_status', 'in', STUCK_SCHEDULES)]),
      ]),
    )
    .executeTakeFirstOrThrow()
  return Number(row.total)
}
