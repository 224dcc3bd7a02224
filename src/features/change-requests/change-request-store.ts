/** change_requests and what hangs off them: changes, reviews (approvals, rejections), comments. */
import type { Kysely } from 'kysely'
import { advanceCounter } from '../../db/counters.ts'
import { dialectOf } from '../../db/dialect.ts'
import { lockedRows } from '../../db/row-lock.ts'
import type { ChangeRequestChangesTable, ChangeRequestCommentsTable, ChangeRequestReviewsTable, Database } from '../../db/tables.ts'
import type { ChangeRequestState } from './change-request-schemas.ts'

export interface StoredRequest {
  id: number
  project: string
  environment: string
  state: ChangeRequestState
  title: string
  minApprovals: number
  createdBy: string
  createdByUserId: number
  createdAt: string
  stateTimestamps: Record<string, string>
  /** Set while (and after) the request was Scheduled. */
  schedule?: StoredSchedule
}

export interface StoredSchedule {
  scheduledAt: string
  /** failed: the apply when due conflicted; suspended: the person who scheduled it was deleted or may no longer apply. */
  status: 'pending' | 'failed' | 'suspended'
  reason?: string
  /** Who scheduled it: the apply at the time is theirs. */
  by: { name: string; userId: number }
}

export interface StoredChange {
  id: number
  changeRequestId: number
  /** null for a segment's change: its payload names the segment. */
  feature: string | null
  action: string
  payload: unknown
  createdBy: string
  createdByUserId: number
  createdAt: string
}

/** Requests still open to change or apply: the reference's "pending", Scheduled among them. */
export const OPEN_STATES: readonly ChangeRequestState[] = ['Draft', 'In review', 'Approved', 'Scheduled']

const iso = (value: string | Date): string => new Date(value).toISOString()

export function toRequest(row: Database['change_requests']): StoredRequest {
  return {
    id: Number(row.id),
    project: row.project,
    environment: row.environment,
    state: row.state as ChangeRequestState,
    title: row.title,
    minApprovals: Number(row.min_approvals),
    createdBy: row.created_by,
    createdByUserId: Number(row.created_by_user_id),
    createdAt: iso(row.created_at),
    stateTimestamps: JSON.parse(row.state_timestamps),
    ...(row.scheduled_at === null || row.schedule_status === null
      ? {}
      : {
          schedule: {
            scheduledAt: iso(row.scheduled_at),
            status: row.schedule_status as StoredSchedule['status'],
            ...(row.schedule_reason === null ? {} : { reason: row.schedule_reason }),
            by: { name: row.scheduled_by ?? '', userId: Number(row.scheduled_by_user_id) },
          },
        }),
  }
}

function toChange(row: ChangeRequestChangesTable): StoredChange {
  return {
    id: Number(row.id),
    changeRequestId: Number(row.change_request_id),
    feature: row.feature,
    action: row.action,
    payload: JSON.parse(row.payload),
    createdBy: row.created_by,
    createdByUserId: Number(row.created_by_user_id),
    createdAt: iso(row.created_at),
  }
}

export function createChangeRequestStore(db: Kysely<Database>) {
  return {
    /** The approvals an environment's requests need, its settings row locked (PostgreSQL) so an author's draft is made once; undefined: not protected. */
    async lockSettings(project: string, environment: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('change_request_settings')
        .select('required_approvals')
        .where('project', '=', project)
        .where('environment', '=', environment)
        .$call(lockedRows(db))
        .executeTakeFirst()
      return row === undefined ? undefined : Number(row.required_approvals)
    },

    async findDraft(project: string, environment: string, userId: number): Promise<number | undefined> {
      const row = await db
        .selectFrom('change_requests')
        .select('id')
        .where('project', '=', project)
        .where('state', '=', 'Draft')
        .where('environment', '=', environment)
        .where('created_by_user_id', '=', userId)
        .orderBy('id')
        .executeTakeFirst()
      return row === undefined ? undefined : Number(row.id)
    },

    async insert(request: Omit<StoredRequest, 'id'>): Promise<number> {
      const id = await advanceCounter(db, 'change_request_id')
      await db
        .insertInto('change_requests')
        .values({
          id,
          project: request.project,
          environment: request.environment,
          state: request.state,
          title: request.title,
          min_approvals: request.minApprovals,
          created_by: request.createdBy,
          created_by_user_id: request.createdByUserId,
          created_at: request.createdAt,
          scheduled_at: null,
          schedule_status: null,
          schedule_reason: null,
          scheduled_by: null,
          scheduled_by_user_id: null,
          state_timestamps: JSON.stringify(request.stateTimestamps),
        })
        .execute()
      return id
    },

    /** The project's request, locked until the transaction ends (PostgreSQL; SQLite writers run one at a time). */
    async lock(project: string, id: number): Promise<StoredRequest | undefined> {
      const row = await db
        .selectFrom('change_requests')
        .selectAll()
        .where('id', '=', id)
        .where('project', '=', project)
        .$call(lockedRows(db))
        .executeTakeFirst()
      return row && toRequest(row)
    },

    async find(project: string, id: number): Promise<StoredRequest | undefined> {
      const row = await db.selectFrom('change_requests').selectAll().where('id', '=', id).where('project', '=', project).executeTakeFirst()
      return row && toRequest(row)
    },

    /** The project's requests in these states, newest first; drafts only `draftsOf`'s own. */
    async listInStates(
      project: string,
      states: readonly ChangeRequestState[],
      draftsOf: number,
      feature?: string,
    ): Promise<StoredRequest[]> {
      let query = db
        .selectFrom('change_requests')
        .selectAll()
        .where('project', '=', project)
        .where('state', 'in', [...states])
        .where((eb) => eb.or([eb('state', '!=', 'Draft'), eb('created_by_user_id', '=', draftsOf)]))
      if (feature !== undefined)
        query = query.where('id', 'in', db.selectFrom('change_request_changes').select('change_request_id').where('feature', '=', feature))
      return (await query.orderBy('id', 'desc').execute()).map(toRequest)
    },

    /** The project's latest `limit` requests, newest first; drafts only `draftsOf`'s own. */
    async latest(project: string, draftsOf: number, limit: number): Promise<StoredRequest[]> {
      const rows = await db
        .selectFrom('change_requests')
        .selectAll()
        .where('project', '=', project)
        .where((eb) => eb.or([eb('state', '!=', 'Draft'), eb('created_by_user_id', '=', draftsOf)]))
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()
      return rows.map(toRequest)
    },

    async countByState(project: string): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('change_requests')
        .select(['state', (eb) => eb.fn.countAll<number>().as('count')])
        .where('project', '=', project)
        .groupBy('state')
        .execute()
      return new Map(rows.map((row) => [row.state, Number(row.count)]))
    },

    async setState(id: number, state: ChangeRequestState, stateTimestamps: Record<string, string>): Promise<void> {
      await db
        .updateTable('change_requests')
        .set({ state, state_timestamps: JSON.stringify(stateTimestamps) })
        .where('id', '=', id)
        .execute()
    },

    async setSchedule(id: number, schedule: StoredSchedule): Promise<void> {
      await db
        .updateTable('change_requests')
        .set({
          scheduled_at: schedule.scheduledAt,
          schedule_status: schedule.status,
          schedule_reason: schedule.reason ?? null,
          scheduled_by: schedule.by.name,
          scheduled_by_user_id: schedule.by.userId,
        })
        .where('id', '=', id)
        .execute()
    },

    /** Scheduled requests whose time has come (`now` ISO), the earliest first (index change_requests_state_scheduled_idx). */
    async due(now: string, limit: number): Promise<Array<{ id: number; project: string }>> {
      const rows = await db
        .selectFrom('change_requests')
        .select(['id', 'project'])
        .where('state', '=', 'Scheduled')
        .where('scheduled_at', '<=', now)
        .where('schedule_status', '=', 'pending')
        .orderBy('scheduled_at')
        .orderBy('id')
        .limit(limit)
        .execute()
      return rows.map((row) => ({ id: Number(row.id), project: row.project }))
    },

    /** When the earliest pending schedule after `after` (ISO) falls due, if any (index change_requests_state_scheduled_idx). */
    async nextScheduledAfter(after: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('change_requests')
        .select('scheduled_at')
        .where('state', '=', 'Scheduled')
        .where('scheduled_at', '>', after)
        .where('schedule_status', '=', 'pending')
        .orderBy('scheduled_at')
        .limit(1)
        .executeTakeFirst()
      return row?.scheduled_at ? iso(row.scheduled_at) : undefined
    },

    /**
     * The request if it is still due, locked until the transaction ends; on PostgreSQL a row another
     * instance holds is skipped (it is applying it), so each due request is applied by one instance.
     */
    async claimDue(id: number, now: string): Promise<StoredRequest | undefined> {
      let query = db
        .selectFrom('change_requests')
        .selectAll()
        .where('id', '=', id)
        .where('state', '=', 'Scheduled')
        .where('scheduled_at', '<=', now)
        .where('schedule_status', '=', 'pending')
      if (dialectOf(db) === 'postgres') query = query.forUpdate().skipLocked()
      const row = await query.executeTakeFirst()
      return row && toRequest(row)
    },

    /** The Scheduled requests `userId` scheduled whose schedule is pending, locked until the transaction ends, by id (index change_requests_scheduled_by_idx). */
    async lockPendingSchedulesOf(userId: number): Promise<StoredRequest[]> {
      const rows = await db
        .selectFrom('change_requests')
        .selectAll()
        .where('scheduled_by_user_id', '=', userId)
        .where('state', '=', 'Scheduled')
        .where('schedule_status', '=', 'pending')
        .orderBy('id')
        .$call(lockedRows(db))
        .execute()
      return rows.map(toRequest)
    },

    /** A pending schedule of that time marked failed; false when it was not pending (applied, moved or cancelled meanwhile). */
    async markFailed(id: number, scheduledAt: string, reason: string): Promise<boolean> {
      const result = await db
        .updateTable('change_requests')
        .set({ schedule_status: 'failed', schedule_reason: reason })
        .where('id', '=', id)
        .where('state', '=', 'Scheduled')
        .where('schedule_status', '=', 'pending')
        .where('scheduled_at', '=', scheduledAt)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    async setTitle(id: number, title: string): Promise<void> {
      await db.updateTable('change_requests').set({ title }).where('id', '=', id).execute()
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('change_requests').where('id', '=', id).execute()
    },

    /** The changes of these requests, in the order they were added. */
    async changes(ids: readonly number[]): Promise<StoredChange[]> {
      if (ids.length === 0) return []
      const rows = await db
        .selectFrom('change_request_changes')
        .selectAll()
        .where('change_request_id', 'in', [...ids])
        .orderBy('change_request_id')
        .orderBy('id')
        .execute()
      return rows.map(toChange)
    },

    async insertChange(change: Omit<StoredChange, 'id'>): Promise<StoredChange> {
      const id = await advanceCounter(db, 'change_request_change_id')
      await db
        .insertInto('change_request_changes')
        .values({
          id,
          change_request_id: change.changeRequestId,
          feature: change.feature,
          action: change.action,
          payload: JSON.stringify(change.payload),
          created_by: change.createdBy,
          created_by_user_id: change.createdByUserId,
          created_at: change.createdAt,
        })
        .execute()
      return { ...change, id }
    },

    async setPayload(changeId: number, payload: unknown): Promise<void> {
      await db
        .updateTable('change_request_changes')
        .set({ payload: JSON.stringify(payload) })
        .where('id', '=', changeId)
        .execute()
    },

    async deleteChange(changeRequestId: number, changeId: number): Promise<void> {
      await db.deleteFrom('change_request_changes').where('change_request_id', '=', changeRequestId).where('id', '=', changeId).execute()
    },

    async reviews(ids: readonly number[]): Promise<ChangeRequestReviewsTable[]> {
      if (ids.length === 0) return []
      return db
        .selectFrom('change_request_reviews')
        .selectAll()
        .where('change_request_id', 'in', [...ids])
        .orderBy('change_request_id')
        .orderBy('created_at')
        .orderBy('user_id')
        .execute()
    },

    /**
     * One review per person and request: false when this person had reviewed it already (then an
     * approval changes nothing; a rejection replaces their approval).
     */
    async addReview(review: ChangeRequestReviewsTable): Promise<boolean> {
      const result = await db
        .insertInto('change_request_reviews')
        .values(review)
        .onConflict((c) =>
          review.decision === 'rejected'
            ? c.columns(['change_request_id', 'user_id']).doUpdateSet({ decision: 'rejected', created_at: review.created_at })
            : c.columns(['change_request_id', 'user_id']).doNothing(),
        )
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
    },

    async comments(ids: readonly number[]): Promise<ChangeRequestCommentsTable[]> {
      if (ids.length === 0) return []
      return db
        .selectFrom('change_request_comments')
        .selectAll()
        .where('change_request_id', 'in', [...ids])
        .orderBy('change_request_id')
        .orderBy('id')
        .execute()
    },

    async addComment(comment: Omit<ChangeRequestCommentsTable, 'id'>): Promise<void> {
      const id = await advanceCounter(db, 'change_request_comment_id')
      await db
        .insertInto('change_request_comments')
        .values({ id, ...comment })
        .execute()
    },
  }
}

export type ChangeRequestStore = ReturnType<typeof createChangeRequestStore>
