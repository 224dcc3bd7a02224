/**
 * The read model of a project's overview, insights and lead times (and the personal dashboard's
 * view of projects): a few queries over flags, events, environments, users and SDK sightings,
 * one per kind of data, never one per flag. Reads only (test/table-owners.unit.test.ts).
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'

/** A flag as the counts need it. */
export interface FlagFacts {
  project: string
  name: string
  type: string
  stale: boolean
  createdAt: string
  archivedAt: string | null
}

/** A flag's creation and its first switch-on in a production environment after it. */
export interface TimeToProduction {
  name: string
  created: string
  enabled: string
}

/** The person who created a project (the reference makes the creator its owner). */
export interface ProjectCreator {
  project: string
  id: number
  name: string | null
  username: string | null
  email: string | null
  createdAt: string
}

export interface OnboardingFacts {
  sdkSeen: boolean
  everEnabled: boolean
  firstFlag: string | undefined
}

/**
 * The user that wrote an event, when the event's actor is that person: the id alone could be a
 * service account's (their ids are counted apart), so the name the event carries must be theirs.
 */
const writtenByUser = sql<boolean>`(u.email = e.created_by or u.username = e.created_by or cast(u.id as text) = e.created_by)`

export function createProjectInsightsStore(db: Kysely<Database>) {
  return {
    /** Every flag of these projects (archived ones too, for the windows' counts): one query. */
    async flagsOf(projects: readonly string[]): Promise<FlagFacts[]> {
      if (projects.length === 0) return []
      const rows = await db
        .selectFrom('features')
        .select(['project', 'name', 'type', 'stale', 'created_at', 'archived_at'])
        .where('project', 'in', [...projects])
        .orderBy('project')
        .orderBy('name')
        .execute()
      return rows.map((row) => ({
        project: row.project,
        name: row.name,
        type: row.type,
        stale: Boolean(row.stale),
        createdAt: row.created_at,
        archivedAt: row.archived_at,
      }))
    },

    /** Events about the project since `pastWindow`, and since `currentWindow`: one range of (project, created_at). */
    async activity(project: string, currentWindow: string, pastWindow: string): Promise<{ current: number; past: number }> {
      const row = await db
        .selectFrom('events')
        .select([
          sql<number>`coalesce(sum(case when created_at >= ${currentWindow} then 1 else 0 end), 0)`.as('current'),
          sql<number>`coalesce(sum(case when created_at < ${currentWindow} then 1 else 0 end), 0)`.as('past'),
        ])
        .where('project', '=', project)
        .where('created_at', '>=', pastWindow)
        .executeTakeFirstOrThrow()
      return { current: Number(row.current), past: Number(row.past) }
    },

    /**
     * The project's release flags (archived ones too) that were switched on in a production-type
     * environment after they were created, with the first such switch, by name: as the
     * reference's lead time reads them.
     */
    async timesToProduction(project: string): Promise<TimeToProduction[]> {
      const rows = await db
        .selectFrom('features as f')
        .innerJoin('events as e', 'e.feature_name', 'f.name')
        .innerJoin('environments as env', 'env.name', 'e.environment')
        .select(['f.name', 'f.created_at', sql<string>`min(e.created_at)`.as('enabled')])
        .where('f.project', '=', project)
        .where('f.type', '=', 'release')
        // A flag's events carry its project (flags never move): the (project, type) index finds them.
        .where('e.project', '=', project)
        .where('e.type', '=', 'feature-environment-enabled')
        .where('env.type', '=', 'production')
        .whereRef('e.created_at', '>', 'f.created_at')
        .groupBy(['f.name', 'f.created_at'])
        .orderBy('f.name')
        .execute()
      return rows.map((row) => ({ name: row.name, created: row.created_at, enabled: new Date(row.enabled).toISOString() }))
    },

    /** The project's environments by sort order, each with its default strategy (JSON text) if it has one. */
    async environments(project: string): Promise<Array<{ environment: string; defaultStrategy: string | null }>> {
      const rows = await db
        .selectFrom('project_environments as pe')
        .innerJoin('environments as env', 'env.name', 'pe.environment')
        .select(['pe.environment', 'pe.default_strategy'])
        .where('pe.project', '=', project)
        .orderBy('env.sort_order')
        .orderBy('pe.environment')
        .execute()
      return rows.map((row) => ({ environment: row.environment, defaultStrategy: row.default_strategy }))
    },

    /** What the onboarding status is read from: SDKs seen using the project, a switch-on ever, its first active flag. */
    async onboarding(project: string): Promise<OnboardingFacts> {
      const [sighting, usage, enabled, first] = await Promise.all([
        db
          .selectFrom('last_seen_at_metrics as l')
          .innerJoin('features as f', 'f.name', 'l.feature_name')
          .select('f.name')
          .where('f.project', '=', project)
          .limit(1)
          .executeTakeFirst(),
        db.selectFrom('client_applications_usage').select('app_name').where('project', '=', project).limit(1).executeTakeFirst(),
        db
          .selectFrom('events')
          .select('id')
          .where('project', '=', project)
          .where('type', '=', 'feature-environment-enabled')
          .limit(1)
          .executeTakeFirst(),
        db
          .selectFrom('features')
          .select('name')
          .where('project', '=', project)
          .where('archived_at', 'is', null)
          .orderBy('created_at')
          .orderBy('name')
          .limit(1)
          .executeTakeFirst(),
      ])
      return { sdkSeen: sighting !== undefined || usage !== undefined, everEnabled: enabled !== undefined, firstFlag: first?.name }
    },

    /**
     * Who created each of these projects (all projects when `projects` is undefined), when that
     * was a person who still exists: the latest `project-created` event of each project.
     */
    async creators(projects?: readonly string[]): Promise<ProjectCreator[]> {
      if (projects?.length === 0) return []
      let latest = db
        .selectFrom('events')
        .select(['project', sql<number>`max(id)`.as('id')])
        .where('type', '=', 'project-created')
        .groupBy('project')
      if (projects) latest = latest.where('project', 'in', [...projects])
      const rows = await db
        .selectFrom(latest.as('l'))
        .innerJoin('events as e', 'e.id', 'l.id')
        .innerJoin('users as u', 'u.id', 'e.created_by_user_id')
        .select(['e.project', 'u.id', 'u.name', 'u.username', 'u.email', 'e.created_at'])
        .where(writtenByUser)
        .orderBy('e.project')
        .execute()
      return rows.map((row) => ({
        project: row.project!,
        id: Number(row.id),
        name: row.name,
        username: row.username,
        email: row.email,
        createdAt: row.created_at,
      }))
    },
  }
}

export type ProjectInsightsStore = ReturnType<typeof createProjectInsightsStore>
