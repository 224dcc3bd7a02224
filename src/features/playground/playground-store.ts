/** What the playground asks of the database itself: which of the environments and projects named exist (their owners' stores). */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { createEnvironmentStore } from '../environments/environment-store.ts'
import { createProjectStore } from '../projects/project-store.ts'

export const existingEnvironments = (db: Kysely<Database>, names: readonly string[]): Promise<Set<string>> =>
  createEnvironmentStore(db).existing(names)

export const existingProjects = (db: Kysely<Database>, ids: readonly string[]): Promise<Set<string>> => createProjectStore(db).existing(ids)
