import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import type { InstanceStatsService } from './instance-stats-service.ts'

const tags = ['Instance Admin']
const Count = Type.Integer({ minimum: 0 })

/** The reference's instanceAdminStatsSchema, with what its route sends beyond it (serviceAccounts, archivedFeatureToggles, …). */
export const InstanceStatsResponse = Type.Object(
  {
    timestamp: Type.String({ format: 'date-time' }),
    instanceId: Type.String({ description: 'This installation: made once by its first migration to 0025' }),
    versionOSS: Type.String({ description: "Pennon's version" }),
    versionEnterprise: Type.String({ description: 'Always empty: Pennon has no enterprise edition (as an open-source reference answers)' }),
    users: Count,
    serviceAccounts: Count,
    apiTokens: Type.Record(Type.String(), Count, { description: 'API tokens by type' }),
    activeUsers: Type.Object(
      { last7: Count, last30: Count, last60: Count, last90: Count },
      { description: 'People seen (sign-in or personal token) in so many days' },
    ),
    licensedUsers: Type.Integer({ minimum: 0, description: 'People with an email' }),
    featureToggles: Count,
    archivedFeatureToggles: Count,
    projects: Count,
    contextFields: Count,
    roles: Type.Integer({ minimum: 0, description: 'Root roles: Admin, Editor, Viewer' }),
    customRootRoles: Count,
    customRootRolesInUse: Count,
    groups: Count,
    environments: Count,
    segments: Count,
    strategies: Type.Integer({ minimum: 0, description: 'Strategy definitions, built-in and custom' }),
    SAMLenabled: Type.Boolean(),
    OIDCenabled: Type.Boolean(),
    passwordAuthEnabled: Type.Boolean(),
    SCIMenabled: Type.Boolean(),
    clientApps: Type.Array(
      Type.Object({ range: Type.Union([Type.Literal('7d'), Type.Literal('30d'), Type.Literal('allTime')]), count: Type.Integer() }),
      { description: 'Applications with an instance seen in the range (instances are kept 48 hours)' },
    ),
    featureExports: Count,
    featureImports: Count,
    productionChanges: Type.Object(
      { last30: Count, last60: Count, last90: Count },
      { description: 'Events in production-type environments' },
    ),
    previousDayMetricsBucketsCount: Type.Object({ enabledCount: Count, variantCount: Count }),
    maxEnvironmentStrategies: Count,
    maxConstraintValues: Count,
    maxConstraints: Count,
    releaseTemplates: Count,
    releasePlans: Count,
    edgeInstanceUsage: Type.Record(Type.String(), Type.Number({ minimum: 0 })),
    readOnlyUsers: Count,
    sum: Type.String({
      description: "SHA-256 of instanceId, users, featureToggles, projects, roles, groups, environments and segments, as the reference's",
    }),
  },
  { additionalProperties: false },
)

const description =
  'Figures about this installation for usage reports: people, tokens, flags, projects, applications, changes in production… Computed on each request. Any admin-API credential (NONE), as the reference.'

export const instanceAdminRoutes: FastifyPluginAsyncTypebox<{ stats: InstanceStatsService }> = async (app, { stats }) => {
  app.get(
    '/instance-admin/statistics',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Instance usage statistics',
        description,
        response: { 200: InstanceStatsResponse, ...errorResponses(401, 403) },
      },
    },
    async () => stats.statistics(),
  )

  app.get(
    '/instance-admin/statistics/csv',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Instance usage statistics as CSV',
        description: `${description} The same figures as one row under a header, as an attachment (text/csv; objects as JSON text).`,
        produces: ['text/csv'],
        response: { 200: Type.String({ description: 'text/csv' }), ...errorResponses(401, 403) },
      },
    },
    async (_request, reply) => {
      const { text, fileName } = await stats.csv()
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`).send(text)
    },
  )
}
