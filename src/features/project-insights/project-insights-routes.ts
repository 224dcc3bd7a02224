import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { ProjectParams } from '../projects/project-schemas.ts'
import { OverviewQuery, ProjectDoraResponse, ProjectInsightsResponse, ProjectOverviewResponse } from './project-insights-schemas.ts'
import type { ProjectInsightsService } from './project-insights-service.ts'

const tags = ['Projects']

export const projectInsightsRoutes: FastifyPluginAsyncTypebox<{ insights: ProjectInsightsService }> = async (app, { insights }) => {
  app.get(
    '/projects/:projectId/overview',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A project's overview: its stats, health, members, environments and flag types",
        description: 'Computed when asked. An unknown project is a 404.',
        params: ProjectParams,
        querystring: OverviewQuery,
        response: { 200: ProjectOverviewResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => insights.overview(request.params.projectId, { archived: request.query.archived === 'true' }),
  )

  app.get(
    '/projects/:projectId/insights',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A project's insights: stats, health, lead time to production, flag types and members",
        params: ProjectParams,
        response: { 200: ProjectInsightsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => insights.insights(request.params.projectId),
  )

  app.get(
    '/projects/:projectId/dora',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A project's lead time to production, per release flag and on average",
        description:
          "From the events: a release flag's creation and its first switch-on in a production-type environment after it (archived flags too). Deprecated in the reference in favour of /insights.",
        params: ProjectParams,
        response: { 200: ProjectDoraResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => insights.dora(request.params.projectId),
  )
}
