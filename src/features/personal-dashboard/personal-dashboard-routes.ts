import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { personOf } from '../users/profile-routes.ts'
import { PersonalDashboardResponse, PersonalProjectDetailsResponse, PersonalProjectParams } from './personal-dashboard-schemas.ts'
import type { PersonalDashboardService } from './personal-dashboard-service.ts'

const tags = ['Projects']
// The reference answers an API token here with a 500 (a token is no user): Pennon says so with a 404.
const forPeople = 'For signed-in users and their personal access tokens; any other credential is a 404.'

export const personalDashboardRoutes: FastifyPluginAsyncTypebox<{ dashboard: PersonalDashboardService }> = async (app, { dashboard }) => {
  app.get(
    '/personal-dashboard',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "The caller's flags and projects, the projects' owners and the admins",
        description: forPeople,
        response: { 200: PersonalDashboardResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => dashboard.overview({ id: personOf(request.principal), name: request.principal.name }),
  )

  app.get(
    '/personal-dashboard/:projectId',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A project's latest events, owners, onboarding and health, and the caller's roles in it",
        description: `${forPeople} An unknown project is a 404.`,
        params: PersonalProjectParams,
        response: { 200: PersonalProjectDetailsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      dashboard.projectDetails({ id: personOf(request.principal), name: request.principal.name }, request.params.projectId),
  )
}
