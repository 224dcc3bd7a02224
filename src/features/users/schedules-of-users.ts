/**
 * What users ask of the change requests they scheduled. Those belong to change-requests/, above
 * users/: app.ts (and the admin-user CLI) hand this over (change-requests/suspend-schedules.ts),
 * and users/ never imports that folder nor names its tables (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { rolePermissions } from '../../http/permissions.ts'
import type { AuditContext } from '../events/audit.ts'

/** Why a user's schedules are suspended: the user is deleted, or their new root role may not apply change requests. */
export type SuspensionCause = 'deleted' | 'may-not-apply'

export interface SchedulesOfUsers {
  /**
   * Inside a user's deletion, or a role change that takes away APPLY_CHANGE_REQUEST: the
   * schedules the user made that are still pending are suspended, each with its event.
   */
  suspend(trx: Kysely<Database>, userId: number, cause: SuspensionCause, audit: AuditContext): Promise<void>
}

/** Whether a root role may apply change requests (and so keep its schedules). */
export function mayApplyChangeRequests(rootRole: number): boolean {
  const permissions = rolePermissions(rootRole)
  return permissions.has('ADMIN') || permissions.has('APPLY_CHANGE_REQUEST')
}
