/**
 * GET /projects/:projectId/flag-creators (getProjectFlagCreators): the people who created the
 * project's active flags. Pennon keeps no creator column on flags: the creator is the author of the
 * flag's `feature-created` event. The reference joins its users table, which holds a row for the
 * admin API tokens (id -42, seeded by its migrations): flags they created show that user.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { errorResponses } from '../../http/common-schemas.ts'
import { creatorIdsOfFlags } from '../events/event-store.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { ProjectParams } from '../projects/project-schemas.ts'

/** users/ (ranked above) names them: display name, else username, else email; users without any are left out. */
export type UserNames = (ids: readonly number[]) => Promise<Map<number, string>>

/** The reference's users row for every admin API token (its migration 20240116154700). */
const ADMIN_TOKEN_USER = { id: -42, name: 'Unleash Admin Token User' }

export const FlagCreatorsResponse = Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false }), {
  description: 'sorted by name, then id',
})

export function createFlagCreators({ db, userNames }: { db: Kysely<Database>; userNames: UserNames }) {
  return async (project: string): Promise<Array<{ id: number; name: string }>> => {
    if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
    const flags = await db
      .selectFrom('features')
      .select(['name', 'created_at'])
      .where('project', '=', project)
      .where('archived_at', 'is', null)
      .execute()
    const ids = await creatorIdsOfFlags(
      db,
      flags.map((flag) => ({ name: flag.name, createdAt: String(flag.created_at) })),
    )
    const names = await userNames(ids)
    const creators = [...names].map(([id, name]) => ({ id, name }))
    if (ids.includes(ADMIN_TOKEN_USER.id)) creators.push({ ...ADMIN_TOKEN_USER })
    return creators.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id))
  }
}

export const flagCreatorRoutes: FastifyPluginAsyncTypebox<{ flagCreators: ReturnType<typeof createFlagCreators> }> = async (
  app,
  { flagCreators },
) => {
  app.get(
    '/projects/:projectId/flag-creators',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Projects'],
        summary: "The users who created the project's active flags",
        description: "Each creator is the author of the flag's feature-created event; an unknown project is a 404.",
        params: ProjectParams,
        response: { 200: FlagCreatorsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => flagCreators(request.params.projectId),
  )
}
