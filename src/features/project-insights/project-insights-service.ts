/**
 * A project's overview, insights and lead times (GET /projects/:id/overview, /insights, /dora),
 * computed when asked from what Pennon stores: the reference keeps the windows' counts and the
 * health rating in tables a periodic job refreshes; Pennon counts them at read time, with the
 * same definitions. A project's only member is the person who created it (the reference makes
 * its creator the project's Owner, and Pennon has no other project roles).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { createFeatureTypeStore } from '../feature-types/feature-type-store.ts'
import { isPotentiallyStale } from '../feature-types/feature-type-service.ts'
import { healthRating } from '../flags/project-health.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore, type Project } from '../projects/project-store.ts'
import { createProjectInsightsStore, type FlagFacts, type OnboardingFacts, type TimeToProduction } from './project-insights-store.ts'

const DAY_MS = 86_400_000

export interface HealthCounts {
  activeCount: number
  potentiallyStaleCount: number
  staleCount: number
  rating: number
}

/** The active flags' health as the reference counts it: not stale, stale, past their type's lifetime. */
export function healthOf(flags: readonly FlagFacts[], lifetimes: ReadonlyMap<string, number | null>, now: number): HealthCounts {
  const active = flags.filter((flag) => flag.archivedAt === null)
  const counts = {
    activeCount: active.filter((flag) => !flag.stale).length,
    potentiallyStaleCount: active.filter((flag) => isPotentiallyStale({ ...flag, archived: false }, lifetimes.get(flag.type), now)).length,
    staleCount: active.filter((flag) => flag.stale).length,
  }
  return { ...counts, rating: healthRating(counts) }
}

/** The reference's onboarding status: SDKs seen and a flag switched on, SDKs seen, a first flag, or just started. */
export function onboardingStatusOf(facts: OnboardingFacts): { status: string; feature?: string } {
  if (facts.sdkSeen) return { status: facts.everEnabled ? 'onboarded' : 'sdk-connected' }
  return facts.firstFlag === undefined ? { status: 'onboarding-started' } : { status: 'first-flag-created', feature: facts.firstFlag }
}

/** Whole days from creation to production (rounded down), per flag, and their average (one decimal; 0.1 for a zero average). */
export function leadTimes(rows: readonly TimeToProduction[]) {
  const features = rows.map((row) => ({
    name: row.name,
    timeToProduction: Math.floor((Date.parse(row.enabled) - Date.parse(row.created)) / DAY_MS),
  }))
  let projectAverage = 0
  if (features.length > 0) {
    const average = features.reduce((sum, feature) => sum + feature.timeToProduction, 0) / features.length
    projectAverage = Number(average.toFixed(1)) || 0.1
  }
  return { features, projectAverage }
}

/** How many flags of each type, by type name. */
function typeCounts(flags: readonly FlagFacts[]) {
  const counts = new Map<string, number>()
  for (const flag of flags) counts.set(flag.type, (counts.get(flag.type) ?? 0) + 1)
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([type, count]) => ({ type, count }))
}

const between = (at: string | null, from: string, to?: string) => at !== null && at >= from && (to === undefined || at < to)

export function createProjectInsightsService({ db }: { db: Kysely<Database> }) {
  async function projectOf(projectId: string): Promise<Project> {
    const project = await createProjectStore(db).find(projectId)
    if (!project) throw projectNotFound(projectId)
    return project
  }

  /** What the overview and the insights share: the flags and their health, the windows' counts, the members. */
  async function common(project: Project) {
    const now = Date.now()
    const currentWindow = new Date(now - 30 * DAY_MS).toISOString()
    const pastWindow = new Date(now - 60 * DAY_MS).toISOString()
    const store = createProjectInsightsStore(db)
    const [flags, lifetimes, activity, times, creators] = await Promise.all([
      store.flagsOf([project.id]),
      createFeatureTypeStore(db).lifetimes(),
      store.activity(project.id, currentWindow, pastWindow),
      store.timesToProduction(project.id),
      store.creators([project.id]),
    ])
    const active = flags.filter((flag) => flag.archivedAt === null)
    const archived = flags.filter((flag) => flag.archivedAt !== null)
    const lead = leadTimes(times)
    const membersAdded = creators.filter((creator) => creator.createdAt >= currentWindow).length
    return {
      flags,
      active,
      archived,
      health: healthOf(flags, lifetimes, now),
      leadTime: lead,
      members: creators.length,
      membersAdded,
      stats: {
        avgTimeToProdCurrentWindow: lead.projectAverage,
        createdCurrentWindow: active.filter((flag) => between(flag.createdAt, currentWindow)).length,
        createdPastWindow: active.filter((flag) => between(flag.createdAt, pastWindow, currentWindow)).length,
        archivedCurrentWindow: archived.filter((flag) => between(flag.archivedAt, currentWindow)).length,
        archivedPastWindow: archived.filter((flag) => between(flag.archivedAt, pastWindow, currentWindow)).length,
        projectActivityCurrentWindow: activity.current,
        projectActivityPastWindow: activity.past,
        projectMembersAddedCurrentWindow: membersAdded,
      },
    }
  }

  return {
    /** `archived`: the flag type counts are the archived flags' (as the reference's `?archived=true`). */
    overview: async (projectId: string, { archived = false } = {}) => {
      const project = await projectOf(projectId)
      const store = createProjectInsightsStore(db)
      const [facts, environments, onboarding] = await Promise.all([
        common(project),
        store.environments(project.id),
        store.onboarding(project.id),
      ])
      return {
        stats: facts.stats,
        name: project.name,
        description: project.description,
        mode: 'open' as const,
        featureLimit: null,
        featureNaming: { pattern: null, example: null, description: null },
        linkTemplates: [],
        defaultStickiness: 'default',
        health: facts.health.rating,
        technicalDebt: 100 - facts.health.rating,
        favorite: false,
        updatedAt: null,
        createdAt: project.createdAt,
        onboardingStatus: onboardingStatusOf(onboarding),
        environments: environments.map(({ environment, defaultStrategy }) =>
          defaultStrategy === null ? { environment } : { environment, defaultStrategy: JSON.parse(defaultStrategy) },
        ),
        featureTypeCounts: typeCounts(archived ? facts.archived : facts.active),
        members: facts.members,
        version: 1 as const,
      }
    },

    insights: async (projectId: string) => {
      const facts = await common(await projectOf(projectId))
      const { rating, ...counts } = facts.health
      return {
        stats: facts.stats,
        featureTypeCounts: typeCounts(facts.active),
        technicalDebt: { rating: 100 - rating, ...counts },
        leadTime: facts.leadTime,
        members: { currentMembers: facts.members, change: facts.membersAdded },
        health: { rating, ...counts },
      }
    },

    dora: async (projectId: string) => {
      const project = await projectOf(projectId)
      return leadTimes(await createProjectInsightsStore(db).timesToProduction(project.id))
    },
  }
}

export type ProjectInsightsService = ReturnType<typeof createProjectInsightsService>
