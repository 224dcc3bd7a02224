/**
 * Suspended schedules (docs/change-requests.md#suspended-schedules): when the person who
 * scheduled a request is deleted or may no longer apply, the scheduler must not apply it as them.
 * users/ calls this inside its own transaction, handed over by app.ts.
 */
import { afterCommit } from '../../db/after-commit.ts'
import type { SchedulesOfUsers, SuspensionCause } from '../users/schedules-of-users.ts'
import { appendEvents } from '../events/event-store.ts'
import { createChangeRequestStore } from './change-request-store.ts'
import { NO_SCHEDULE_MAILS, type ScheduleMails } from './schedule-mails.ts'

/** The schedule's reason, as the reference words a deletion's. */
export function suspensionReason(userId: number, cause: SuspensionCause): string {
  const who = `The user who scheduled this change request (user id: ${userId})`
  return cause === 'deleted' ? `${who} has been deleted.` : `${who} no longer has the APPLY_CHANGE_REQUEST permission.`
}

/** `mails`: the author and the person who scheduled each request are told, after the user change's commit. */
export const createSchedulesOfUsers = (mails: ScheduleMails = NO_SCHEDULE_MAILS): SchedulesOfUsers => ({
  async suspend(trx, userId, cause, audit) {
    const reason = suspensionReason(userId, cause)
    const store = createChangeRequestStore(trx)
    // Locked first: a scheduler applying one of them meanwhile finishes before, and it is no longer pending.
    const pending = await store.lockPendingSchedulesOf(userId)
    for (const request of pending) await store.setSchedule(request.id, { ...request.schedule!, status: 'suspended', reason })
    await appendEvents(
      trx,
      audit,
      pending.map((request) => ({
        type: 'change-request-schedule-suspended' as const,
        project: request.project,
        environment: request.environment,
        data: { changeRequestId: request.id, state: 'Scheduled', scheduledAt: request.schedule!.scheduledAt, reason },
      })),
    )
    if (mails !== NO_SCHEDULE_MAILS)
      for (const request of pending)
        afterCommit(trx, () =>
          mails.tell({ ...request, schedule: { ...request.schedule!, status: 'suspended', reason } }, 'suspended', reason),
        )
  },
})
