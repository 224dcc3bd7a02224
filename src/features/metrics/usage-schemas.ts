/**
 * The admin reads of stored usage beyond the last hour: a flag's hourly counts (the reference's
 * featureMetricsSchema) and the names SDKs asked for that are no flags (unknownFlagsResponseSchema).
 */
import { Type, type Static } from '@sinclair/typebox'

export const HOURS_BACK_DEFAULT = 24
export const HOURS_BACK_MAX = 48

export const RawFeatureMetricsQuery = Type.Object({
  hoursBack: Type.Optional(
    Type.String({
      maxLength: 20,
      description: `Hours to show, counting the current one: a whole number from 1 to ${HOURS_BACK_MAX} (default ${HOURS_BACK_DEFAULT})`,
    }),
  ),
})
export type RawFeatureMetricsQuery = Static<typeof RawFeatureMetricsQuery>

export const FeatureEnvironmentMetrics = Type.Object({
  featureName: Type.String(),
  appName: Type.String(),
  environment: Type.String(),
  timestamp: Type.String({ format: 'date-time', description: 'The start of the hour' }),
  yes: Type.Integer({ minimum: 0 }),
  no: Type.Integer({ minimum: 0 }),
  variants: Type.Optional(
    Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Present on hours with stored counts, as the reference' }),
  ),
})

export const RawFeatureMetricsResponse = Type.Object({
  version: Type.Literal(1),
  maturity: Type.Literal('stable'),
  data: Type.Array(FeatureEnvironmentMetrics, {
    description:
      'One entry per environment, application (at most 100) and hour, hours without counts as zeros; by hour, then environment and application',
  }),
})
export type RawFeatureMetricsResponse = Static<typeof RawFeatureMetricsResponse>

export const UnknownFlagsResponse = Type.Object({
  unknownFlags: Type.Array(
    Type.Object({
      name: Type.String(),
      lastSeenAt: Type.String({ format: 'date-time' }),
      lastEventAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'The last event about a flag of this name (a deleted flag), or null',
      }),
      reports: Type.Array(
        Type.Object({
          appName: Type.String(),
          environments: Type.Array(Type.Object({ environment: Type.String(), seenAt: Type.String({ format: 'date-time' }) })),
        }),
      ),
    }),
    { description: 'By name, at most 1,000' },
  ),
})
export type UnknownFlagsResponse = Static<typeof UnknownFlagsResponse>
