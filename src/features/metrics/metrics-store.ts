/**
 * Metrics tables (migration 0007). Writes name no other table, so they never move the change
 * watch's 'flags' or 'tokens' versions (change-watch.ts: cached flags and principals stay).
 *
 * Each write statement binds its rows as ONE JSON parameter (an array of arrays in column
 * order), read by `json_each` (SQLite) or `jsonb_array_elements` (PostgreSQL): one statement text
 * per table whatever the number of rows, so the drivers' prepared statements are reused, and a
 * flush of any size is a few statements. Counts are added to what is stored (`yes = yes +
 * excluded.yes`); rows come sorted by key, so two instances flushing at once lock in one order.
 * Before writing, a flush reads which variant names and instances are stored for its keys, and
 * adds no more than the limits allow (docs/metrics.md, "Limits"; exact on one instance, and on
 * SQLite whose writers queue; on PostgreSQL two instances flushing at once may each add up to them).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { dialectOf, type DialectName } from '../../db/dialect.ts'
import type { Database } from '../../db/tables.ts'
import { inNames, namesRelation } from '../../db/name-set.ts'
import { flagEnvironmentPairs } from '../flag-environments/strategy-uses.ts'
import type { InstanceRow, Rows, VariantRow } from './metrics-aggregate.ts'
import { applicationDetails } from './application-store.ts'

// Rows per statement: bounds the size of one parameter (a few MB at most).
// (Each INSERT … SELECT says `where true`: SQLite needs a WHERE before ON CONFLICT there.)
const CHUNK = 5_000

/** The rows of a JSON parameter as a relation with columns c0, c1, …: `kinds` says how each is cast. */
function rowsRelation(dialect: DialectName, json: string, kinds: ReadonlyArray<'text' | 'timestamp' | 'count'>): RawBuilder<unknown> {
  if (dialect === 'postgres') {
    const columns = kinds.map((kind, i) => {
      const value = sql`r.value->>${sql.lit(i)}`
      return kind === 'text'
        ? sql`${value} as ${sql.raw(`c${i}`)}`
        : sql`cast(${value} as ${sql.raw(kind === 'count' ? 'bigint' : 'timestamptz')}) as ${sql.raw(`c${i}`)}`
    })
    return sql`select ${sql.join(columns)} from jsonb_array_elements(cast(${json} as jsonb)) with ordinality as r(value, n) order by r.n`
  }
  const columns = kinds.map((_kind, i) => sql`json_extract(value, ${sql.lit(`$[${i}]`)}) as ${sql.raw(`c${i}`)}`)
  return sql`select ${sql.join(columns)} from json_each(${json})`
}

const columnsOf = (count: number) => sql.raw(Array.from({ length: count }, (_, i) => `c${i}`).join(', '))

/** What a flush may add to what is stored. */
export interface WriteLimits {
  /** Whether a variant name is the flag's own (or `disabled`): stored whatever else is. */
  ownVariant(flag: string, variant: string): boolean
  /** Other variant names stored per flag, environment and hour (across applications). */
  otherVariants: number
  instancesPerApplication: number
}

/** What a flush did not store for a limit. */
export interface Dropped {
  variants: number
  instances: number
}

const keyOf = (...parts: string[]) => parts.join('\u0000')

export function createMetricsStore(db: Kysely<Database>) {
  const dialect = dialectOf(db)
  const later = (a: string, b: string) => (dialect === 'postgres' ? sql.raw(`greatest(${a}, ${b})`) : sql.raw(`max(${a}, ${b})`))

  /**
   * The variant rows that may be stored: names stored already for their flag, environment and
   * hour (by any application), the flag's own, and others while fewer than `otherVariants` are.
   */
  async function boundVariants(rows: readonly VariantRow[], limits: WriteLimits): Promise<VariantRow[]> {
    if (rows.length === 0) return []
    const keys = new Map<string, [string, string, string]>()
    for (const [flag, , environment, hour] of rows) keys.set(keyOf(flag, environment, hour), [flag, environment, hour])
    const stored = new Map<string, Set<string>>()
    await select([...keys.values()], async (json) => {
      // A join, not IN: SQLite then looks each key up in client_metrics_env_variants_names_idx (migration 0008).
      const found = await sql<{
        feature_name: string
        environment: string
        timestamp: string
        variant: string
      }>`select distinct v.feature_name, v.environment, v."timestamp", v.variant
        from (${rowsRelation(dialect, json, ['text', 'text', 'timestamp'])}) keys
        join client_metrics_env_variants v on v.feature_name = keys.c0 and v.environment = keys.c1 and v."timestamp" = keys.c2`.execute(db)
      for (const row of found.rows) {
        const key = keyOf(row.feature_name, row.environment, String(row.timestamp))
        const names = stored.get(key) ?? new Set()
        stored.set(key, names)
        names.add(row.variant)
      }
    })
    const others = new Map<string, number>()
    return rows.filter(([flag, , environment, hour, variant]) => {
      const key = keyOf(flag, environment, hour)
      let names = stored.get(key)
      if (names === undefined) stored.set(key, (names = new Set()))
      if (names.has(variant) || limits.ownVariant(flag, variant)) return true
      const taken = others.get(key) ?? [...names].filter((name) => !limits.ownVariant(flag, name)).length
      if (taken >= limits.otherVariants) return false
      others.set(key, taken + 1)
      names.add(variant)
      return true
    })
  }

  /** The instance rows that may be stored: those stored already, and new ones while their application has fewer than `perApplication`. */
  async function boundInstances(rows: readonly InstanceRow[], perApplication: number): Promise<InstanceRow[]> {
    if (rows.length === 0) return []
    const stored = new Set<string>()
    await select(
      rows.map(([app, instanceId, environment]) => [app, instanceId, environment]),
      async (json) => {
        const found = await sql<{
          app_name: string
          instance_id: string
          environment: string
        }>`select app_name, instance_id, environment from client_instances
        where (app_name, instance_id, environment) in (select ${columnsOf(3)} from (${rowsRelation(dialect, json, ['text', 'text', 'text'])}) keys)`.execute(
          db,
        )
        for (const row of found.rows) stored.add(keyOf(row.app_name, row.instance_id, row.environment))
      },
    )
    const counts = new Map<string, number>()
    const apps = [...new Set(rows.map(([app]) => app))]
    for (let at = 0; at < apps.length; at += CHUNK) {
      const found = await db
        .selectFrom('client_instances')
        .select(['app_name', (eb) => eb.fn.countAll<number>().as('n')])
        .where(inNames(db, 'app_name', apps.slice(at, at + CHUNK)))
        .groupBy('app_name')
        .execute()
      for (const row of found) counts.set(row.app_name, Number(row.n))
    }
    return rows.filter(([app, instanceId, environment]) => {
      if (stored.has(keyOf(app, instanceId, environment))) return true
      const count = counts.get(app) ?? 0
      if (count >= perApplication) return false
      counts.set(app, count + 1)
      return true
    })
  }

  /** Runs a read for the keys, CHUNK at a time, each chunk one JSON parameter. */
  async function select<Key>(keys: readonly Key[], read: (json: string) => Promise<void>): Promise<void> {
    for (let at = 0; at < keys.length; at += CHUNK) await read(JSON.stringify(keys.slice(at, at + CHUNK)))
  }

  /** Runs `statement` for the rows, CHUNK at a time. */
  async function each<Row>(rows: readonly Row[], statement: (json: string) => RawBuilder<unknown>): Promise<void> {
    for (let at = 0; at < rows.length; at += CHUNK) await statement(JSON.stringify(rows.slice(at, at + CHUNK))).execute(db)
  }

  return {
    /** Writes a flush's rows within the limits: call it inside the flush's transaction. */
    async write(rows: Rows, limits: WriteLimits): Promise<Dropped> {
      const variants = await boundVariants(rows.variants, limits)
      const instances = await boundInstances(rows.instances, limits.instancesPerApplication)
      await each(
        rows.metrics,
        (json) => sql`insert into client_metrics_env (feature_name, app_name, environment, "timestamp", yes, "no")
        select ${columnsOf(6)} from (${rowsRelation(dialect, json, ['text', 'text', 'text', 'timestamp', 'count', 'count'])}) rows where true
        on conflict (feature_name, app_name, environment, "timestamp")
        do update set yes = client_metrics_env.yes + excluded.yes, "no" = client_metrics_env."no" + excluded."no"`,
      )
      await each(
        variants,
        (json) => sql`insert into client_metrics_env_variants (feature_name, app_name, environment, "timestamp", variant, "count")
        select ${columnsOf(6)} from (${rowsRelation(dialect, json, ['text', 'text', 'text', 'timestamp', 'text', 'count'])}) rows where true
        on conflict (feature_name, app_name, environment, "timestamp", variant)
        do update set "count" = client_metrics_env_variants."count" + excluded."count"`,
      )
      await each(
        rows.lastSeen,
        (json) => sql`insert into last_seen_at_metrics (feature_name, environment, last_seen_at)
        select ${columnsOf(3)} from (${rowsRelation(dialect, json, ['text', 'text', 'timestamp'])}) rows where true
        on conflict (feature_name, environment)
        do update set last_seen_at = ${later('last_seen_at_metrics.last_seen_at', 'excluded.last_seen_at')}`,
      )
      // token_name only when inserted: the token that first recorded the application.
      await each(
        rows.applications,
        (json) => sql`insert into client_applications (app_name, strategies, sdk_version, created_at, last_seen_at, token_name)
        select c0, c1, c2, c3, c3, c4 from (${rowsRelation(dialect, json, ['text', 'text', 'text', 'timestamp', 'text'])}) rows where true
        on conflict (app_name) do update set
          strategies = coalesce(excluded.strategies, client_applications.strategies),
          sdk_version = coalesce(excluded.sdk_version, client_applications.sdk_version),
          last_seen_at = ${later('client_applications.last_seen_at', 'excluded.last_seen_at')}`,
      )
      await each(
        rows.usage,
        (json) => sql`insert into client_applications_usage (app_name, project, environment)
        select ${columnsOf(3)} from (${rowsRelation(dialect, json, ['text', 'text', 'text'])}) rows where true
        on conflict (app_name, project, environment) do nothing`,
      )
      await each(
        instances,
        (
          json,
        ) => sql`insert into client_instances (app_name, instance_id, environment, sdk_version, client_ip, started_at, "interval", created_at, last_seen_at, sdk_type)
        select c0, c1, c2, c3, c4, c5, c6, c7, c7, c8 from (${rowsRelation(dialect, json, ['text', 'text', 'text', 'text', 'text', 'timestamp', 'count', 'timestamp', 'text'])}) rows where true
        on conflict (app_name, instance_id, environment) do update set
          sdk_version = coalesce(excluded.sdk_version, client_instances.sdk_version),
          client_ip = coalesce(excluded.client_ip, client_instances.client_ip),
          started_at = coalesce(excluded.started_at, client_instances.started_at),
          "interval" = coalesce(excluded."interval", client_instances."interval"),
          sdk_type = coalesce(excluded.sdk_type, client_instances.sdk_type),
          last_seen_at = ${later('client_instances.last_seen_at', 'excluded.last_seen_at')}`,
      )
      return { variants: rows.variants.length - variants.length, instances: rows.instances.length - instances.length }
    },

    /**
     * Forgets counts of hours that started before `before`, instances and applications not seen
     * since then (with the application's usage), and the lastSeenAt of flag environments that no longer exist (found by a read, deleted by key: the
     * delete names no flag table).
     */
    async removeExpired(before: string): Promise<void> {
      await db.deleteFrom('client_metrics_env_variants').where('timestamp', '<', before).execute()
      await db.deleteFrom('client_metrics_env').where('timestamp', '<', before).execute()
      await db.deleteFrom('client_instances').where('last_seen_at', '<', before).execute()
      await db.deleteFrom('client_applications').where('last_seen_at', '<', before).execute()
      await db
        .deleteFrom('client_applications_usage')
        .where('app_name', 'not in', (eb) => eb.selectFrom('client_applications').select('app_name'))
        .execute()
      const orphans = await db
        .selectFrom('last_seen_at_metrics as seen')
        .leftJoin(flagEnvironmentPairs(db).as('fe'), (join) =>
          join.onRef('fe.feature', '=', 'seen.feature_name').onRef('fe.environment', '=', 'seen.environment'),
        )
        .where('fe.feature', 'is', null)
        .select(['seen.feature_name', 'seen.environment'])
        .execute()
      await each(
        orphans.map((row) => [row.feature_name, row.environment]),
        (json) =>
          sql`delete from last_seen_at_metrics where (feature_name, environment) in (select c0, c1 from (${rowsRelation(dialect, json, ['text', 'text'])}) rows)`,
      )
    },

    /** Applications whose name contains `search` (any case), by name, with the projects and environments they read. */
    async applications(search: string, order: 'asc' | 'desc', page: { offset: number; limit: number }) {
      const base = () => db.selectFrom('client_applications')
      const contains = (query: ReturnType<typeof base>) =>
        search === ''
          ? query
          : query.where(sql<boolean>`${sql.raw(dialect === 'postgres' ? 'strpos' : 'instr')}(lower(app_name), lower(${search})) > 0`)
      const [{ total }] = (await contains(base())
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .execute()) as [{ total: number }]
      const rows = await contains(base())
        .select(['app_name', 'strategies', 'sdk_version', 'description', 'url', 'color', 'icon'])
        .orderBy('app_name', order)
        .limit(page.limit)
        .offset(page.offset)
        .execute()
      const usage =
        rows.length === 0
          ? []
          : await db
              .selectFrom('client_applications_usage')
              .select(['app_name', 'project', 'environment'])
              .where(
                sql<boolean>`app_name in (${namesRelation(
                  db,
                  rows.map((row) => row.app_name),
                )})`,
              )
              .orderBy('app_name')
              .orderBy('project')
              .orderBy('environment')
              .execute()
      const usageOf = new Map<string, Array<{ project: string; environments: string[] }>>()
      for (const row of usage) {
        const projects = usageOf.get(row.app_name) ?? []
        usageOf.set(row.app_name, projects)
        const last = projects.at(-1)
        if (last?.project === row.project) last.environments.push(row.environment)
        else projects.push({ project: row.project, environments: [row.environment] })
      }
      return {
        total: Number(total),
        applications: rows.map((row) => ({
          appName: row.app_name,
          ...(row.sdk_version === null ? {} : { sdkVersion: row.sdk_version }),
          strategies: row.strategies === null ? [] : (JSON.parse(row.strategies) as string[]),
          ...applicationDetails(row),
          usage: usageOf.get(row.app_name) ?? [],
        })),
      }
    },

    /** A flag's counts per environment in hours that started at or after `since`, and the applications that reported it from `appsSince`. */
    async featureUsage(featureName: string, since: string, appsSince: string) {
      const [counts, variants, applications] = await Promise.all([
        db
          .selectFrom('client_metrics_env')
          .where('feature_name', '=', featureName)
          .where('timestamp', '>=', since)
          .groupBy('environment')
          .select([
            'environment',
            (eb) => eb.fn.min('timestamp').as('timestamp'),
            sql<number>`cast(sum(yes) as bigint)`.as('yes'),
            sql<number>`cast(sum("no") as bigint)`.as('no'),
          ])
          .orderBy('environment')
          .execute(),
        db
          .selectFrom('client_metrics_env_variants')
          .where('feature_name', '=', featureName)
          .where('timestamp', '>=', since)
          .groupBy(['environment', 'variant'])
          .select(['environment', 'variant', sql<number>`cast(sum("count") as bigint)`.as('count')])
          .orderBy('environment')
          .orderBy('variant')
          .execute(),
        db
          .selectFrom('client_metrics_env')
          .where('feature_name', '=', featureName)
          .where('timestamp', '>=', appsSince)
          .select('app_name')
          .distinct()
          .orderBy('app_name')
          .execute(),
      ])
      const variantsOf = new Map<string, Record<string, number>>()
      for (const row of variants) {
        const record = variantsOf.get(row.environment) ?? {}
        record[row.variant] = Number(row.count)
        variantsOf.set(row.environment, record)
      }
      return {
        lastHourUsage: counts.map((row) => ({
          environment: row.environment,
          timestamp: String(row.timestamp),
          yes: Number(row.yes),
          no: Number(row.no),
          variants: variantsOf.get(row.environment) ?? {},
        })),
        seenApplications: applications.map((row) => row.app_name),
      }
    },
  }
}

export type MetricsStore = ReturnType<typeof createMetricsStore>
