/**
 * Change requests (docs/change-requests.md): an author's changes to a protected environment
 * gathered in a Draft, sent for review, approved by others (each person once; the environment's
 * requiredApprovals decide), then applied in one transaction through the direct routes' services.
 * Every step and its events in one transaction; the request's row is locked first, so two applies
 * (or an apply and a cancel) of one request queue and the second finds it Applied. An Approved
 * request can instead be Scheduled: scheduled-apply.ts applies it when due.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError, forbidden, invalid, invalidOperation, notFound, quote } from '../../http/errors.ts'
import { missingPermissions, type Permission, type Principal } from '../../http/permissions.ts'
import { auditContext, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { NewEvent } from '../events/event-types.ts'
import { countActionable } from './actionable-store.ts'
import { applyChanges, type ApplyServices } from './apply.ts'
import type { ChangeBody, ChangeRequestState, StateBody } from './change-request-schemas.ts'
import { checkTarget, sameTarget } from './change-rules.ts'
import { createChangeRequestStore, OPEN_STATES, type StoredChange, type StoredRequest } from './change-request-store.ts'
import { describeRequests, type ChangeRequestView } from './describe.ts'
import { NO_SCHEDULE_MAILS, type ScheduleMails } from './schedule-mails.ts'
import { createScheduledApply, futureTime } from './scheduled-apply.ts'
import { checkProjectEnvironment } from './settings-service.ts'

/** `permission`, or one of several (as the segment routes allow), else the 403 naming them. */
export function requirePermission(principal: Principal, permission: Permission | readonly Permission[], environment: string): void {
  if (missingPermissions(principal, permission) === null) return
  const permissions = typeof permission === 'string' ? [permission] : [...permission]
  const needed = permissions.map((p) => `"${p}"`).join(' or ')
  throw forbidden(`Missing permission: this operation needs ${needed} in the ${quote(environment)} environment.`, permissions)
}

/** How many requests the project's list shows: the latest (older ones by id). */
export const LIST_LIMIT = 500

const requestNotFound = (id: number, project: string) => notFound(`Project ${quote(project)} has no change request ${id}.`)

const eventOf = (request: StoredRequest) => ({ project: request.project, environment: request.environment })

export function createChangeRequestService({
  db,
  services,
  mails = NO_SCHEDULE_MAILS,
}: {
  db: Kysely<Database>
  services: ApplyServices
  /** Emails about schedules that failed (schedule-mails.ts). */
  mails?: ScheduleMails
}) {
  const describeOne = async (trx: Kysely<Database>, request: StoredRequest): Promise<ChangeRequestView> =>
    (await describeRequests(trx, [request]))[0]!

  /** The request, locked, or the 404. */
  async function locked(trx: Kysely<Database>, project: string, id: number): Promise<StoredRequest> {
    const request = await createChangeRequestStore(trx).lock(project, id)
    if (!request) throw requestNotFound(id, project)
    return request
  }

  /** Only the author (or an Admin) may: edit, send for review, cancel. */
  function checkAuthor(request: StoredRequest, principal: Principal, doing: string): void {
    if (request.createdByUserId === principal.userId || principal.permissions.has('ADMIN')) return
    throw new AppError(403, 'NoAccessError', `Only the author of change request ${request.id} may ${doing}.`)
  }

  function checkState(request: StoredRequest, allowed: readonly ChangeRequestState[], doing: string): void {
    if (allowed.includes(request.state)) return
    throw invalidOperation(`Change request ${request.id} is ${request.state}: only a request that is ${allowed.join(' or ')} can ${doing}.`)
  }

  async function moveTo(trx: Kysely<Database>, request: StoredRequest, state: ChangeRequestState, at: string): Promise<StoredRequest> {
    const stateTimestamps = { ...request.stateTimestamps, [state]: at }
    await createChangeRequestStore(trx).setState(request.id, state, stateTimestamps)
    return { ...request, state, stateTimestamps }
  }

  async function comment(trx: Kysely<Database>, request: StoredRequest, text: string, principal: Principal, at: string): Promise<void> {
    await createChangeRequestStore(trx).addComment({
      change_request_id: request.id,
      text,
      created_by: principal.name,
      created_by_user_id: principal.userId,
      created_at: at,
    })
  }

  /** An approval or rejection: by someone other than the author, with APPROVE_CHANGE_REQUEST; once per person. */
  async function review(
    trx: Kysely<Database>,
    request: StoredRequest,
    decision: 'approved' | 'rejected',
    principal: Principal,
    audit: AuditContext,
  ): Promise<StoredRequest> {
    requirePermission(principal, 'APPROVE_CHANGE_REQUEST', request.environment)
    if (request.createdByUserId === principal.userId) {
      throw new AppError(
        403,
        'NoAccessError',
        `The author of change request ${request.id} cannot ${decision === 'approved' ? 'approve' : 'reject'} it.`,
      )
    }
    const store = createChangeRequestStore(trx)
    if (decision === 'rejected') {
      checkState(request, ['In review', 'Approved', 'Scheduled'], 'be rejected')
      await store.addReview({
        change_request_id: request.id,
        user_id: principal.userId,
        decision,
        created_by: principal.name,
        created_at: audit.createdAt,
      })
      const rejected = await moveTo(trx, request, 'Rejected', audit.createdAt)
      await appendEvents(trx, audit, [
        { type: 'change-request-rejected', ...eventOf(request), data: { changeRequestId: request.id, state: 'Rejected' } },
      ])
      return rejected
    }
    checkState(request, ['In review', 'Approved'], 'be approved')
    const added = await store.addReview({
      change_request_id: request.id,
      user_id: principal.userId,
      decision,
      created_by: principal.name,
      created_at: audit.createdAt,
    })
    // A second approval by the same person counts once: nothing changes.
    if (!added) return request
    const events: NewEvent[] = [
      { type: 'change-request-approval-added', ...eventOf(request), data: { changeRequestId: request.id, state: request.state } },
    ]
    let next = request
    if (request.state === 'In review') {
      const approvals = (await store.reviews([request.id])).filter((row) => row.decision === 'approved').length
      if (approvals >= request.minApprovals) {
        next = await moveTo(trx, request, 'Approved', audit.createdAt)
        events.push({ type: 'change-request-approved', ...eventOf(request), data: { changeRequestId: request.id, state: 'Approved' } })
      }
    }
    await appendEvents(trx, audit, events)
    return next
  }

  /** Every change, then the state Applied and its event, in `trx`; the approval lets the changes past the gate that refuses direct ones. */
  async function applyNow(trx: Kysely<Database>, request: StoredRequest, audit: AuditContext, extra: object = {}): Promise<StoredRequest> {
    const changes: StoredChange[] = await createChangeRequestStore(trx).changes([request.id])
    const applying: AuditContext = { ...audit, skipsChangeRequests: true }
    await applyChanges(trx, services, request, changes, applying)
    const applied = await moveTo(trx, request, 'Applied', audit.createdAt)
    await appendEvents(trx, applying, [
      { type: 'change-request-applied', ...eventOf(request), data: { changeRequestId: request.id, state: 'Applied', ...extra } },
    ])
    return applied
  }

  return {
    ...createScheduledApply({ db, applyNow, mails }),

    /**
     * POST …/environments/:environment/change-requests: the changes go into the author's Draft for
     * this environment, made when there is none, in their order, all or none. Each flag must be the
     * project's, with the environment. `several`: whether they were sent as an array (errors name the index).
     */
    addChanges: (
      project: string,
      environment: string,
      bodies: readonly ChangeBody[],
      principal: Principal,
      several: boolean,
    ): Promise<ChangeRequestView> =>
      db.transaction().execute(async (trx) => {
        await checkProjectEnvironment(trx, project, environment)
        const store = createChangeRequestStore(trx)
        const approvals = await store.lockSettings(project, environment)
        if (approvals === undefined) {
          throw invalidOperation(
            `Environment ${quote(environment)} of project ${quote(project)} does not need change requests: change the flag directly.`,
          )
        }
        // Each as it will be stored (a segment's deletion keeps the segment's name).
        const checked: ChangeBody[] = []
        for (const [index, body] of bodies.entries())
          checked.push({ ...body, payload: await checkTarget(trx, project, environment, body, several ? `/body/${index}` : '/body') })
        const audit = auditContext(principal)
        const events: NewEvent[] = []
        let id = await store.findDraft(project, environment, principal.userId)
        if (id === undefined) {
          const at = audit.createdAt
          id = await store.insert({
            project,
            environment,
            state: 'Draft',
            title: '',
            minApprovals: approvals,
            createdBy: principal.name,
            createdByUserId: principal.userId,
            createdAt: at,
            stateTimestamps: { Draft: at },
          })
          // The reference's default title.
          await store.setTitle(id, `Change request #${id}`)
          events.push({ type: 'change-request-created', project, environment, data: { changeRequestId: id, state: 'Draft' } })
        }
        for (const body of checked) {
          const replaced = (await store.changes([id])).filter((change) => sameTarget(change, body))
          for (const change of replaced) await store.deleteChange(id, change.id)
          const change = await store.insertChange({
            changeRequestId: id,
            feature: body.feature,
            action: body.action,
            payload: body.payload,
            createdBy: principal.name,
            createdByUserId: principal.userId,
            createdAt: audit.createdAt,
          })
          events.push({
            type: 'change-added',
            ...(body.feature === null ? {} : { featureName: body.feature }),
            project,
            environment,
            data: { changeRequestId: id, change: { id: change.id, action: change.action, payload: change.payload } },
          })
        }
        await appendEvents(trx, audit, events)
        return describeOne(trx, (await store.find(project, id))!)
      }),

    get: async (project: string, id: number): Promise<ChangeRequestView> => {
      const request = await createChangeRequestStore(db).find(project, id)
      if (!request) throw requestNotFound(id, project)
      return describeOne(db, request)
    },

    /** Open requests of the project (drafts: the caller's own), newest first; `feature` narrows them to those changing it. */
    pending: async (project: string, principal: Principal, feature?: string): Promise<ChangeRequestView[]> =>
      describeRequests(db, await createChangeRequestStore(db).listInStates(project, OPEN_STATES, principal.userId, feature)),

    /** The project's requests, newest first (drafts: the caller's own), the latest LIST_LIMIT of them. */
    list: async (project: string, principal: Principal): Promise<ChangeRequestView[]> =>
      describeRequests(db, await createChangeRequestStore(db).latest(project, principal.userId, LIST_LIMIT)),

    count: async (project: string) => {
      const counts = await createChangeRequestStore(db).countByState(project)
      const of = (state: ChangeRequestState) => counts.get(state) ?? 0
      return {
        applied: of('Applied'),
        approved: of('Approved'),
        rejected: of('Rejected'),
        scheduled: of('Scheduled'),
        reviewRequired: of('In review'),
        total: [...counts.values()].reduce((sum, n) => sum + n, 0),
      }
    },

    /** GET …/actionable: the project's requests waiting for something the caller may do (actionable-store.ts). */
    actionable: async (project: string, principal: Principal): Promise<{ total: number }> => ({
      total: await countActionable(db, project, {
        userId: principal.userId,
        mayApprove: missingPermissions(principal, 'APPROVE_CHANGE_REQUEST') === null,
        mayApply: missingPermissions(principal, 'APPLY_CHANGE_REQUEST') === null,
      }),
    }),

    setTitle: (project: string, id: number, title: string, principal: Principal): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const request = await locked(trx, project, id)
        checkAuthor(request, principal, 'change its title')
        checkState(request, OPEN_STATES, 'change its title')
        await createChangeRequestStore(trx).setTitle(id, title)
      }),

    addComment: (project: string, id: number, text: string, principal: Principal): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const request = await locked(trx, project, id)
        await comment(trx, request, text, principal, new Date().toISOString())
      }),

    /** PUT …/changes/:changeId: a change's payload replaced, in a Draft, by its author; it keeps its flag and action. Event change-edited. */
    editChange: (project: string, id: number, changeId: number, body: ChangeBody, principal: Principal): Promise<ChangeRequestView> =>
      db.transaction().execute(async (trx) => {
        const request = await locked(trx, project, id)
        checkAuthor(request, principal, 'edit its changes')
        checkState(request, ['Draft'], 'have changes edited')
        const store = createChangeRequestStore(trx)
        const change = (await store.changes([id])).find((c) => c.id === changeId)
        if (!change) throw notFound(`Change request ${id} has no change ${changeId}.`)
        if (change.feature !== body.feature || change.action !== body.action) {
          throw invalid(
            `Change ${changeId} is ${change.action} of ${change.feature === null ? 'a segment' : `flag ${quote(change.feature)}`}: an edit keeps the flag and the action (add another change instead).`,
            '/body',
          )
        }
        const payload = await checkTarget(trx, project, request.environment, body)
        await store.setPayload(changeId, payload)
        await appendEvents(trx, auditContext(principal), [
          {
            type: 'change-edited',
            ...(change.feature === null ? {} : { featureName: change.feature }),
            ...eventOf(request),
            data: { changeRequestId: id, change: { id: changeId, action: change.action, payload } },
          },
        ])
        return describeOne(trx, request)
      }),

    /** DELETE …/changes/:changeId: only in a Draft (an approved change must not change under its approvals). */
    discardChange: (project: string, id: number, changeId: number, principal: Principal): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const request = await locked(trx, project, id)
        checkAuthor(request, principal, 'discard its changes')
        checkState(request, ['Draft'], 'have changes discarded')
        const store = createChangeRequestStore(trx)
        const change = (await store.changes([id])).find((c) => c.id === changeId)
        if (!change) throw notFound(`Change request ${id} has no change ${changeId}.`)
        await store.deleteChange(id, changeId)
        await appendEvents(trx, auditContext(principal), [
          {
            type: 'change-discarded',
            ...(change.feature === null ? {} : { featureName: change.feature }),
            ...eventOf(request),
            data: { changeRequestId: id, change: { id: change.id, action: change.action, payload: change.payload } },
          },
        ])
      }),

    /** DELETE …/change-requests/:id: a Draft thrown away, with its changes. */
    discardDraft: (project: string, id: number, principal: Principal): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const request = await locked(trx, project, id)
        checkAuthor(request, principal, 'discard it')
        checkState(request, ['Draft'], 'be discarded')
        await createChangeRequestStore(trx).delete(id)
        await appendEvents(trx, auditContext(principal), [
          { type: 'change-request-discarded', ...eventOf(request), data: { changeRequestId: id, state: 'Draft' } },
        ])
      }),

    /** PUT …/:id/state: the request's next state, with an optional comment; answers the request as it is then. */
    changeState: (project: string, id: number, body: StateBody, principal: Principal): Promise<ChangeRequestView> =>
      db.transaction().execute(async (trx) => {
        let request = await locked(trx, project, id)
        const audit = auditContext(principal)
        const at = audit.createdAt
        const data = { changeRequestId: id, state: body.state }
        switch (body.state) {
          case 'In review': {
            checkAuthor(request, principal, 'send it for review')
            checkState(request, ['Draft'], 'be sent for review')
            if ((await createChangeRequestStore(trx).changes([id])).length === 0)
              throw invalidOperation(`Change request ${id} has no changes: add one before sending it for review.`)
            request = await moveTo(trx, request, 'In review', at)
            const events: NewEvent[] = [{ type: 'change-request-sent-to-review', ...eventOf(request), data }]
            // Made where no approval is needed: Approved at once, for its author to apply or schedule.
            if (request.minApprovals === 0) {
              request = await moveTo(trx, request, 'Approved', at)
              events.push({ type: 'change-request-approved', ...eventOf(request), data: { changeRequestId: id, state: 'Approved' } })
            }
            await appendEvents(trx, audit, events)
            break
          }
          case 'Approved':
            request = await review(trx, request, 'approved', principal, audit)
            break
          case 'Rejected':
            request = await review(trx, request, 'rejected', principal, audit)
            break
          case 'Cancelled': {
            checkAuthor(request, principal, 'cancel it')
            checkState(request, ['Draft', 'In review', 'Approved', 'Scheduled'], 'be cancelled')
            request = await moveTo(trx, request, 'Cancelled', at)
            await appendEvents(trx, audit, [{ type: 'change-request-cancelled', ...eventOf(request), data }])
            break
          }
          case 'Applied': {
            requirePermission(principal, 'APPLY_CHANGE_REQUEST', request.environment)
            checkState(request, ['Approved', 'Scheduled'], 'be applied')
            request = await applyNow(trx, request, audit)
            break
          }
          case 'Scheduled': {
            requirePermission(principal, 'APPLY_CHANGE_REQUEST', request.environment)
            checkState(request, ['Approved', 'Scheduled'], 'be scheduled')
            const scheduledAt = futureTime(body.scheduledAt, at)
            const schedule = { scheduledAt, status: 'pending' as const, by: { name: principal.name, userId: principal.userId } }
            await createChangeRequestStore(trx).setSchedule(id, schedule)
            request = { ...(await moveTo(trx, request, 'Scheduled', at)), schedule }
            await appendEvents(trx, audit, [{ type: 'change-request-scheduled', ...eventOf(request), data: { ...data, scheduledAt } }])
            break
          }
        }
        if (body.comment !== undefined) await comment(trx, request, body.comment, principal, at)
        return describeOne(trx, request)
      }),
  }
}

export type ChangeRequestService = ReturnType<typeof createChangeRequestService>
