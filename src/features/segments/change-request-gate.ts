/**
 * Where a direct change of a project's segment may be refused because its project needs change
 * requests, as the reference refuses it. The check belongs to features/change-requests (a higher
 * floor): app.ts hands it down. The service asks it inside its transaction, before it writes.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { AuditContext } from '../events/audit.ts'

export interface SegmentChangeRequestGate {
  /** Throws (403) when an environment of `project` needs change requests and `audit` may not skip them. */
  checkSegmentProject(trx: Kysely<Database>, project: string, audit: AuditContext): Promise<void>
}

/** No project needs change requests (callers built without the feature). */
export const OPEN_SEGMENT_GATE: SegmentChangeRequestGate = { checkSegmentProject: async () => {} }
