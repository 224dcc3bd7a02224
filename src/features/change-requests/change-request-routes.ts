import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { Principal } from '../../http/permissions.ts'
import { Type, type TSchema } from '@sinclair/typebox'
import { errorResponses, NoContent, parseIntegerId, sendEmpty } from '../../http/common-schemas.ts'
import { invalid, validationFailed } from '../../http/errors.ts'
import { shapeCheck } from '../../http/json-patch.ts'
import {
  ActionableResponse,
  ChangeBodies,
  ChangeBody,
  type ChangeAction,
  ChangeParams,
  ChangeRequestList,
  ChangeRequestResponse,
  CommentBody,
  ConfigBody,
  ConfigResponse,
  CountResponse,
  EnvironmentParams,
  FeatureParams,
  PAYLOAD_OPTIONAL,
  PAYLOADS,
  ProjectParams,
  RequestParams,
  ScheduledList,
  ScheduledQuery,
  SEGMENT_ACTIONS,
  StateBody,
  TitleBody,
} from './change-request-schemas.ts'
import { requirePermission, type ChangeRequestService } from './change-request-service.ts'
import { ACTION_PERMISSIONS } from './change-rules.ts'
import type { ChangeRequestScheduler } from './scheduler.ts'
import type { ChangeRequestSettings } from './settings-service.ts'

const tags = ['Change Requests']
const base = '/projects/:projectId/change-requests'
/** Each action's payload check, by action and place in an array body (the reference's UI sends several changes as one). */
const PAYLOAD_CHECKS = new Map<string, TSchema>()

/** The schema `action`'s payload is checked against, as the change at `index` of an array body or as the body itself. */
function payloadCheck(action: ChangeAction, index: number | undefined): TSchema {
  const key = `${action}/${index ?? ''}`
  let schema = PAYLOAD_CHECKS.get(key)
  if (!schema) {
    // archiveFeature and deleteDependency may leave their payload out, as the reference's UI does.
    const payload = Type.Object({ payload: PAYLOAD_OPTIONAL.has(action) ? Type.Optional(PAYLOADS[action]) : PAYLOADS[action] })
    // An object keyed by the index reports the same paths as the array item would (/body/0/payload/…).
    schema = index === undefined ? payload : Type.Object({ [index]: payload })
    PAYLOAD_CHECKS.set(key, schema)
  }
  return schema
}

/**
 * The action's permission, then its payload as the direct route checks its body (reported under
 * /body/payload, or /body/<index>/payload in an array); a left-out payload is `{}`.
 */
function checkChange(
  request: FastifyRequest & { principal: Principal },
  change: ChangeBody,
  environment: string,
  index?: number,
): ChangeBody {
  const { action, payload } = change
  requirePermission(request.principal, ACTION_PERMISSIONS[action], environment)
  // A segment's change names no flag; a flag's must.
  if ((change.feature === null) !== SEGMENT_ACTIONS.has(action)) {
    const path = `${index === undefined ? '/body' : `/body/${index}`}/feature`
    throw invalid(
      SEGMENT_ACTIONS.has(action)
        ? `The \`${path}\` property must be null for ${action}: a segment's change names no flag.`
        : `The \`${path}\` property must name the flag that ${action} changes.`,
      path,
    )
  }
  const document = index === undefined ? { payload } : { [index]: { payload } }
  const details = shapeCheck(request, payloadCheck(action, index))(document)
  if (details.length > 0) throw validationFailed(details)
  return { ...change, payload: payload ?? {} }
}

const idOf = (params: { id: string }): number => parseIntegerId(params.id, '/params/id')

export const changeRequestRoutes: FastifyPluginAsyncTypebox<{
  settings: ChangeRequestSettings
  changeRequests: ChangeRequestService
  /** Told of a request scheduled here, after its commit: it is applied at its time, not at the next interval after it. */
  scheduler: Pick<ChangeRequestScheduler, 'dueAt'>
}> = async (app, { settings, changeRequests, scheduler }) => {
  app.get(
    `${base}/config`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "Where the project's changes need change requests",
        description:
          'Every environment of the project, in their order, with whether changes there need change requests and how many approvals.',
        params: ProjectParams,
        response: { 200: ConfigResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => settings.list(request.params.projectId),
  )

  app.put(
    '/projects/:projectId/environments/:environment/change-requests/config',
    {
      config: { permission: 'PROJECT_CHANGE_REQUEST_WRITE' },
      schema: {
        tags,
        summary: 'Require change requests in an environment, or stop requiring them',
        description:
          'While enabled, a direct change of a flag in the environment (switch, strategies, variants) is refused with a 403 unless the caller holds SKIP_CHANGE_REQUEST. Event: change-request-configuration-updated.',
        params: EnvironmentParams,
        body: ConfigBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { projectId, environment } = request.params
      await settings.put(projectId, environment, request.body, request.principal)
      return sendEmpty(reply, 204)
    },
  )

  app.post(
    '/projects/:projectId/environments/:environment/change-requests',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "Add a change (or an array of them) to the caller's draft change request",
        description:
          "The changes go into the caller's Draft for the environment, made when there is none, in their order, all or none (events change-request-created, change-added). Each needs the permission of its action's direct route. A later updateEnabled, patchVariant, reorderStrategy, archiveFeature, addDependency or deleteDependency of the same flag (or update or deletion of the same strategy) replaces the earlier one.",
        params: EnvironmentParams,
        body: ChangeBodies,
        response: { 200: ChangeRequestResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { projectId, environment } = request.params
      const { body } = request
      const changes = Array.isArray(body)
        ? body.map((change, index) => checkChange(request, change, environment, index))
        : [checkChange(request, body, environment)]
      return changeRequests.addChanges(projectId, environment, changes, request.principal, Array.isArray(body))
    },
  )

  app.get(
    base,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "The project's change requests",
        description: 'Newest first, the latest 500; drafts only the caller’s own.',
        params: ProjectParams,
        response: { 200: ChangeRequestList, ...errorResponses(401, 403) },
      },
    },
    async (request) => changeRequests.list(request.params.projectId, request.principal),
  )

  app.get(
    `${base}/pending`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Open change requests of the project',
        description: 'Draft (the caller’s own), In review and Approved, newest first.',
        params: ProjectParams,
        response: { 200: ChangeRequestList, ...errorResponses(401, 403) },
      },
    },
    async (request) => changeRequests.pending(request.params.projectId, request.principal),
  )

  app.get(
    `${base}/pending/:featureName`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Open change requests that change a flag',
        params: FeatureParams,
        response: { 200: ChangeRequestList, ...errorResponses(401, 403) },
      },
    },
    async (request) => changeRequests.pending(request.params.projectId, request.principal, request.params.featureName),
  )

  app.get(
    `${base}/scheduled`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Scheduled change requests that change one of these flags (feature, repeated) or this strategy (strategyId)',
        params: ProjectParams,
        querystring: ScheduledQuery,
        response: { 200: ScheduledList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { feature, strategyId } = request.query
      const features = feature === undefined ? [] : Array.isArray(feature) ? feature : [feature]
      return changeRequests.scheduled(request.params.projectId, features, strategyId)
    },
  )

  app.get(
    `${base}/count`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "The project's change requests counted by state",
        params: ProjectParams,
        response: { 200: CountResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => changeRequests.count(request.params.projectId),
  )

  app.get(
    `${base}/actionable`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'How many of the project’s change requests wait for the caller',
        description:
          'Requests In review made by someone else that the caller has not reviewed and may approve (APPROVE_CHANGE_REQUEST); Approved ones, and Scheduled ones whose schedule failed or is suspended, that the caller may apply (APPLY_CHANGE_REQUEST).',
        params: ProjectParams,
        response: { 200: ActionableResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => changeRequests.actionable(request.params.projectId, request.principal),
  )

  app.get(
    `${base}/:id`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'One change request',
        params: RequestParams,
        response: { 200: ChangeRequestResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => changeRequests.get(request.params.projectId, idOf(request.params)),
  )

  app.delete(
    `${base}/:id`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Discard a draft (its author)',
        description: 'Event: change-request-discarded.',
        params: RequestParams,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await changeRequests.discardDraft(request.params.projectId, idOf(request.params), request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.put(
    `${base}/:id/state`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Move a change request on: In review, Approved, Rejected, Applied, Cancelled',
        description:
          'In review and Cancelled: its author (a request that needs no approval, minApprovals 0, is Approved once in review). Approved and Rejected: someone else, with APPROVE_CHANGE_REQUEST; an approval counts once per person, and the request is Approved when it has the approvals its environment required. Applied: an Approved request, with APPLY_CHANGE_REQUEST; every change goes through the direct routes’ rules in one transaction, and a change that no longer applies fails the whole apply with a 409. Answers the request as it is then.',
        params: RequestParams,
        body: StateBody,
        response: { 200: ChangeRequestResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const changed = await changeRequests.changeState(request.params.projectId, idOf(request.params), request.body, request.principal)
      if (changed.schedule?.status === 'pending') scheduler.dueAt(changed.schedule.scheduledAt)
      return changed
    },
  )

  app.put(
    `${base}/:id/title`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "Change a change request's title (its author)",
        params: RequestParams,
        body: TitleBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await changeRequests.setTitle(request.params.projectId, idOf(request.params), request.body.title, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    `${base}/:id/comments`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Comment on a change request',
        params: RequestParams,
        body: CommentBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      await changeRequests.addComment(request.params.projectId, idOf(request.params), request.body.text, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.put(
    `${base}/:id/changes/:changeId`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Edit a change of a draft (its author): the payload is replaced',
        description: 'The change keeps its flag and action. Event: change-edited.',
        params: ChangeParams,
        body: ChangeBody,
        response: { 200: ChangeRequestResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const changeId = parseIntegerId(request.params.changeId, '/params/changeId')
      const changeRequest = await changeRequests.get(request.params.projectId, idOf(request.params))
      const body = checkChange(request, request.body, changeRequest.environment)
      return changeRequests.editChange(request.params.projectId, idOf(request.params), changeId, body, request.principal)
    },
  )

  app.delete(
    `${base}/:id/changes/:changeId`,
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Discard one change of a draft (its author)',
        description: 'Event: change-discarded.',
        params: ChangeParams,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const changeId = parseIntegerId(request.params.changeId, '/params/changeId')
      await changeRequests.discardChange(request.params.projectId, idOf(request.params), changeId, request.principal)
      return sendEmpty(reply, 200)
    },
  )
}
