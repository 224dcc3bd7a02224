/** The admin API's reads of what SDKs reported (written by metrics-ingestion-service.ts). */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { parsePaging } from '../../http/paging.ts'
import type { ApplicationsQuery } from './metrics-schemas.ts'
import { createMetricsStore } from './metrics-store.ts'

const HOUR_MS = 3_600_000
const iso = (ms: number) => new Date(ms).toISOString()

export function createMetricsReadService({ db, now = Date.now }: { db: Kysely<Database>; now?: () => number }) {
  const store = () => createMetricsStore(db)
  return {
    /** GET /api/admin/metrics/applications */
    async applications(query: ApplicationsQuery) {
      const page = parsePaging(query, { defaultLimit: 1000, maxLimit: 1000, overMax: 'clamp' })
      return store().applications(query.query ?? '', query.sortOrder === 'desc' ? 'desc' : 'asc', page)
    },

    /** GET /api/admin/client-metrics/features/:name: the last hour's counts per environment and the applications of the last day. */
    async featureUsage(featureName: string) {
      const at = now()
      const { lastHourUsage, seenApplications } = await store().featureUsage(featureName, iso(at - HOUR_MS), iso(at - 24 * HOUR_MS))
      return { version: 1 as const, maturity: 'stable' as const, featureName, lastHourUsage, seenApplications }
    },
  }
}

export type MetricsReadService = ReturnType<typeof createMetricsReadService>
