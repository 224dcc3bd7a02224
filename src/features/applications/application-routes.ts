import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import {
  AppEnvironmentParams,
  AppNameParams,
  ApplicationResponse,
  CreateApplicationBody,
  CreateAppParams,
  EnvironmentInstancesResponse,
  OutdatedSdksResponse,
  OverviewResponse,
  ProjectApplicationsQuery,
  ProjectApplicationsResponse,
  ProjectParams,
} from './application-schemas.ts'
import type { ApplicationService } from './application-service.ts'

const tags = ['Metrics']

/** What SDKs recorded about applications (reads: permission NONE, any admin-API credential), and an admin's changes. */
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

  app.post(
    '/metrics/applications/:appName',
    {
      config: { permission: 'UPDATE_APPLICATION' },
      schema: {
        tags,
        summary: 'Create an application, or update its strategies, link, colour or icon',
        description:
          'Absent fields keep their value. It counts as seen now (and expires as reported ones do, 48 hours after); a new one is used by `*` projects in `*` environments. No event, as the reference.',
        params: CreateAppParams,
        body: CreateApplicationBody,
        response: { 202: NoContent, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      await applications.save(request.params.appName, request.body)
      return sendEmpty(reply, 202)
    },
  )

  app.delete(
    '/metrics/applications/:appName',
    {
      config: { permission: 'UPDATE_APPLICATION' },
      schema: {
        tags,
        summary: 'Delete an application, its instances and usage',
        description: 'A 200 whether it existed or not, as the reference. Its counts stay until they expire. No event.',
        params: AppNameParams,
        response: { 200: NoContent, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      await applications.remove(request.params.appName)
      return sendEmpty(reply, 200)
    },
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
    '/metrics/sdks/outdated',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'SDK versions that should be upgraded, with the applications using them',
        description:
          "Versions older than the reference's minimum for their SDK (the SDKs it knows: unleash-node-sdk, unleash-client-java, …), as the instances stored report them.",
        response: { 200: OutdatedSdksResponse, ...errorResponses(401, 403) },
      },
    },
    async () => applications.outdatedSdks(),
  )

  app.get(
    '/projects/:projectId/sdks/outdated',
    {
      config: { permission: 'NONE' },
      schema: {
        tags: ['Projects'],
        summary: "Outdated SDK versions of the applications that reported the project's flags",
        params: ProjectParams,
        response: { 200: OutdatedSdksResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => applications.outdatedSdks(request.params.projectId),
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
