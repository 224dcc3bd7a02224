/**
 * What users ask of their personal tokens. The tokens belong to personal-tokens/, above users/:
 * app.ts hands this over (personal-tokens/pat-store.ts), and users/ never imports that folder nor
 * names its table (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export interface PatsOfUsers {
  /** When each user's personal tokens were last used (the latest of them), by user id; users whose tokens never were are absent. */
  lastSeen(db: Kysely<Database>): Promise<Map<number, string>>
}
