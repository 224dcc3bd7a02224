/**
 * Scheduled change requests (docs/change-requests.md#scheduling): the time a request is scheduled
 * at, the scheduler's pass over the due ones (scheduler.ts runs it), and the project's scheduled
 * requests by flag or strategy.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError, invalid, quote } from '../../http/errors.ts'
import { auditContext, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { createChangeRequestStore, type StoredRequest } from './change-request-store.ts'
import type { ScheduleMails } from './schedule-mails.ts'

/** Due requests one scheduler pass takes on; the rest wait for the next. */
const DUE_BATCH = 100

/** A schedule's time: an ISO time after `now` (the reference's dialog offers only future times). */
export function futureTime(value: string | undefined, now: string): string {
  if (value === undefined)
    throw invalid('A change request is scheduled with scheduledAt, the time to apply it (ISO 8601).', '/body/scheduledAt')
  const time = Date.parse(value)
  if (Number.isNaN(time) || !/^\d{4}-\d\d-\d\dT/.test(value))
    throw invalid(`scheduledAt ${quote(value)} is not a time: give an ISO 8601 time, such as 2030-01-31T09:00:00Z.`, '/body/scheduledAt')
  if (time <= Date.parse(now))
    throw invalid(`scheduledAt ${quote(value)} is not in the future: apply the request now instead.`, '/body/scheduledAt')
  return new Date(time).toISOString()
}

const eventOf = (request: StoredRequest) => ({ project: request.project, environment: request.environment })

export interface ScheduledApplyOptions {
  db: Kysely<Database>
  /** The service's apply: every change, the state Applied and change-request-applied (with `extra` in its data), in `trx`. */
  applyNow(trx: Kysely<Database>, request: StoredRequest, audit: AuditContext, extra?: object): Promise<StoredRequest>
  /** Told of a schedule marked failed, after that commit. */
  mails: ScheduleMails
}

export function createScheduledApply({ db, applyNow, mails }: ScheduledApplyOptions) {
  /**
   * The scheduler's one due request: claimed (skipped when another instance holds it or it is no
   * longer due), applied by the person who scheduled it, with the state change and its events, in
   * one transaction. A conflict rolls all of it back and marks the schedule failed with the reason,
   * once (the mark is conditional on the schedule still pending at that time).
   */
  async function runScheduled(id: number, now: string): Promise<'applied' | 'failed' | 'skipped'> {
    let due: StoredRequest | undefined
    try {
      return await db.transaction().execute(async (trx) => {
        due = await createChangeRequestStore(trx).claimDue(id, now)
        if (!due?.schedule) return 'skipped'
        const audit = auditContext(due.schedule.by)
        const times = { scheduledAt: due.schedule.scheduledAt, appliedAt: audit.createdAt }
        const applied = await applyNow(trx, due, audit, times)
        await appendEvents(trx, { ...audit, skipsChangeRequests: true }, [
          {
            type: 'change-request-scheduled-application-success',
            ...eventOf(applied),
            data: { changeRequestId: id, state: 'Applied', ...times },
          },
        ])
        return 'applied'
      })
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500 || !due?.schedule) throw error
      const failed = due
      const reason = error.message
      const schedule = failed.schedule!
      const outcome = await db.transaction().execute(async (trx) => {
        if (!(await createChangeRequestStore(trx).markFailed(id, schedule.scheduledAt, reason))) return 'skipped'
        await appendEvents(trx, auditContext(schedule.by), [
          {
            type: 'change-request-scheduled-application-failure',
            ...eventOf(failed),
            data: {
              changeRequestId: id,
              state: 'Scheduled',
              scheduledAt: schedule.scheduledAt,
              failedAt: new Date().toISOString(),
              reason,
            },
          },
        ])
        return 'failed'
      })
      // After the commit, by the one instance that marked it: the author and who scheduled it are told.
      if (outcome === 'failed') mails.tell({ ...failed, schedule: { ...schedule, status: 'failed', reason } }, 'failed', reason)
      return outcome
    }
  }

  return {
    /** One pass of the scheduler: every request due at `now`, the earliest first; what became of each. */
    runDue: async (now = new Date()): Promise<Array<{ id: number; outcome: 'applied' | 'failed' | 'skipped' }>> => {
      const at = now.toISOString()
      const outcomes = []
      for (const { id } of await createChangeRequestStore(db).due(at, DUE_BATCH)) outcomes.push({ id, outcome: await runScheduled(id, at) })
      return outcomes
    },

    /**
     * When (ms since the epoch) the earliest pending schedule after `after` falls due, if any: the
     * scheduler passes again then. (One due already and still pending is another instance's to
     * apply, or waits for the next interval: it must not hide the next one.)
     */
    nextDue: async (after: Date): Promise<number | undefined> => {
      const at = await createChangeRequestStore(db).nextScheduledAfter(after.toISOString())
      return at === undefined ? undefined : Date.parse(at)
    },

    /** GET …/change-requests/scheduled: the project's Scheduled requests changing one of `features`, or the strategy `strategyId`. */
    scheduled: async (project: string, features: readonly string[], strategyId?: string) => {
      const store = createChangeRequestStore(db)
      const requests = await store.listInStates(project, ['Scheduled'], -1)
      const changes = await store.changes(requests.map((request) => request.id))
      const matching = new Set(
        changes
          .filter(
            (change) =>
              (change.feature !== null && features.includes(change.feature)) ||
              (strategyId !== undefined && change.feature !== null && (change.payload as { id?: unknown } | null)?.id === strategyId),
          )
          .map((change) => change.changeRequestId),
      )
      return requests
        .filter((request) => matching.has(request.id))
        .map((request) => ({ id: request.id, environment: request.environment, title: request.title }))
    },
  }
}
