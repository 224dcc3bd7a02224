import { randomUUID } from 'node:crypto'

/** Who did something: written on every event as createdBy / createdByUserId. */
export interface Actor {
  readonly name: string
  readonly userId: number
  /** A principal's permissions (http/permissions.ts), when the actor is one. */
  readonly permissions?: ReadonlySet<string>
}

export const SYSTEM_ACTOR: Actor = Object.freeze({ name: 'system', userId: -1337 })

/** What the events of one change share: the actor, one group and one timestamp. */
export interface AuditContext {
  readonly createdBy: string
  readonly createdByUserId: number
  readonly createdAt: string
  readonly groupType: 'transaction' | 'system'
  readonly groupId: string
  /**
   * Whether the change may be made directly in an environment where changes need a change request
   * (docs/change-requests.md): the actor holds SKIP_CHANGE_REQUEST (an Admin does), or the change
   * is an approved request being applied. Never written to events.
   */
  readonly skipsChangeRequests?: boolean
}

/** One per use case (one per request): its events share the groupId and the createdAt. */
export function auditContext(actor: Actor, groupType: AuditContext['groupType'] = 'transaction'): AuditContext {
  return {
    createdBy: actor.name,
    createdByUserId: actor.userId,
    createdAt: new Date().toISOString(),
    groupType,
    groupId: randomUUID(),
    skipsChangeRequests: actor.permissions?.has('ADMIN') === true || actor.permissions?.has('SKIP_CHANGE_REQUEST') === true,
  }
}
