/**
 * What strategy types ask of the strategies of that type. Strategies belong to flag-environments/,
 * above strategy-definitions/: app.ts hands this over (flag-environments/strategy-uses.ts), and
 * strategy-definitions/ never imports that folder nor names its tables (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export interface DefinitionUses {
  /** The flags (archived ones too) with a strategy of this name, by name, at most `limit`. */
  flagsUsing(db: Kysely<Database>, name: string, limit: number): Promise<string[]>
}
