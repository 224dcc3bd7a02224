import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/tables.ts'

export function createSegmentService({ db, config }: { db: Kysely<Database>; config: Config }) {
  return { db, config }
}
export type SegmentService = ReturnType<typeof createSegmentService>
