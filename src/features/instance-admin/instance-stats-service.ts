/**
 * The instance statistics (the reference's instanceAdminStatsSchema, with the fields its route
 * sends beyond that schema), in the reference's key order, and their CSV. Computed on each request.
 * What Pennon has not (groups, custom roles, SAML, SCIM, release plans, Edge usage) is 0, false or empty.
 */
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { ROOT_ROLES } from '../../http/permissions.ts'
import { createInstanceStatsStore } from './instance-stats-store.ts'
import { pennonVersion } from './version.ts'

export function createInstanceStatsService({
  db,
  signInWays,
  now = Date.now,
}: {
  db: Kysely<Database>
  /** Which ways in are open now: password sign-in, single sign-on with OpenID Connect (sso/). */
  signInWays: () => Promise<{ password: boolean; oidc: boolean }>
  now?: () => number
}) {
  async function statistics() {
    const store = createInstanceStatsStore(db)
    const at = now()
    const [
      instanceId,
      users,
      serviceAccounts,
      apiTokens,
      activeUsers,
      licensedUsers,
      flags,
      projects,
      contextFields,
      environments,
      segments,
      strategies,
      allTime,
      last30d,
      last7d,
      featureExports,
      featureImports,
      productionChanges,
      previousDayMetricsBucketsCount,
      largest,
      ways,
    ] = await Promise.all([
      store.instanceId(),
      store.count('users'),
      store.count('service_accounts'),
      store.tokensByType(),
      store.activeUsers(at),
      store.usersWithEmail(),
      store.flags(),
      store.count('projects'),
      store.count('context_fields'),
      store.count('environments'),
      store.count('segments'),
      store.count('strategy_definitions'),
      store.applications(at),
      store.applications(at, 30),
      store.applications(at, 7),
      store.eventsOfType('features-exported'),
      store.eventsOfType('features-imported'),
      store.productionChanges(at),
      store.previousDayBuckets(at),
      store.largest(),
      signInWays(),
    ])
    const roles = Object.keys(ROOT_ROLES).length
    const groups = 0
    // The reference's checksum over the same figures, so a report can be checked for edits.
    const sum = createHash('sha256')
      .update(`${instanceId}${users}${flags.active}${projects}${roles}${groups}${environments}${segments}`)
      .digest('hex')
    return {
      timestamp: new Date(at).toISOString(),
      instanceId,
      versionOSS: pennonVersion(),
      versionEnterprise: '',
      users,
      serviceAccounts,
      apiTokens,
      activeUsers,
      licensedUsers,
      featureToggles: flags.active,
      archivedFeatureToggles: flags.archived,
      projects,
      contextFields,
      roles,
      customRootRoles: 0,
      customRootRolesInUse: 0,
      groups,
      environments,
      segments,
      strategies,
      SAMLenabled: false,
      OIDCenabled: ways.oidc,
      passwordAuthEnabled: ways.password,
      SCIMenabled: false,
      clientApps: [
        { range: '7d' as const, count: last7d },
        { range: '30d' as const, count: last30d },
        { range: 'allTime' as const, count: allTime },
      ],
      featureExports,
      featureImports,
      productionChanges,
      previousDayMetricsBucketsCount,
      maxEnvironmentStrategies: largest.maxEnvironmentStrategies,
      maxConstraintValues: largest.maxConstraintValues,
      maxConstraints: largest.maxConstraints,
      releaseTemplates: 0,
      releasePlans: 0,
      edgeInstanceUsage: {} as Record<string, number>,
      readOnlyUsers: 0,
      sum,
    }
  }

  return {
    statistics,

    /** The same figures as one CSV row under a header (the reference's json2csv rendering), and a file name for them. */
    async csv(): Promise<{ text: string; fileName: string }> {
      const stats = await statistics()
      return { text: toCsv(stats), fileName: `pennon-${stats.instanceId}-${now()}.csv` }
    },
  }
}

/** A CSV cell as json2csv writes one: strings quoted (quotes doubled), objects as quoted JSON, numbers and booleans bare. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return `"${text.replaceAll('"', '""')}"`
}

export function toCsv(row: Record<string, unknown>): string {
  const keys = Object.keys(row)
  return `${keys.map((key) => cell(key)).join(',')}\n${keys.map((key) => cell(row[key])).join(',')}`
}

export type InstanceStatsService = ReturnType<typeof createInstanceStatsService>
