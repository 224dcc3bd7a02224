/**
 * What SDKs post (the reference's clientMetricsSchema, clientApplicationSchema, bulkMetricsSchema,
 * frontendApiClientSchema) and what the admin reads answer (applicationsSchema, featureUsageSchema).
 * Fields the SDKs send that Pennon does not keep (connectionId, platformName, impactMetrics, …)
 * are accepted and ignored, as the reference strips them.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'

/** The largest Unix time (seconds) accepted: 9999-12-31T23:59:59Z. */
export const MAX_UNIX_SECONDS = 253_402_300_799

// One schema of two types rather than a union: a wrong value gets one message, not one per branch.
const dateValue = (description = 'An RFC 3339 date-time, or a Unix time in seconds') =>
  Type.Unsafe<string | number>({
    type: ['string', 'integer'],
    format: 'date-time',
    maxLength: 100,
    minimum: 0,
    maximum: MAX_UNIX_SECONDS,
    description,
  })
const DateValue = dateValue()
export type DateValue = Static<typeof DateValue>

/** An object or null, as one schema (the reference's `nullable`): a wrong value gets one message. */
const orNull = <T extends TSchema>(schema: T, description?: string) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: ['object', 'null'], ...(description === undefined ? {} : { description }) })

/** An object of any keys, each value `values`: `additionalProperties` (half the validation time of Type.Record's key pattern). */
const recordOf = <T extends TSchema>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<Record<string, Static<T>>>({ type: 'object', additionalProperties: values, ...options })

const AppName = Type.String({ minLength: 1, maxLength: 255, description: 'The application evaluating flags' })
const InstanceId = Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { description: 'Empty or null: "default"' })
const OptionalText = Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()]))
const Environment = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Read only with an admin token (or AUTH_TYPE=none); a client or frontend token says its own environment',
})
// Counts of one report: far above what an SDK counts in an interval, low enough that an hour's sums stay exact.
const Count = Type.Integer({ minimum: 0, maximum: 2_147_483_647 })

const sdkFields = {
  sdkVersion: OptionalText,
  platformName: OptionalText,
  platformVersion: OptionalText,
  yggdrasilVersion: OptionalText,
  specVersion: OptionalText,
}

export const ToggleCounts = Type.Object({
  yes: Type.Optional(Count),
  no: Type.Optional(Count),
  variants: Type.Optional(orNull(recordOf(Count), 'How many times each variant was returned')),
})
export type ToggleCounts = Static<typeof ToggleCounts>

export const ClientMetricsBody = Type.Object(
  {
    appName: AppName,
    instanceId: Type.Optional(InstanceId),
    environment: Type.Optional(Environment),
    ...sdkFields,
    bucket: Type.Optional(
      orNull(
        Type.Object({
          start: DateValue,
          stop: dateValue('The counts are stored in the hour this falls in (RFC 3339, or Unix seconds)'),
          toggles: recordOf(ToggleCounts, { description: 'Counts per flag name; names that are not flags the token may read are ignored' }),
        }),
        'Absent or null when a report carries impact metrics only',
      ),
    ),
  },
  { description: 'Usage counts of a time window, as unleash-client and unleash-proxy-client post them' },
)
export type ClientMetricsBody = Static<typeof ClientMetricsBody>

// Stored per application and listed 1,000 applications a page: bounded so that a page stays a few MB (strategy names are 1–100 characters).
const Strategies = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: 50,
  description: 'The strategies the SDK implements: at most 50 names of at most 100 characters',
})

export const RegisterBody = Type.Object(
  {
    appName: AppName,
    instanceId: Type.Optional(InstanceId),
    environment: Type.Optional(Environment),
    ...sdkFields,
    interval: Type.Number({ minimum: 0, maximum: 2_147_483_647, description: 'How often the SDK sends metrics, in milliseconds' }),
    started: DateValue,
    strategies: Strategies,
  },
  { description: 'An SDK instance announcing itself at start-up' },
)
export type RegisterBody = Static<typeof RegisterBody>

export const BulkMetricsBody = Type.Object(
  {
    applications: Type.Array(
      Type.Object({
        appName: AppName,
        instanceId: Type.String({ maxLength: 255 }),
        environment: Environment,
        sdkVersion: OptionalText,
        interval: Type.Optional(Type.Number({ minimum: 0, maximum: 2_147_483_647 })),
        started: Type.Optional(DateValue),
        strategies: Type.Optional(Strategies),
      }),
    ),
    metrics: Type.Array(
      Type.Object({
        featureName: Type.String({ maxLength: 255 }),
        appName: AppName,
        environment: Environment,
        timestamp: Type.Optional(dateValue('The counts are stored in the hour this falls in; default: now')),
        yes: Type.Optional(Count),
        no: Type.Optional(Count),
        variants: Type.Optional(orNull(recordOf(Count))),
      }),
    ),
  },
  {
    description:
      "Registrations and usage counts gathered by Unleash Edge (or another relay); entries of other environments than the token's are ignored",
  },
)
export type BulkMetricsBody = Static<typeof BulkMetricsBody>

export const ApplicationsQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the application name (any case)' })),
  offset: Type.Optional(Type.String({ maxLength: 20, description: 'Applications to skip (default 0)' })),
  limit: Type.Optional(Type.String({ maxLength: 20, description: 'Applications in the page, 1–1000 (default 1000)' })),
  sortBy: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted for compatibility: applications are sorted by appName' })),
  sortOrder: Type.Optional(Type.String({ maxLength: 10, description: '"asc" (default) or "desc"' })),
})
export type ApplicationsQuery = Static<typeof ApplicationsQuery>

export const ApplicationsResponse = Type.Object({
  total: Type.Integer({ description: 'Applications matching the query, over every page' }),
  applications: Type.Array(
    Type.Object({
      appName: Type.String(),
      sdkVersion: Type.Optional(Type.String({ description: 'As last registered or reported' })),
      strategies: Type.Array(Type.String(), { description: 'As last registered; empty until the application registers' }),
      description: Type.Optional(Type.String({ description: 'As an admin set it (absent until then)' })),
      url: Type.Optional(Type.String({ description: 'As an admin set it (absent until then)' })),
      color: Type.Optional(Type.String()),
      icon: Type.Optional(Type.String()),
      usage: Type.Array(
        Type.Object({
          project: Type.String({ description: '`*`: a token for every project' }),
          environments: Type.Array(Type.String()),
        }),
      ),
    }),
  ),
})

export const FeatureNameParams = Type.Object({ name: Type.String({ maxLength: 1000 }) })

export const FeatureUsageResponse = Type.Object({
  version: Type.Literal(1),
  maturity: Type.Literal('stable'),
  featureName: Type.String(),
  lastHourUsage: Type.Array(
    Type.Object({
      environment: Type.String(),
      timestamp: Type.String({ format: 'date-time', description: 'The start of the earliest hour counted' }),
      yes: Type.Integer(),
      no: Type.Integer(),
      variants: Type.Record(Type.String(), Type.Integer()),
    }),
    { description: 'Per environment, the counts of the hours that started within the last hour, as stored so far' },
  ),
  seenApplications: Type.Array(Type.String(), { description: 'Applications that reported the flag in the last 24 hours' }),
})
export type FeatureUsageResponse = Static<typeof FeatureUsageResponse>
