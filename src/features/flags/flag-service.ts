import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export function createFlagService({ db }: { db: Kysely<Database> }) {
  return { db }
}
export type FlagService = ReturnType<typeof createFlagService>
