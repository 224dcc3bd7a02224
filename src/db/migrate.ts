import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import * as initialSchema from './migrations/0001-initial-schema.ts'
import { dialectOf } from './dialect.ts'
import type { Database } from './tables.ts'

/** Static list: migrations are part of the code, not discovered from the file system. */
const migrations: Record<string, Migration> = {
  '0001-initial-schema': initialSchema,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

// Any constant works; it only has to be the same for every Pennon instance.
const MIGRATION_LOCK_KEY = 727_001

/**
 * Brings the schema up to date, then runs `afterMigrate` (start-up work such as the
 * bootstrap token) under the same lock. On PostgreSQL an advisory lock held on its own
 * connection makes a second instance starting at the same moment wait, then find
 * everything applied.
 */
export async function migrateToLatest(db: Kysely<Database>, afterMigrate?: () => Promise<void>): Promise<void> {
  const run = async () => {
    const { error } = await new Migrator({ db, provider }).migrateToLatest()
    if (error) throw error
    await afterMigrate?.()
  }
  if (dialectOf(db) !== 'postgres') return run()

  await db.connection().execute(async (lockConnection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(lockConnection)
    try {
      await run()
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(lockConnection)
    }
  })
}
