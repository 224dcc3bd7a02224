/**
 * What environments ask of the flags in them. A flag's state in an environment belongs to
 * flag-environments/, above environments/: app.ts hands these functions over
 * (flag-environments/flags-of-environments.ts), and environments/ never imports that folder nor
 * names its tables (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export interface FlagsOfEnvironments {
  /** Per environment: its enabled active flags (`project`: of that project only). */
  enabledCounts(db: Kysely<Database>, project?: string): Promise<Map<string, number>>
  /** Inside the addition of an environment to a project: each of the project's flags gets its row there, off. */
  addToProject(trx: Kysely<Database>, project: string, environment: string): Promise<void>
  /** Inside its removal: the project's flags' rows there go, with their strategies. */
  removeFromProject(trx: Kysely<Database>, project: string, environment: string): Promise<void>
}
