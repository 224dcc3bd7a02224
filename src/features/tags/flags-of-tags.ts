/**
 * What tags ask of the flags they tag. Flags belong to flags/, above tags/: app.ts hands this over
 * (flags/flags-of-tags.ts), and tags/ never imports that folder nor names its table
 * (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export interface FlagsOfTags {
  /**
   * The named flags that exist (active or archived), by name. `hold`: on PostgreSQL they are
   * locked (FOR NO KEY UPDATE, in name order) until the transaction ends, so changes of the same
   * flags' tags queue instead of deadlocking, and none of them is archived or deleted meanwhile;
   * their strategies and switches (other tables) are not held up.
   */
  find(db: Kysely<Database>, names: readonly string[], options?: { hold?: boolean }): Promise<Array<{ feature: string; project: string }>>
}
