/**
 * Reads of what SDKs recorded about applications (metrics tables, migrations 0007, 0008, 0012),
 * for applications/ (above this folder, which owns the tables: test/table-owners.unit.test.ts).
 * Each goes by an index: client_applications and client_instances by their keys (app_name
 * first), the counts by client_metrics_env_app_idx (app_name, environment, feature_name) or, for a
 * project, by its flags (features_project_name_idx) then the counts' key (feature_name first),
 * unknown names by unknown_flags_app_idx.
 */
import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import type { Database } from '../../db/tables.ts'
import { inNames } from '../../db/name-set.ts'
import { allFlagNames, flagNamesOfProject, flagProjectRows } from '../flags/flag-store.ts'
import { createStrategyDefinitionStore } from '../strategy-definitions/strategy-definition-store.ts'

const iso = (value: string) => new Date(value).toISOString()

export interface InstanceRow {
  appName: string
  instanceId: string
  environment: string
  sdkVersion: string | null
  sdkType: 'frontend' | 'backend' | null
  clientIp: string | null
  lastSeen: string
  createdAt: string
}

/** What an admin tells about an application (migration 0025). */
export interface ApplicationDetails {
  description?: string
  url?: string
  color?: string
  icon?: string
}

/** The details that are set, as the reference shows them (an unset one is absent). */
export function applicationDetails(row: {
  description: string | null
  url: string | null
  color: string | null
  icon: string | null
}): ApplicationDetails {
  return {
    ...(row.description === null ? {} : { description: row.description }),
    ...(row.url === null ? {} : { url: row.url }),
    ...(row.color === null ? {} : { color: row.color }),
    ...(row.icon === null ? {} : { icon: row.icon }),
  }
}

export function createApplicationStore(db: Kysely<Database>) {
  return {
    async find(appName: string) {
      const row = await db
        .selectFrom('client_applications')
        .select(['app_name', 'strategies', 'sdk_version', 'created_at', 'description', 'url', 'color', 'icon'])
        .where('app_name', '=', appName)
        .executeTakeFirst()
      return (
        row && {
          appName: row.app_name,
          strategies: row.strategies === null ? [] : (JSON.parse(row.strategies) as string[]),
          sdkVersion: row.sdk_version,
          createdAt: iso(row.created_at),
          details: applicationDetails(row),
        }
      )
    },

    /**
     * Creates the application or updates what is given (absent: kept), as the reference's upsert:
     * it counts as seen now, and one created so is used by `*` projects in `*` environments.
     */
    async save(appName: string, details: ApplicationDetails & { strategies?: string[] }, at: string): Promise<void> {
      const given = {
        ...(details.strategies === undefined ? {} : { strategies: JSON.stringify(details.strategies) }),
        ...(details.description === undefined ? {} : { description: details.description }),
        ...(details.url === undefined ? {} : { url: details.url }),
        ...(details.color === undefined ? {} : { color: details.color }),
        ...(details.icon === undefined ? {} : { icon: details.icon }),
      }
      await db
        .insertInto('client_applications')
        .values({ app_name: appName, created_at: at, last_seen_at: at, token_name: null, sdk_version: null, strategies: null, ...given })
        .onConflict((oc) => oc.column('app_name').doUpdateSet({ ...given, last_seen_at: at }))
        .execute()
      await db
        .insertInto('client_applications_usage')
        .values({ app_name: appName, project: '*', environment: '*' })
        .onConflict((oc) => oc.columns(['app_name', 'project', 'environment']).doNothing())
        .execute()
    },

    /** Each SDK version instances report, with the applications reporting it (by client_instances_sdk_idx, migration 0025). */
    async sdkApplications(): Promise<Array<{ sdkVersion: string; appName: string }>> {
      const rows = await db
        .selectFrom('client_instances')
        .select(['sdk_version', 'app_name'])
        .distinct()
        .where('sdk_version', 'is not', null)
        .orderBy('sdk_version')
        .orderBy('app_name')
        .execute()
      return rows.map((row) => ({ sdkVersion: row.sdk_version!, appName: row.app_name }))
    },

    /** Forgets the application, its instances and its usage (its counts stay until they expire, as the reference's). */
    async remove(appName: string): Promise<void> {
      await db.deleteFrom('client_instances').where('app_name', '=', appName).execute()
      await db.deleteFrom('client_applications_usage').where('app_name', '=', appName).execute()
      await db.deleteFrom('client_applications').where('app_name', '=', appName).execute()
    },

    /** The projects (`*`: every project) and environments of the tokens the application reported through. */
    async usage(appName: string): Promise<Array<{ project: string; environments: string[] }>> {
      const rows = await db
        .selectFrom('client_applications_usage')
        .select(['project', 'environment'])
        .where('app_name', '=', appName)
        .orderBy('project')
        .orderBy('environment')
        .execute()
      const usage: Array<{ project: string; environments: string[] }> = []
      for (const row of rows) {
        const last = usage.at(-1)
        if (last?.project === row.project) last.environments.push(row.environment)
        else usage.push({ project: row.project, environments: [row.environment] })
      }
      return usage
    },

    /** The application's instances (at most METRICS_INSTANCES_PER_APPLICATION are stored), seen since `since` if given, the latest first. */
    async instances(appName: string, options: { since?: string; environment?: string } = {}): Promise<InstanceRow[]> {
      let query = db
        .selectFrom('client_instances')
        .select(['app_name', 'instance_id', 'environment', 'sdk_version', 'sdk_type', 'client_ip', 'last_seen_at', 'created_at'])
        .where('app_name', '=', appName)
      if (options.since !== undefined) query = query.where('last_seen_at', '>=', options.since)
      if (options.environment !== undefined) query = query.where('environment', '=', options.environment)
      const rows = await query.orderBy('last_seen_at', 'desc').orderBy('instance_id').orderBy('environment').limit(1000).execute()
      return rows.map((row) => ({
        appName: row.app_name,
        instanceId: row.instance_id,
        environment: row.environment,
        sdkVersion: row.sdk_version,
        sdkType: row.sdk_type === 'frontend' || row.sdk_type === 'backend' ? row.sdk_type : null,
        clientIp: row.client_ip,
        lastSeen: iso(row.last_seen_at),
        createdAt: iso(row.created_at),
      }))
    },

    /** The flags the application's stored counts name, per environment, with the flag's project (null: no such flag now). */
    async flagsSeen(appName: string): Promise<Array<{ environment: string; flag: string; project: string | null }>> {
      const rows = await db
        .selectFrom('client_metrics_env as cme')
        .leftJoin(flagProjectRows(db).as('f'), 'f.name', 'cme.feature_name')
        .select(['cme.environment', 'cme.feature_name', 'f.project'])
        .where('cme.app_name', '=', appName)
        .groupBy(['cme.environment', 'cme.feature_name', 'f.project'])
        .orderBy('cme.environment')
        .orderBy('cme.feature_name')
        .execute()
      return rows.map((row) => ({ environment: row.environment, flag: row.feature_name, project: row.project }))
    },

    /** Names the application counted that are no flags, per environment, reported since `since`. */
    async unknownNames(appName: string, since: string): Promise<Array<{ environment: string; name: string }>> {
      return db
        .selectFrom('unknown_flags as u')
        .select(['u.environment', 'u.name'])
        .where('u.app_name', '=', appName)
        .where('u.last_seen_at', '>=', since)
        .where('u.name', 'not in', allFlagNames(db))
        .orderBy('u.environment')
        .orderBy('u.name')
        .execute()
    },

    async strategyNames(): Promise<Set<string>> {
      return new Set(await createStrategyDefinitionStore(db).names())
    },

    /** The applications (recorded ones only) whose stored counts name flags of the project, and the environments they did it in. */
    async projectApplications(project: string): Promise<Array<{ appName: string; environment: string }>> {
      const rows = await db
        .selectFrom('client_metrics_env as cme')
        .innerJoin('client_applications as ca', 'ca.app_name', 'cme.app_name')
        .select(['cme.app_name', 'cme.environment'])
        .distinct()
        .where('cme.feature_name', 'in', flagNamesOfProject(db, project))
        .orderBy('cme.app_name')
        .orderBy('cme.environment')
        .execute()
      return rows.map((row) => ({ appName: row.app_name, environment: row.environment }))
    },

    /** Instances of these applications (instance id, environment, SDK version), by application. */
    async instancesOf(
      appNames: readonly string[],
    ): Promise<Array<{ appName: string; instanceId: string; environment: string; sdkVersion: string | null }>> {
      if (appNames.length === 0) return []
      const rows = await db
        .selectFrom('client_instances')
        .select(['app_name', 'instance_id', 'environment', 'sdk_version'])
        .where(inNames(db, 'app_name', appNames))
        .orderBy('app_name')
        .orderBy('instance_id')
        .execute()
      return rows.map((row) => ({
        appName: row.app_name,
        instanceId: row.instance_id,
        environment: row.environment,
        sdkVersion: row.sdk_version,
      }))
    },

    /** Of these applications, those with an instance whose id or SDK version contains one of the terms (any case). */
    async withInstanceMatching(appNames: readonly string[], terms: readonly string[]): Promise<Set<string>> {
      if (appNames.length === 0 || terms.length === 0) return new Set()
      const contains = dialectOf(db) === 'postgres' ? 'strpos' : 'instr'
      const rows = await db
        .selectFrom('client_instances')
        .select('app_name')
        .distinct()
        .where(inNames(db, 'app_name', appNames))
        .where((eb) =>
          eb.or(
            terms.flatMap((term) => [
              sql<boolean>`${sql.raw(contains)}(lower(instance_id), lower(${term})) > 0`,
              sql<boolean>`${sql.raw(contains)}(lower(coalesce(sdk_version, '')), lower(${term})) > 0`,
            ]),
          ),
        )
        .execute()
      return new Set(rows.map((row) => row.app_name))
    },
  }
}
