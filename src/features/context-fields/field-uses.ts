/**
 * What context fields ask of the strategies that constrain on them. Strategies belong to
 * flag-environments/, above context-fields/: app.ts hands these functions over
 * (flag-environments/strategy-uses.ts), and context-fields/ never imports that folder nor names its
 * tables (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { FieldUsage, StrategyUsingField } from './context-field-store.ts'

export interface FieldUses {
  /** Per context name used (defined as a field or not): how many active flags and projects constrain on it. */
  usage(db: Kysely<Database>): Promise<Map<string, FieldUsage>>
  /** The strategies of active flags with a constraint on `name`, by flag, environment and order. */
  strategiesUsing(db: Kysely<Database>, name: string): Promise<StrategyUsingField[]>
  /** The active flags with a strategy constraint on `name`, by name, at most `limit`. */
  flagsUsing(db: Kysely<Database>, name: string, limit: number): Promise<string[]>
}
