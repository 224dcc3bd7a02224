/**
 * Suspended schedules (docs/change-requests.md#suspended-schedules): when the person who
 * scheduled a request is deleted or may no longer apply, the scheduler must not apply it as them.
 * users/ calls this inside its own transaction, handed over by app.ts.
 */
import type { SchedulesOfUsers } from '../users/schedules-of-users.ts'
import { appendEvents } from '../events/event-store.ts'
import { createChangeRequestStore } from './change-request-store.ts'

export const schedulesOfUsers: SchedulesOfUsers = {
  async suspend(trx, userId, reason, audit) {
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
  },
}
