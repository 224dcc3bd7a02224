import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { CLIENT_PREFIX, FRONTEND_PREFIX } from '../../http/sdk-pipeline.ts'
import {
  ApplicationsQuery,
  ApplicationsResponse,
  BulkMetricsBody,
  ClientMetricsBody,
  FeatureNameParams,
  FeatureUsageResponse,
  RegisterBody,
} from './metrics-schemas.ts'
import type { Caller, MetricsIngestionService } from './metrics-ingestion-service.ts'
import type { MetricsReadService } from './metrics-read-service.ts'

// Applications a client or frontend token introduces are counted against it, by its name (docs/metrics.md, "Limits").
const caller = (request: FastifyRequest, sdkType: Caller['sdkType'] = 'backend'): Caller => ({
  scope: request.principal.scope,
  token: request.principal.scope === undefined ? null : request.principal.name,
  clientIp: request.ip,
  sdkType,
})

const stored =
  'Answered before the counts are stored: they are added up in memory and written about every second (METRICS_FLUSH_MS), one row per hour, flag, environment and application. ' +
  "Flags that do not exist, or that the token may not read, are ignored. The environment is the token's (an admin token: `environment` in the body, default development). " +
  'What a report may add is limited (new applications, instances, variant names a flag does not have): what is past a limit is dropped (docs/metrics.md, "Limits").'
// Bodies SDKs send while far more is held than written (the database down or too slow): they keep their counts and send them later.
const sdkErrors = errorResponses(400, 401, 403, 413, 415, 429)

/**
 * The largest metrics body taken (or BODY_LIMIT if smaller). The reference takes 100 kB (Express's
 * default), so the SDKs and Edge already send less; a smaller limit bounds what one request of
 * junk costs: a body's parsing costs most for objects of many keys (toggles, variants), about
 * 1 ms of CPU per thousand (docs/reliability.md, "Hostile metrics").
 */
export const METRICS_BODY_LIMIT = 256 * 1024

/** What SDKs post: /api/client (server SDKs, Edge) and /api/frontend (browser and mobile SDKs). */
export const metricsSdkRoutes: FastifyPluginAsyncTypebox<{ metrics: MetricsIngestionService; bodyLimit: number }> = async (
  app,
  { metrics, bodyLimit: configured },
) => {
  const bodyLimit = Math.min(configured, METRICS_BODY_LIMIT)
  app.post(
    `${CLIENT_PREFIX}/metrics`,
    {
      bodyLimit,
      config: { sdkApi: 'client' },
      schema: {
        tags: ['Client API'],
        summary: 'Report how often flags were evaluated in a time window',
        description: stored,
        body: ClientMetricsBody,
        response: { 202: NoContent, ...sdkErrors },
      },
    },
    async (request, reply) => {
      await metrics.reportMetrics(caller(request), request.body)
      return sendEmpty(reply, 202)
    },
  )

  app.post(
    `${CLIENT_PREFIX}/metrics/bulk`,
    {
      bodyLimit,
      config: { sdkApi: 'client' },
      schema: {
        tags: ['Client API'],
        summary: 'Report registrations and counts gathered by Unleash Edge',
        description: `${stored} With a token of one environment, entries of other environments are ignored.`,
        body: BulkMetricsBody,
        response: { 202: NoContent, ...sdkErrors },
      },
    },
    async (request, reply) => {
      await metrics.reportBulk(caller(request), request.body)
      return sendEmpty(reply, 202)
    },
  )

  app.post(
    `${CLIENT_PREFIX}/register`,
    {
      bodyLimit,
      config: { sdkApi: 'client' },
      schema: {
        tags: ['Client API'],
        summary: 'Register an SDK instance: its application, SDK version and strategies',
        description: 'Shown in GET /api/admin/metrics/applications once written (about a second).',
        body: RegisterBody,
        response: { 202: NoContent, ...sdkErrors },
      },
    },
    async (request, reply) => {
      await metrics.register(caller(request), request.body)
      return sendEmpty(reply, 202)
    },
  )

  app.post(
    `${FRONTEND_PREFIX}/client/metrics`,
    {
      bodyLimit,
      config: { sdkApi: 'frontend' },
      schema: {
        tags: ['Frontend API'],
        summary: 'Report how often flags were evaluated in a browser or app',
        description: `${stored} Answers 200, as the reference does on this route.`,
        body: ClientMetricsBody,
        response: { 200: NoContent, ...sdkErrors },
      },
    },
    async (request, reply) => {
      await metrics.reportMetrics(caller(request, 'frontend'), request.body)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    `${FRONTEND_PREFIX}/client/register`,
    {
      bodyLimit,
      config: { sdkApi: 'frontend' },
      schema: {
        tags: ['Frontend API'],
        summary: 'Register a frontend SDK instance',
        description: 'Recorded as a client registration is. Answers 200, as the reference does on this route.',
        body: RegisterBody,
        response: { 200: NoContent, ...sdkErrors },
      },
    },
    async (request, reply) => {
      await metrics.register(caller(request, 'frontend'), request.body)
      return sendEmpty(reply, 200)
    },
  )
}

const tags = ['Metrics']

/** The admin reads of what SDKs reported (permission NONE: any admin-API credential). */
export const metricsAdminRoutes: FastifyPluginAsyncTypebox<{ reads: MetricsReadService }> = async (app, { reads }) => {
  app.get(
    '/metrics/applications',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Applications that registered or reported metrics',
        description: 'By name. `query` keeps the names that contain it; `offset` and `limit` page (at most 1,000).',
        querystring: ApplicationsQuery,
        response: { 200: ApplicationsResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => reads.applications(request.query),
  )

  app.get(
    '/client-metrics/features/:name',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A flag's usage in the last hour, per environment, and the applications that reported it",
        description: 'A flag never reported (or that does not exist) has empty lists, as in the reference.',
        params: FeatureNameParams,
        response: { 200: FeatureUsageResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => reads.featureUsage(request.params.name),
  )
}
