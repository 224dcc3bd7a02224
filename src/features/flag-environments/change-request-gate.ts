/**
 * Where a direct change of a flag in an environment may be refused because the environment needs
 * change requests. The check belongs to features/change-requests (a higher floor): app.ts hands it
 * down. Every change of a flag environment takes its lock first (flag-environment.ts); the services
 * ask the gate right after it, so nothing writes around it.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { AuditContext } from '../events/audit.ts'
import type { FlagEnvironmentPlace } from './flag-environment.ts'

export interface ChangeRequestGate {
  /** Throws (403) when `place`'s environment needs change requests and `audit` may not skip them. */
  check(trx: Kysely<Database>, place: FlagEnvironmentPlace, audit: AuditContext): Promise<void>
}

/** No environment needs change requests (callers built without the feature). */
export const OPEN_GATE: ChangeRequestGate = { check: async () => {} }
