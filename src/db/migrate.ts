import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import * as initialSchema from './migrations/0001-initial-schema.ts'
import * as changeNotify from './migrations/0002-change-notify.ts'
import * as flagChangeNotify from './migrations/0003-flag-change-notify.ts'
import * as partialIndexes from './migrations/0004-partial-indexes.ts'
import * as environmentsStrategies from './migrations/0005-environments-strategies.ts'
import * as strategyDefinitions from './migrations/0006-strategy-definitions.ts'
import * as clientMetrics from './migrations/0007-client-metrics.ts'
import * as clientMetricsLimits from './migrations/0008-client-metrics-limits.ts'
import * as featureTypes from './migrations/0009-feature-types.ts'
import * as tags from './migrations/0010-tags.ts'
import * as contextFields from './migrations/0011-context-fields.ts'
import * as usageReads from './migrations/0012-usage-reads.ts'
import * as users from './migrations/0013-users.ts'
import * as sessionEndsNotify from './migrations/0014-session-ends-notify.ts'
import * as eventSequence from './migrations/0015-event-sequence.ts'
import * as addons from './migrations/0016-addons.ts'
import * as potentiallyStale from './migrations/0017-potentially-stale.ts'
import * as featureLinks from './migrations/0018-feature-links.ts'
import * as settings from './migrations/0019-settings.ts'
import * as eventSearchIndexes from './migrations/0020-event-search-indexes.ts'
import * as featureSearchIndex from './migrations/0021-feature-search-index.ts'
import * as featureLifecycles from './migrations/0022-feature-lifecycles.ts'
import * as favorites from './migrations/0023-favorites.ts'
import * as projectInsights from './migrations/0024-project-insights.ts'
import * as applicationDetails from './migrations/0025-application-details.ts'
import * as publicSignupTokens from './migrations/0026-public-signup-tokens.ts'
import * as notifyAfterCommit from './migrations/0027-notify-after-commit.ts'
import * as changeRequests from './migrations/0028-change-requests.ts'
import * as changeRequestSchedules from './migrations/0029-change-request-schedules.ts'
import * as changeRequestSearch from './migrations/0030-change-request-search.ts'
import * as oidc from './migrations/0031-oidc.ts'
import * as segmentChanges from './migrations/0034-segment-changes.ts'
import * as dropSegmentReservation from './migrations/0035-drop-segment-reservation.ts'
import * as applicationDescription from './migrations/0036-application-description.ts'
import { dialectOf } from './dialect.ts'
import type { Database } from './tables.ts'

/** Static list: migrations are part of the code, not discovered from the file system. */
const migrations: Record<string, Migration> = {
  '0001-initial-schema': initialSchema,
  '0002-change-notify': changeNotify,
  '0003-flag-change-notify': flagChangeNotify,
  '0004-partial-indexes': partialIndexes,
  '0005-environments-strategies': environmentsStrategies,
  '0006-strategy-definitions': strategyDefinitions,
  '0007-client-metrics': clientMetrics,
  '0008-client-metrics-limits': clientMetricsLimits,
  '0009-feature-types': featureTypes,
  '0010-tags': tags,
  '0011-context-fields': contextFields,
  '0012-usage-reads': usageReads,
  '0013-users': users,
  '0014-session-ends-notify': sessionEndsNotify,
  '0015-event-sequence': eventSequence,
  '0016-addons': addons,
  '0017-potentially-stale': potentiallyStale,
  '0018-feature-links': featureLinks,
  '0019-settings': settings,
  '0020-event-search-indexes': eventSearchIndexes,
  '0021-feature-search-index': featureSearchIndex,
  '0022-feature-lifecycles': featureLifecycles,
  '0023-favorites': favorites,
  '0024-project-insights': projectInsights,
  '0025-application-details': applicationDetails,
  '0026-public-signup-tokens': publicSignupTokens,
  '0027-notify-after-commit': notifyAfterCommit,
  '0028-change-requests': changeRequests,
  '0029-change-request-schedules': changeRequestSchedules,
  '0030-change-request-search': changeRequestSearch,
  '0031-oidc': oidc,
  '0034-segment-changes': segmentChanges,
  '0035-drop-segment-reservation': dropSegmentReservation,
  '0036-application-description': applicationDescription,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

// Any constant works; it only has to be the same for every Pennon instance.
export const MIGRATION_LOCK_KEY = 727_001

/**
 * Brings the schema up to date, then runs `afterMigrate` (start-up work such as the
 * bootstrap token). Safe when two instances start at once on one database:
 * on PostgreSQL an advisory lock held on its own connection makes the second wait,
 * then find everything applied; on SQLite (where Kysely runs migrations outside a
 * transaction) the whole migration runs in one `BEGIN IMMEDIATE` transaction.
 */
export async function migrateToLatest(db: Kysely<Database>, afterMigrate?: () => Promise<void>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await db.connection().execute(async (lockConnection) => {
      await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(lockConnection)
      try {
        await migrate(db)
        await afterMigrate?.()
      } finally {
        await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(lockConnection)
      }
    })
    return
  }
  await db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection)
    try {
      await migrate(connection)
      await sql`commit`.execute(connection)
    } catch (error) {
      await sql`rollback`.execute(connection)
      throw error
    }
  })
  // Outside the migration's transaction: SQLite has one writer connection, and this opens its own.
  await afterMigrate?.()
}

// Migration names are ASCII ("0001-…"): ordered by code unit, not by Kysely's default localeCompare,
// which loads ICU's collation data (about 3 MB resident) for the life of the process.
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

async function migrate(db: Kysely<Database>): Promise<void> {
  const { error } = await new Migrator({ db, provider, nameComparator: byCodeUnit, ...(await migrationTableSchema(db)) }).migrateToLatest()
  if (error) throw error
}

/**
 * Without a schema, Kysely takes its bookkeeping tables found in ANY schema of the
 * database for its own, then fails to query them through the search path. Naming the
 * current schema keeps two instances (or test files) in two schemas of one database apart.
 */
async function migrationTableSchema(db: Kysely<Database>): Promise<{ migrationTableSchema?: string }> {
  if (dialectOf(db) !== 'postgres') return {}
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  return rows[0] ? { migrationTableSchema: rows[0].schema } : {}
}
