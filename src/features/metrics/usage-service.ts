/**
 * Reads of what SDKs reported, beyond the last hour: a flag's hourly counts (and, with
 * unknown-flags.ts, the names SDKs asked for that are no flags).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid, quote } from '../../http/errors.ts'
import { hourOf } from './metrics-aggregate.ts'
import { UNKNOWN_FLAGS_HOURS } from './unknown-flags.ts'
import { HOURS_BACK_DEFAULT, HOURS_BACK_MAX, type RawFeatureMetricsResponse, type UnknownFlagsResponse } from './usage-schemas.ts'
import { createUsageStore } from './usage-store.ts'

const HOUR_MS = 3_600_000
/** Applications shown in a flag's hourly counts, as the reference (the first by name). */
export const RAW_APPLICATIONS = 100

/** `hoursBack` as a number: a whole number from 1 to 48, else a 400 (the reference falls back to its default instead). */
export function hoursBackOf(value: string | undefined): number {
  if (value === undefined) return HOURS_BACK_DEFAULT
  const hours = /^[0-9]{1,3}$/.test(value) ? Number(value) : Number.NaN
  if (!(hours >= 1 && hours <= HOURS_BACK_MAX)) {
    throw invalid(
      `The \`/query/hoursBack\` parameter must be a whole number from 1 to ${HOURS_BACK_MAX}. You sent ${quote(value)}.`,
      '/query/hoursBack',
    )
  }
  return hours
}

export function createUsageService({ db, now = Date.now }: { db: Kysely<Database>; now?: () => number }) {
  return {
    /**
     * GET /api/admin/client-metrics/features/:name/raw: for each environment and application that
     * reported the flag in those hours, one entry per hour (the current one and `hoursBack - 1`
     * before it), zeros where nothing was counted, ordered by hour, environment, application.
     */
    async rawFeatureMetrics(featureName: string, hoursBackParam: string | undefined): Promise<RawFeatureMetricsResponse> {
      const hoursBack = hoursBackOf(hoursBackParam)
      const current = Date.parse(hourOf(now()))
      const hours = Array.from({ length: hoursBack }, (_, i) => new Date(current - (hoursBack - 1 - i) * HOUR_MS).toISOString())
      const stored = await createUsageStore(db).hourly(featureName, hours[0]!)
      const byKey = new Map(stored.map((row) => [`${row.timestamp}\u0000${row.environment}\u0000${row.appName}`, row]))
      const environments = [...new Set(stored.map((row) => row.environment))].sort()
      const applications = [...new Set(stored.map((row) => row.appName))].sort().slice(0, RAW_APPLICATIONS)
      const data: RawFeatureMetricsResponse['data'] = []
      for (const timestamp of hours) {
        for (const environment of environments) {
          for (const appName of applications) {
            const row = byKey.get(`${timestamp}\u0000${environment}\u0000${appName}`)
            data.push(
              row === undefined
                ? { featureName, appName, environment, timestamp, yes: 0, no: 0 }
                : { featureName, appName, environment, timestamp, yes: row.yes, no: row.no, variants: row.variants },
            )
          }
        }
      }
      return { version: 1, maturity: 'stable', data }
    },

    /**
     * GET /api/admin/metrics/unknown-flags: names reported in the last 24 hours that are no flags
     * (now), by name; per application and environment, when last reported.
     */
    async unknownFlags(): Promise<UnknownFlagsResponse> {
      const store = createUsageStore(db)
      const rows = await store.unknownFlags(new Date(now() - UNKNOWN_FLAGS_HOURS * HOUR_MS).toISOString())
      const byName = new Map<string, UnknownFlagsResponse['unknownFlags'][number]>()
      for (const row of rows) {
        const seenAt = new Date(row.last_seen_at).toISOString()
        let flag = byName.get(row.name)
        if (flag === undefined) byName.set(row.name, (flag = { name: row.name, lastSeenAt: seenAt, lastEventAt: null, reports: [] }))
        if (seenAt > flag.lastSeenAt) flag.lastSeenAt = seenAt
        let report = flag.reports.at(-1)
        if (report?.appName !== row.app_name) flag.reports.push((report = { appName: row.app_name, environments: [] }))
        report.environments.push({ environment: row.environment, seenAt })
      }
      const events = await store.lastEventAt([...byName.keys()])
      for (const flag of byName.values()) flag.lastEventAt = events.get(flag.name) ?? null
      return { unknownFlags: [...byName.values()] }
    },
  }
}

export type UsageService = ReturnType<typeof createUsageService>
