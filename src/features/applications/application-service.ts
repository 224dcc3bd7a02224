/**
 * The admin reads of applications (docs/metrics.md, "Admin reads"): one application, its
 * overview per environment, its recent instances, and the applications of a project; an admin's
 * creation, update and deletion of an application.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { notFound, quote } from '../../http/errors.ts'
import { parsePaging } from '../../http/paging.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { distinctSorted, groupSdks, isOutdatedSdk } from './application-rules.ts'
import type {
  ApplicationResponse,
  CreateApplicationBody,
  OutdatedSdksResponse,
  OverviewResponse,
  ProjectApplicationsQuery,
  ProjectApplicationsResponse,
} from './application-schemas.ts'
import { createApplicationStore } from '../metrics/application-store.ts'

const DAY_MS = 24 * 3_600_000
/** Strategies the reference does not count as missing when an SDK implements them and the server has none. */
const DEPRECATED_STRATEGIES = new Set(['gradualRolloutRandom', 'gradualRolloutSessionId', 'gradualRolloutUserId', 'userWithId'])
export const PROJECT_APPLICATIONS_DEFAULT_LIMIT = 50
export const PROJECT_APPLICATIONS_MAX_LIMIT = 100

const applicationNotFound = (appName: string) => notFound(`No application is named ${quote(appName)}.`)

export function createApplicationService({ db, now = Date.now }: { db: Kysely<Database>; now?: () => number }) {
  const store = () => createApplicationStore(db)
  const dayAgo = () => new Date(now() - DAY_MS).toISOString()

  return {
    /** GET /api/admin/metrics/applications/:appName */
    async application(appName: string): Promise<ApplicationResponse> {
      const reads = store()
      const application = await reads.find(appName)
      if (application === undefined) throw applicationNotFound(appName)
      const [usage, instances, flags] = await Promise.all([reads.usage(appName), reads.instances(appName), reads.flagsSeen(appName)])
      const projectOf = new Map(flags.map((row) => [row.flag, row.project]))
      return {
        appName,
        ...(application.sdkVersion === null ? {} : { sdkVersion: application.sdkVersion }),
        strategies: application.strategies,
        ...application.details,
        usage,
        createdAt: application.createdAt,
        instances: instances.map(({ appName: _app, ...instance }) => instance),
        seenToggles: distinctSorted(projectOf.keys()).map((name) => {
          const project = projectOf.get(name)
          return project === null || project === undefined ? { name, notFound: true as const } : { name, project }
        }),
      }
    },

    /**
     * POST /api/admin/metrics/applications/:appName: creates it or updates what is given. No
     * event, as the reference (its application-created is announced later by a job Pennon has not).
     */
    async save(appName: string, body: CreateApplicationBody): Promise<void> {
      await db.transaction().execute((trx) => createApplicationStore(trx).save(appName, body, new Date(now()).toISOString()))
    },

    /** DELETE /api/admin/metrics/applications/:appName: done whether it existed or not, no event, as the reference. */
    async remove(appName: string): Promise<void> {
      await db.transaction().execute((trx) => createApplicationStore(trx).remove(appName))
    },

    /**
     * GET /api/admin/metrics/sdks/outdated and /projects/:projectId/sdks/outdated: SDK versions
     * older than the reference's minimum for their SDK, each with the applications whose instances
     * report it (for a project: the applications whose counts name its flags), all sorted.
     */
    async outdatedSdks(project?: string): Promise<OutdatedSdksResponse> {
      const reads = store()
      let pairs: Array<{ sdkVersion: string; appName: string }>
      if (project === undefined) pairs = await reads.sdkApplications()
      else {
        if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
        const names = distinctSorted((await reads.projectApplications(project)).map((row) => row.appName))
        pairs = (await reads.instancesOf(names)).flatMap((row) =>
          row.sdkVersion === null ? [] : [{ sdkVersion: row.sdkVersion, appName: row.appName }],
        )
      }
      const applicationsOf = new Map<string, string[]>()
      for (const { sdkVersion, appName } of pairs) {
        if (isOutdatedSdk(sdkVersion)) applicationsOf.set(sdkVersion, [...(applicationsOf.get(sdkVersion) ?? []), appName])
      }
      return {
        sdks: distinctSorted(applicationsOf.keys()).map((sdkVersion) => ({
          sdkVersion,
          applications: distinctSorted(applicationsOf.get(sdkVersion)!),
        })),
      }
    },

    /** GET /api/admin/metrics/applications/:appName/overview */
    async overview(appName: string): Promise<OverviewResponse> {
      const reads = store()
      const application = await reads.find(appName)
      if (application === undefined) throw applicationNotFound(appName)
      const since = dayAgo()
      const [flags, instances, unknownNames, strategies] = await Promise.all([
        reads.flagsSeen(appName),
        reads.instances(appName, { since }),
        reads.unknownNames(appName, since),
        reads.strategyNames(),
      ])
      const environments = distinctSorted([...flags.map((row) => row.environment), ...instances.map((row) => row.environment)])
      return {
        projects: distinctSorted(flags.flatMap((row) => (row.project === null ? [] : [row.project]))),
        featureCount: new Set(flags.map((row) => row.flag)).size,
        environments: environments.map((name) => {
          const here = instances.filter((row) => row.environment === name)
          const versions = (type?: string) =>
            distinctSorted(
              here.flatMap((row) => (row.sdkVersion !== null && (type === undefined || row.sdkType === type) ? [row.sdkVersion] : [])),
            )
          const sdks = versions()
          return {
            name,
            instanceCount: new Set(here.map((row) => row.instanceId)).size,
            sdks,
            frontendSdks: versions('frontend'),
            backendSdks: versions('backend'),
            lastSeen: here[0]?.lastSeen ?? null,
            issues: {
              missingFeatures: distinctSorted([
                ...flags.filter((row) => row.environment === name && row.project === null).map((row) => row.flag),
                ...unknownNames.filter((row) => row.environment === name).map((row) => row.name),
              ]),
              outdatedSdks: sdks.filter(isOutdatedSdk),
            },
          }
        }),
        issues: { missingStrategies: application.strategies.filter((name) => !strategies.has(name) && !DEPRECATED_STRATEGIES.has(name)) },
      }
    },

    /** GET /api/admin/metrics/instances/:appName/environment/:environment: the last 24 hours, as the reference (an unknown application has none). */
    async environmentInstances(appName: string, environment: string) {
      const instances = await store().instances(appName, { since: dayAgo(), environment })
      return {
        instances: instances.map((row) => ({
          instanceId: row.instanceId,
          sdkVersion: row.sdkVersion,
          clientIp: row.clientIp,
          lastSeen: row.lastSeen,
        })),
      }
    },

    /**
     * GET /api/admin/projects/:projectId/applications: applications whose counts name the
     * project's flags, by name; `query` (comma-separated terms, any case) keeps those whose name,
     * environments, instance ids or SDK versions contain one of the terms.
     */
    async projectApplications(project: string, query: ProjectApplicationsQuery): Promise<ProjectApplicationsResponse> {
      const { offset, limit } = parsePaging(query, {
        defaultLimit: PROJECT_APPLICATIONS_DEFAULT_LIMIT,
        maxLimit: PROJECT_APPLICATIONS_MAX_LIMIT,
        overMax: 'clamp',
      })
      const terms = (query.query ?? '')
        .split(',')
        .map((term) => term.trim().toLowerCase())
        .filter((term) => term !== '')
      if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
      const reads = store()
      const pairs = await reads.projectApplications(project)
      const environmentsOf = new Map<string, string[]>()
      for (const { appName, environment } of pairs) environmentsOf.set(appName, [...(environmentsOf.get(appName) ?? []), environment])
      let names = [...environmentsOf.keys()]
      if (terms.length > 0) {
        const byInstance = await reads.withInstanceMatching(names, terms)
        const matches = (text: string) => terms.some((term) => text.toLowerCase().includes(term))
        names = names.filter((name) => matches(name) || environmentsOf.get(name)!.some(matches) || byInstance.has(name))
      }
      if (query.sortOrder === 'desc') names.reverse()
      const page = names.slice(offset, offset + limit)
      const instances = await reads.instancesOf(page)
      return {
        total: names.length,
        applications: page.map((name) => {
          const environments = environmentsOf.get(name)!
          const here = instances.filter((row) => row.appName === name && environments.includes(row.environment))
          return {
            name,
            environments,
            instances: distinctSorted(here.map((row) => row.instanceId)),
            sdks: groupSdks(here.flatMap((row) => (row.sdkVersion === null ? [] : [row.sdkVersion]))),
          }
        }),
      }
    },
  }
}

export type ApplicationService = ReturnType<typeof createApplicationService>
