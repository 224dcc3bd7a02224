/**
 * GET /projects/:projectId/health-report (getProjectHealthReport): the project's active flags and
 * how many are active, stale and potentially stale, with the health rating the reference computes
 * from those counts. Pennon computes it when asked (the reference stores a rating its periodic job
 * refreshes), and potentially stale is what the flag reads say (feature-types/).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { Principal } from '../../http/permissions.ts'
import { errorResponses } from '../../http/common-schemas.ts'
import { createEnvironmentStore } from '../environments/environment-store.ts'
import { withPotentiallyStale } from '../feature-types/feature-type-service.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { ProjectParams } from '../projects/project-schemas.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { withTags } from '../tags/tag-filter.ts'
import { FlagListResponse } from './flag-schemas.ts'
import { createFlagStore } from './flag-store.ts'

const Count = Type.Integer({ minimum: 0 })

export const HealthReportResponse = Type.Object(
  {
    version: Type.Literal(1),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    defaultStickiness: Type.String({ description: 'Always `default`: Pennon projects have no stickiness of their own' }),
    mode: Type.Literal('open', { description: 'Always `open`: Pennon has no collaboration modes' }),
    featureLimit: Type.Null(),
    members: Type.Integer({ minimum: 0, description: 'Always 0: Pennon has no project members' }),
    health: Type.Integer({
      description: '100 minus the percentages of stale and of potentially stale flags among the active ones, rounded',
    }),
    technicalDebt: Type.Integer({ minimum: 0, maximum: 100, description: '100 - health' }),
    environments: Type.Array(Type.Object({ environment: Type.String() }), { description: "The project's environments, by sort order" }),
    features: FlagListResponse.properties.features,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.Null(),
    favorite: Type.Boolean({ description: 'Whether the project is a favorite of the signed-in caller (false for other callers)' }),
    potentiallyStaleCount: Count,
    activeCount: Type.Integer({ minimum: 0, description: 'Flags not marked stale' }),
    staleCount: Count,
  },
  { additionalProperties: false },
)

/** The reference's rating: 100 less the stale and the potentially stale shares (in percent) of the project's flags, rounded. */
export function healthRating(counts: { activeCount: number; staleCount: number; potentiallyStaleCount: number }): number {
  const flags = counts.activeCount + counts.staleCount
  if (flags === 0) return 100
  return Math.round(100 - (counts.staleCount / flags) * 100 - (counts.potentiallyStaleCount / flags) * 100)
}

/** `favoriteProjects`: the caller's favorite projects (favorites/, handed over by app.ts). */
export function createProjectHealth({
  db,
  favoriteProjects,
}: {
  db: Kysely<Database>
  favoriteProjects: (db: Kysely<Database>, caller: Principal) => Promise<Set<string>>
}) {
  return async (projectId: string, caller: Principal) => {
    const project = await createProjectStore(db).find(projectId)
    if (!project) throw projectNotFound(projectId)
    const features = await withTags(db, await withPotentiallyStale(db, await createFlagStore(db).listActive(projectId)))
    const environments = (await createEnvironmentStore(db).forProject(projectId)).filter((environment) => environment.visible)
    const counts = {
      potentiallyStaleCount: features.filter((flag) => flag.potentiallyStale).length,
      activeCount: features.filter((flag) => !flag.stale).length,
      staleCount: features.filter((flag) => flag.stale).length,
    }
    const health = healthRating(counts)
    return {
      version: 1 as const,
      name: project.name,
      description: project.description,
      defaultStickiness: 'default',
      mode: 'open' as const,
      featureLimit: null,
      members: 0,
      health,
      technicalDebt: 100 - health,
      environments: environments.map((environment) => ({ environment: environment.name })),
      features,
      createdAt: project.createdAt,
      updatedAt: null,
      favorite: (await favoriteProjects(db, caller)).has(projectId),
      ...counts,
    }
  }
}

export const projectHealthRoutes: FastifyPluginAsyncTypebox<{ projectHealth: ReturnType<typeof createProjectHealth> }> = async (
  app,
  { projectHealth },
) => {
  app.get(
    '/projects/:projectId/health-report',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Projects'],
        summary: "A project's health: its active flags, how many are stale and potentially stale, and its rating",
        description: 'Computed when asked; an unknown project is a 404.',
        params: ProjectParams,
        response: { 200: HealthReportResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => projectHealth(request.params.projectId, request.principal),
  )
}
