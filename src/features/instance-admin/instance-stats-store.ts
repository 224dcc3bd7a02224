/**
 * The counts of the instance statistics (GET /instance-admin/statistics): a read model over
 * most features' tables (test/table-owners.unit.test.ts, READ_MODELS). Each is a count over a
 * whole table, as the reference's, or a range of an index: events by events_type_id_idx and
 * events_environment_id_idx, client_instances by client_instances_sdk_idx' table scan (bounded
 * per application), metrics hours by their timestamp.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

/** The setting the reference keeps its instance id in (`{"id": "<uuid>"}`), stored by migration 0025. */
export const INSTANCE_INFO_SETTING = 'instanceInfo'

const DAY_MS = 86_400_000

type CountedTable = 'users' | 'service_accounts' | 'projects' | 'context_fields' | 'environments' | 'segments' | 'strategy_definitions'

export function createInstanceStatsStore(db: Kysely<Database>) {
  const count = async (table: CountedTable): Promise<number> =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  return {
    count,

    async instanceId(): Promise<string> {
      const row = await db.selectFrom('settings').select('content').where('name', '=', INSTANCE_INFO_SETTING).executeTakeFirst()
      try {
        const id = row === undefined ? undefined : (JSON.parse(row.content) as { id?: unknown }).id
        return typeof id === 'string' ? id : ''
      } catch {
        return ''
      }
    },

    async flags(): Promise<{ active: number; archived: number }> {
      const rows = await db
        .selectFrom('features')
        .select([sql<number>`count(*) - count(archived_at)`.as('active'), (eb) => eb.fn.count<number>('archived_at').as('archived')])
        .executeTakeFirstOrThrow()
      return { active: Number(rows.active), archived: Number(rows.archived) }
    },

    /** People with an email (the reference's licensed users: distinct emails of users not deleted). */
    async usersWithEmail(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.count<number>('email').distinct().as('n'))
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    async tokensByType(): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('api_tokens')
        .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('type')
        .orderBy('type')
        .execute()
      return Object.fromEntries(rows.map((row) => [row.type, Number(row.n)]))
    },

    /** People who signed in, or used a personal token, in each of the last 7, 30, 60 and 90 days. */
    async activeUsers(now: number): Promise<{ last7: number; last30: number; last60: number; last90: number }> {
      const since = (days: number) => new Date(now - days * DAY_MS).toISOString()
      const seen = await db
        .selectFrom('user_activity')
        .select(['user_id', 'seen_at'])
        .where('seen_at', '>', since(90))
        .unionAll(db.selectFrom('personal_access_tokens').select(['user_id', 'seen_at']).where('seen_at', '>', since(90)))
        .execute()
      const within = (days: number) =>
        new Set(
          seen.filter((row) => row.seen_at !== null && new Date(row.seen_at).getTime() > now - days * DAY_MS).map((row) => row.user_id),
        ).size
      return { last7: within(7), last30: within(30), last60: within(60), last90: within(90) }
    },

    /** Events in production-type environments in each of the last 30, 60 and 90 days. */
    async productionChanges(now: number): Promise<{ last30: number; last60: number; last90: number }> {
      const since = (days: number) => new Date(now - days * DAY_MS).toISOString()
      const rows = await db
        .selectFrom('events')
        .select('created_at')
        .where('environment', 'in', db.selectFrom('environments').select('name').where('type', '=', 'production'))
        .where('created_at', '>', since(90))
        .execute()
      const within = (days: number) => rows.filter((row) => new Date(row.created_at).getTime() > now - days * DAY_MS).length
      return { last30: within(30), last60: within(60), last90: within(90) }
    },

    async eventsOfType(type: string): Promise<number> {
      const row = await db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('type', '=', type)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    /** Applications with an instance seen within `days` (all: any stored). */
    async applications(now: number, days?: number): Promise<number> {
      let query = db.selectFrom('client_instances').select((eb) => eb.fn.count<number>('app_name').distinct().as('n'))
      if (days !== undefined) query = query.where('last_seen_at', '>=', new Date(now - days * DAY_MS).toISOString())
      return Number((await query.executeTakeFirstOrThrow()).n)
    },

    /** Hourly count rows of yesterday (UTC), as the reference's previousDayMetricsBucketsCount. */
    async previousDayBuckets(now: number): Promise<{ enabledCount: number; variantCount: number }> {
      const today = new Date(now)
      today.setUTCHours(0, 0, 0, 0)
      const [from, to] = [new Date(today.getTime() - DAY_MS).toISOString(), today.toISOString()]
      const [enabled, variants] = await Promise.all([
        db
          .selectFrom('client_metrics_env')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('timestamp', '>=', from)
          .where('timestamp', '<', to)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('client_metrics_env_variants')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('timestamp', '>=', from)
          .where('timestamp', '<', to)
          .executeTakeFirstOrThrow(),
      ])
      return { enabledCount: Number(enabled.n), variantCount: Number(variants.n) }
    },

    /** The most strategies of one flag environment, constraints of one strategy, values of one constraint (flags not archived). */
    async largest(): Promise<{ maxEnvironmentStrategies: number; maxConstraints: number; maxConstraintValues: number }> {
      const perEnvironment = await db
        .selectFrom('feature_strategies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('feature_name', 'in', db.selectFrom('features').select('name').where('archived_at', 'is', null))
        .groupBy(['feature_name', 'environment'])
        .orderBy('n', 'desc')
        .limit(1)
        .executeTakeFirst()
      const constraints = await db
        .selectFrom('feature_strategies')
        .select('constraints')
        .where('constraints', '!=', '[]')
        .where('feature_name', 'in', db.selectFrom('features').select('name').where('archived_at', 'is', null))
        .execute()
      let maxConstraints = 0
      let maxConstraintValues = 0
      for (const row of constraints) {
        const list = JSON.parse(row.constraints) as Array<{ values?: unknown[] }>
        maxConstraints = Math.max(maxConstraints, list.length)
        for (const constraint of list) maxConstraintValues = Math.max(maxConstraintValues, constraint.values?.length ?? 0)
      }
      return { maxEnvironmentStrategies: Number(perEnvironment?.n ?? 0), maxConstraints, maxConstraintValues }
    },
  }
}
