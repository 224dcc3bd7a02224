/**
 * Where a direct change of a flag as a whole (archiving it, its dependencies) may be refused
 * because its project needs change requests in some environment, as the reference refuses them.
 * The check belongs to features/change-requests (a higher floor): app.ts hands it down. The
 * services ask it inside their transactions, before they change anything.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { AuditContext } from '../events/audit.ts'

export interface ProjectChangeRequestGate {
  /** Throws (403) when an environment of `project` needs change requests and `audit` may not skip them. */
  checkProject(trx: Kysely<Database>, project: string, audit: AuditContext): Promise<void>
}
