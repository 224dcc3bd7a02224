/**
 * What users ask of their sessions. Sessions belong to sessions/, above users/: app.ts (and the
 * admin-user CLI) hand this over (sessions/session-store.ts), and users/ never imports that folder
 * nor names its table (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export interface SessionsOfUsers {
  /** Inside a password or role change: every session of the user ends (but the one whose hash is `keepSessionHash`). */
  endAll(trx: Kysely<Database>, userId: number, keepSessionHash?: string): Promise<void>
}
