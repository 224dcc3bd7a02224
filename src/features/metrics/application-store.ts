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

export function createApplicationStore(db: Kysely<Database>) {
  return {
    async find(appName: string) {
      const row = await db
        .selectFrom('client_applications')
        .select(['app_name', 'strategies', 'sdk_version', 'created_at'])
        .where('app_name', '=', appName)
        .executeTakeFirst()
      return (
        row && {
          appName: row.app_name,
          strategies: row.strategies === null ? [] : (JSON.parse(row.strategies) as string[]),
          sdkVersion: row.sdk_version,
          createdAt: iso(row.created_at),
        }
      )
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
