import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

export function createEventService({ db, reader }: { db: Kysely<Database>; reader: Kysely<Database> }) {
  return { db, reader }
}
export type EventService = ReturnType<typeof createEventService>
