import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { FeatureNameParams } from './metrics-schemas.ts'
import { RawFeatureMetricsQuery, RawFeatureMetricsResponse, UnknownFlagsResponse } from './usage-schemas.ts'
import type { UsageService } from './usage-service.ts'

const tags = ['Metrics']

/** Admin reads of stored usage (permission NONE: any admin-API credential). */
export const usageRoutes: FastifyPluginAsyncTypebox<{ usage: UsageService }> = async (app, { usage }) => {
  app.get(
    '/client-metrics/features/:name/raw',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "A flag's hourly counts per environment and application",
        description:
          'The current hour and the `hoursBack - 1` before it (1–48, default 24, as the reference; anything else is a 400), for each environment and application (at most 100, by name) that reported the flag in them; ' +
          'hours without counts are zeros without `variants`. A flag never reported, or that does not exist, has an empty list (200, as the reference).',
        params: FeatureNameParams,
        querystring: RawFeatureMetricsQuery,
        response: { 200: RawFeatureMetricsResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => usage.rawFeatureMetrics(request.params.name, request.query.hoursBack),
  )

  app.get(
    '/metrics/unknown-flags',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Names SDKs counted in the last 24 hours that are no flags',
        description:
          'By name, with each application and environment that reported the name and when it last did, and the time of the last event about a flag of that name (one since deleted), or null. ' +
          'At most 1,000 names, application and environment pairs are recorded (docs/metrics.md, "Limits"); a name that is a flag now is not listed.',
        response: { 200: UnknownFlagsResponse, ...errorResponses(401, 403) },
      },
    },
    async () => usage.unknownFlags(),
  )
}
