/**
 * Emails about a schedule that went wrong (docs/change-requests.md#when-a-schedule-goes-wrong): when
 * a scheduled request fails when due, or is suspended, its author and the person who scheduled it
 * (those still there, with an email address) are told which request, what it changes and why, with
 * a link to its page. Called after the commit that marked the schedule; the sends run in the
 * background and never throw: a failure is logged, and the schedule stays as it was marked.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { EmailSender } from '../email/email-sender.ts'
import { scheduleNoticeEmail } from '../email/mail-texts.ts'
import { addressesOfUsers } from '../users/user-store.ts'
import { createChangeRequestStore, type StoredRequest } from './change-request-store.ts'

export interface ScheduleMails {
  /** After the commit that marked `request`'s schedule failed or suspended, with `reason`. */
  tell(request: StoredRequest, status: 'failed' | 'suspended', reason: string): void
  /** Resolves once every email asked for so far was sent or given up (closing waits for it). */
  idle(): Promise<void>
}

interface Log {
  error(object: object, message: string): void
}

export function createScheduleMails({
  db,
  email,
  publicUrl,
  log,
}: {
  db: Kysely<Database>
  email: EmailSender
  /** PUBLIC_URL: where the request's page is; without it the emails carry no link. */
  publicUrl: string | undefined
  log: Log
}): ScheduleMails {
  const running = new Set<Promise<void>>()

  async function send(request: StoredRequest, status: 'failed' | 'suspended', reason: string): Promise<void> {
    const changes = await createChangeRequestStore(db).changes([request.id])
    const flags = [...new Set(changes.flatMap((change) => (change.feature === null ? [] : [change.feature])))]
    const segments = [...new Set(changes.flatMap((change) => (change.feature === null ? [(change.payload as { name: string }).name] : [])))]
    const people = new Set([request.createdByUserId, ...(request.schedule ? [request.schedule.by.userId] : [])])
    const link =
      publicUrl === undefined ? undefined : `${publicUrl}/#/projects/${encodeURIComponent(request.project)}/change-requests/${request.id}`
    const notice = {
      status,
      id: request.id,
      title: request.title,
      project: request.project,
      environment: request.environment,
      scheduledAt: request.schedule?.scheduledAt ?? '',
      flags,
      segments,
      reason,
      link,
    }
    // One after the other: a slow server delays only these emails, never the scheduler.
    for (const person of await addressesOfUsers(db, [...people])) await email.send(scheduleNoticeEmail(person.email, person.name, notice))
  }

  return {
    tell(request, status, reason) {
      if (!email.configured) return
      const sending: Promise<void> = send(request, status, reason)
        .catch((error: unknown) => log.error({ err: error, changeRequestId: request.id }, 'schedule email not sent'))
        .finally(() => running.delete(sending))
      running.add(sending)
    },
    async idle() {
      await Promise.all([...running])
    },
  }
}

/** No emails (the command line, or without the feature). */
export const NO_SCHEDULE_MAILS: ScheduleMails = { tell: () => {}, idle: async () => {} }
