/**
 * GET /personal-dashboard and /personal-dashboard/:projectId: what concerns the signed-in person.
 * Their flags are those they created; their projects are `default` (every person holds a root
 * role there, as in the reference) and those they created, whose owner they are (the reference
 * makes a project's creator its Owner; Pennon has no other project roles). Favorites are not kept.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { notFound } from '../../http/errors.ts'
import { projectEventsQuery } from '../events/event-store.ts'
import { createFeatureTypeStore } from '../feature-types/feature-type-store.ts'
import { createProjectInsightsStore, type ProjectCreator } from '../project-insights/project-insights-store.ts'
import { healthOf, onboardingStatusOf } from '../project-insights/project-insights-service.ts'
import { imageUrlOf, summarize } from './event-summary.ts'
import { createPersonalDashboardStore } from './personal-dashboard-store.ts'

/** The reference's Owner project role. */
const OWNER_ROLE = { name: 'Owner', id: 4, type: 'project' as const }
const LATEST_EVENTS = 10

/** A person calling: their user id and the name their events carry. */
export interface Person {
  id: number
  name: string
}

const ownerOf = (creator: ProjectCreator) => ({
  ownerType: 'user' as const,
  name: creator.name || creator.username || creator.email || String(creator.id),
  email: creator.email,
  imageUrl: imageUrlOf(creator),
})

/** Only the fields a person has: the reference leaves out empty ones. */
function present<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: NonNullable<T[K]> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== '')) as {
    [K in keyof T]?: NonNullable<T[K]>
  }
}

export function createPersonalDashboardService({ db, publicUrl }: { db: Kysely<Database>; publicUrl: string | undefined }) {
  const insights = () => createProjectInsightsStore(db)
  const dashboard = () => createPersonalDashboardStore(db)

  /** `default` and the projects this person created (the latest creation of each, when it was theirs). */
  async function projectsOf(person: Person): Promise<string[]> {
    const created = await dashboard().projectsCreatedBy(person)
    const owned = (await insights().creators(created)).filter((creator) => creator.id === person.id).map((creator) => creator.project)
    return [...new Set(['default', ...owned])]
  }

  return {
    overview: async (person: Person) => {
      const [flags, ids, allCreators, admins] = await Promise.all([
        dashboard().flagsCreatedBy(person),
        projectsOf(person),
        insights().creators(),
        dashboard().admins(),
      ])
      const [names, projectFlags, lifetimes] = await Promise.all([
        dashboard().projectNames(ids),
        insights().flagsOf(ids),
        createFeatureTypeStore(db).lifetimes(),
      ])
      const now = Date.now()
      const projects = ids
        .filter((id) => names.has(id))
        .map((id) => {
          const own = projectFlags.filter((flag) => flag.project === id)
          const health = healthOf(own, lifetimes, now).rating
          return {
            id,
            name: names.get(id)!,
            health,
            technicalDebt: 100 - health,
            memberCount: allCreators.some((creator) => creator.project === id) ? 1 : 0,
            featureCount: own.filter((flag) => flag.archivedAt === null).length,
          }
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      // Every project's owners that are people, each once (by email, else name), earliest first.
      const projectOwners = new Map<string, ReturnType<typeof ownerOf>>()
      for (const creator of [...allCreators].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))) {
        const owner = ownerOf(creator)
        projectOwners.set(owner.email || owner.name, owner)
      }
      return {
        projects,
        flags,
        projectOwners: [...projectOwners.values()],
        admins: admins.map((admin) => ({
          id: admin.id,
          ...present({ name: admin.name, username: admin.username, email: admin.email }),
          imageUrl: imageUrlOf(admin),
        })),
      }
    },

    projectDetails: async (person: Person, projectId: string) => {
      const names = await dashboard().projectNames([projectId])
      if (!names.has(projectId)) throw notFound(`No project with id "${projectId}" exists.`)
      const [onboarding, events, creators, flags, lifetimes] = await Promise.all([
        insights().onboarding(projectId),
        projectEventsQuery(db, projectId).limit(LATEST_EVENTS).execute(),
        insights().creators([projectId]),
        insights().flagsOf([projectId]),
        createFeatureTypeStore(db).lifetimes(),
      ])
      const health = healthOf(flags, lifetimes, Date.now())
      const totalFlags = flags.filter((flag) => flag.archivedAt === null).length
      return {
        latestEvents: events.map(({ json }) => {
          const event = JSON.parse(json)
          return {
            id: event.id,
            summary: summarize(event, publicUrl ?? ''),
            createdBy: event.createdBy,
            createdByImageUrl: imageUrlOf({ email: event.createdBy }),
            createdAt: event.createdAt,
          }
        }),
        onboardingStatus: onboardingStatusOf(onboarding),
        owners: creators.length === 0 ? [{ ownerType: 'system' as const }] : creators.map(ownerOf),
        roles: creators.some((creator) => creator.id === person.id) ? [OWNER_ROLE] : [],
        insights: {
          // Pennon keeps no history of a project's health.
          avgHealthCurrentWindow: null,
          avgHealthPastWindow: null,
          totalFlags,
          activeFlags: totalFlags - health.staleCount - health.potentiallyStaleCount,
          staleFlags: health.staleCount,
          potentiallyStaleFlags: health.potentiallyStaleCount,
          health: health.rating,
          technicalDebt: 100 - health.rating,
        },
      }
    },
  }
}

export type PersonalDashboardService = ReturnType<typeof createPersonalDashboardService>
