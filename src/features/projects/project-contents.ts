/**
 * What projects ask of the features that live in a project. Their tables belong to folders above
 * projects/ (flags, segments, context-fields, environments): app.ts assembles these functions from
 * those folders' stores, and projects/ never imports them nor names their tables
 * (test/table-owners.unit.test.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { Principal } from '../../http/permissions.ts'

export interface ProjectContents {
  /** Inside a project's creation: it joins every enabled environment. */
  joinEnabledEnvironments(trx: Kysely<Database>, project: string): Promise<void>
  /** Whether the project holds a flag (`archived`: an archived one, else an active one); one bounded read. */
  holdsFlag(db: Kysely<Database>, project: string, archived: boolean): Promise<boolean>
  /** Whether the project has a segment of its own; one bounded read. */
  holdsSegment(db: Kysely<Database>, project: string): Promise<boolean>
  /** Whether the project has a context field of its own; one bounded read. */
  holdsContextField(db: Kysely<Database>, project: string): Promise<boolean>
  /** The caller's favorite projects (favorites/): the projects list marks them. */
  favoritesOf(db: Kysely<Database>, caller: Principal): Promise<Set<string>>
}
