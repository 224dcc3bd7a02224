/** Change requests as the API shows them (the reference's change request schema), several at once in four queries. */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { createChangeRequestStore, type StoredRequest } from './change-request-store.ts'

interface UserView {
  id: number
  username: string
  imageUrl: string
}

export interface ChangeRequestView {
  id: number
  title: string
  project: string
  environment: string
  state: string
  minApprovals: number
  createdBy: UserView
  createdAt: string
  features: Array<{
    name: string
    changes: Array<{ id: number; action: string; payload: unknown; createdBy: UserView; createdAt: string }>
  }>
  segments: Array<{ id: number; action: string; name: string; payload: unknown; createdBy: UserView; createdAt: string }>
  approvals: Array<{ createdBy: UserView; createdAt: string }>
  rejections: Array<{ createdBy: UserView; createdAt: string }>
  comments: Array<{ id: number; text: string; createdBy: UserView; createdAt: string }>
  stateTimestamps: Record<string, string>
  /** While Scheduled, as the reference: failed and suspended ones say why (scheduleOf). */
  schedule?: { scheduledAt: string; status: string; reason?: string; failureReason?: string }
}

// Pennon keeps no avatars: the image is empty, as in the flag search's creators.
export const user = (id: number, name: string): UserView => ({ id: Number(id), username: name, imageUrl: '' })
const iso = (value: string | Date): string => new Date(value).toISOString()

function groupBy<T>(items: readonly T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>()
  for (const item of items) {
    const group = groups.get(key(item))
    if (group) group.push(item)
    else groups.set(key(item), [item])
  }
  return groups
}

export async function describeRequests(db: Kysely<Database>, requests: readonly StoredRequest[]): Promise<ChangeRequestView[]> {
  const store = createChangeRequestStore(db)
  const ids = requests.map((request) => request.id)
  const changes = groupBy(await store.changes(ids), (change) => change.changeRequestId)
  const reviews = groupBy(await store.reviews(ids), (review) => Number(review.change_request_id))
  const comments = groupBy(await store.comments(ids), (comment) => Number(comment.change_request_id))
  return requests.map((request) => {
    // Flags in the order their first change was added.
    const features = new Map<string, ChangeRequestView['features'][number]>()
    const segments: ChangeRequestView['segments'] = []
    for (const change of changes.get(request.id) ?? []) {
      if (change.feature === null) {
        // As the reference: the segment's name beside the change (a deletion's payload keeps it).
        const { name } = change.payload as { name: string }
        segments.push({
          id: change.id,
          action: change.action,
          name,
          payload: change.payload,
          createdBy: user(change.createdByUserId, change.createdBy),
          createdAt: change.createdAt,
        })
        continue
      }
      let feature = features.get(change.feature)
      if (!feature) features.set(change.feature, (feature = { name: change.feature, changes: [] }))
      feature.changes.push({
        id: change.id,
        action: change.action,
        payload: change.payload,
        createdBy: user(change.createdByUserId, change.createdBy),
        createdAt: change.createdAt,
      })
    }
    const reviewsOf = (decision: string) =>
      (reviews.get(request.id) ?? [])
        .filter((review) => review.decision === decision)
        .map((review) => ({ createdBy: user(review.user_id, review.created_by), createdAt: iso(review.created_at) }))
    return {
      id: request.id,
      title: request.title,
      project: request.project,
      environment: request.environment,
      state: request.state,
      minApprovals: request.minApprovals,
      createdBy: user(request.createdByUserId, request.createdBy),
      createdAt: request.createdAt,
      features: [...features.values()],
      segments,
      approvals: reviewsOf('approved'),
      rejections: reviewsOf('rejected'),
      comments: (comments.get(request.id) ?? []).map((comment) => ({
        id: Number(comment.id),
        text: comment.text,
        createdBy: user(comment.created_by_user_id, comment.created_by),
        createdAt: iso(comment.created_at),
      })),
      stateTimestamps: request.stateTimestamps,
      ...scheduleOf(request),
    }
  })
}

/**
 * `{schedule}` while Scheduled, as the reference: pending; failed with its reason (and
 * failureReason, as older UIs read it); suspended with its reason. Nothing otherwise.
 */
export function scheduleOf(request: StoredRequest): { schedule?: NonNullable<ChangeRequestView['schedule']> } {
  const schedule = request.schedule
  if (request.state !== 'Scheduled' || !schedule) return {}
  const reason = schedule.reason
  return {
    schedule: {
      scheduledAt: schedule.scheduledAt,
      status: schedule.status,
      ...(reason === undefined ? {} : schedule.status === 'failed' ? { reason, failureReason: reason } : { reason }),
    },
  }
}
