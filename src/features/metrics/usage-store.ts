/** Reads of stored usage: a flag's hourly counts per environment and application. */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { lastEventAtOfFlags } from '../events/event-store.ts'
import { allFlagNames } from '../flags/flag-store.ts'

export interface HourCounts {
  appName: string
  environment: string
  timestamp: string
  yes: number
  no: number
  variants: Record<string, number>
}

export function createUsageStore(db: Kysely<Database>) {
  return {
    /** The flag's stored hours that started at or after `since`: both reads go by the tables' keys (feature_name first). */
    async hourly(featureName: string, since: string): Promise<HourCounts[]> {
      const [counts, variants] = await Promise.all([
        db
          .selectFrom('client_metrics_env')
          .select(['app_name', 'environment', 'timestamp', 'yes', 'no'])
          .where('feature_name', '=', featureName)
          .where('timestamp', '>=', since)
          .execute(),
        db
          .selectFrom('client_metrics_env_variants')
          .select(['app_name', 'environment', 'timestamp', 'variant', 'count'])
          .where('feature_name', '=', featureName)
          .where('timestamp', '>=', since)
          .orderBy('variant')
          .execute(),
      ])
      const key = (row: { app_name: string; environment: string; timestamp: string }) =>
        `${row.app_name}\u0000${row.environment}\u0000${Date.parse(row.timestamp)}`
      const variantsOf = new Map<string, Record<string, number>>()
      for (const row of variants) {
        const record = variantsOf.get(key(row)) ?? {}
        record[row.variant] = Number(row.count)
        variantsOf.set(key(row), record)
      }
      return counts.map((row) => ({
        appName: row.app_name,
        environment: row.environment,
        timestamp: new Date(row.timestamp).toISOString(),
        yes: Number(row.yes),
        no: Number(row.no),
        variants: variantsOf.get(key(row)) ?? {},
      }))
    },

    /** Unknown-flag reports since `since` of names that are no flags (at most UNKNOWN_FLAGS_MAX rows are stored), by name, application, environment. */
    async unknownFlags(since: string) {
      return db
        .selectFrom('unknown_flags as u')
        .select(['u.name', 'u.app_name', 'u.environment', 'u.last_seen_at'])
        .where('u.last_seen_at', '>=', since)
        .where('u.name', 'not in', allFlagNames(db))
        .orderBy('u.name')
        .orderBy('u.app_name')
        .orderBy('u.environment')
        .execute()
    },

    /** The time of the last event about each of these names (a flag since deleted): its highest id, by the events' (feature_name, id) index. */
    async lastEventAt(names: readonly string[]): Promise<Map<string, string>> {
      if (names.length === 0) return new Map()
      return lastEventAtOfFlags(db, names)
    },
  }
}
