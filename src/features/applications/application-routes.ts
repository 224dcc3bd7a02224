import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import {
  AppEnvironmentParams,
  AppNameParams,
  ApplicationResponse,
  EnvironmentInstancesResponse,
  OverviewResponse,
  ProjectApplicationsQuery,
  ProjectApplicationsResponse,
  ProjectParams,
} from './application-schemas.ts'
import type { ApplicationService } from './application-service.ts'

const tags = ['Metrics']

/** What SDKs recorded about applications (permission NONE: any admin-API credential). */
export const applicationRoutes: FastifyPluginAsyncTypebox<{ applications: ApplicationService }> = async (app, { applications }) => {
  app.get(
    '/metrics/applications/:appName',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'An application: its SDK, strategies, usage, instances and the flags it reported',
        description: 'An application no SDK recorded (or expired, 48 hours after its last report) is a 404.',
        params: AppNameParams,
        response: { 200: ApplicationResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => applications.application(request.params.appName),
  )

  app.get(
    '/metrics/applications/:appName/overview',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "An application's projects, flag count and, per environment, instances, SDKs and issues",
        params: AppNameParams,
        response: { 200: OverviewResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => applications.overview(request.params.appName),
  )

  app.get(
    '/metrics/instances/:appName/environment/:environment',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "An application's instances in one environment seen in the last 24 hours",
        description: 'The latest seen first. An unknown application or environment has none (200, as the reference).',
        params: AppEnvironmentParams,
        response: { 200: EnvironmentInstancesResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => applications.environmentInstances(request.params.appName, request.params.environment),
  )

  app.get(
    '/projects/:projectId/applications',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Projects'],
        summary: "Applications whose SDKs reported the project's flags",
        description:
          'By name (`sortOrder=desc` reverses). `query`: comma-separated terms matched, in any case, against the name, environments, instance ids and SDK versions. `offset` (default 0) and `limit` (default 50, at most 100) page.',
        params: ProjectParams,
        querystring: ProjectApplicationsQuery,
        response: { 200: ProjectApplicationsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => applications.projectApplications(request.params.projectId, request.query),
  )
}
