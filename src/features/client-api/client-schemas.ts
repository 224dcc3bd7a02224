import { QueryFlag } from '../../http/common-schemas.ts'
import { Type } from '@sinclair/typebox'
import { ConstraintResponse } from '../segments/segment-schemas.ts'
import { StrategyVariantResponse, VariantResponse } from '../flag-environments/variant-schemas.ts'

const OneOrMany = (description: string) =>
  Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100 })], { description })

export const ClientFeaturesQuery = Type.Object({
  project: Type.Optional(OneOrMany("Only flags of these projects (within the token's)")),
  namePrefix: Type.Optional(Type.String({ maxLength: 1000, description: 'Only flags whose name starts with this' })),
  tag: Type.Optional(OneOrMany('type:value: only flags with one of these tags')),
  environment: Type.Optional(
    Type.String({ maxLength: 1000, description: 'For admin tokens only; a client token reads its own environment' }),
  ),
  inlineSegmentConstraints: Type.Optional(QueryFlag('true: segment constraints inlined whatever the SDK says')),
})

const ClientStrategy = Type.Object({
  name: Type.String(),
  constraints: Type.Array(ConstraintResponse),
  parameters: Type.Record(Type.String(), Type.String()),
  variants: Type.Array(StrategyVariantResponse),
  segments: Type.Optional(Type.Array(Type.Integer(), { description: 'Present when segments are sent apart and the strategy uses some' })),
})

export const ClientFeatureResponse = Type.Object({
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  project: Type.String(),
  stale: Type.Boolean(),
  strategies: Type.Array(ClientStrategy, { description: 'Enabled strategies, in evaluation order' }),
  variants: Type.Array(VariantResponse),
  description: Type.Union([Type.String(), Type.Null()]),
  impressionData: Type.Boolean(),
  dependencies: Type.Optional(
    Type.Array(Type.Object({ feature: Type.String(), enabled: Type.Boolean(), variants: Type.Optional(Type.Array(Type.String())) }), {
      description: 'Its parent, when it has one',
    }),
  ),
})

export const ClientFeaturesResponse = Type.Object({
  version: Type.Literal(2),
  features: Type.Array(ClientFeatureResponse),
  query: Type.Object({
    tag: Type.Optional(Type.Array(Type.Array(Type.String()))),
    project: Type.Optional(Type.Array(Type.String())),
    namePrefix: Type.Optional(Type.String()),
    environment: Type.String(),
    inlineSegmentConstraints: Type.Boolean(),
  }),
  segments: Type.Optional(
    Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), constraints: Type.Array(ConstraintResponse) }), {
      description: 'The segments these flags use, each once',
    }),
  ),
  meta: Type.Object({ revisionId: Type.Integer(), etag: Type.String(), queryHash: Type.String() }),
})

/** `/delta` and `/streaming` take the features filters; segments are always sent apart there. */
export const ClientDeltaQuery = Type.Omit(ClientFeaturesQuery, ['inlineSegmentConstraints'])

const DeltaEvent = Type.Object(
  {
    eventId: Type.Integer({ description: 'The latest event id when the state was read' }),
    type: Type.Unsafe<string>({
      type: 'string',
      enum: ['hydration', 'feature-updated', 'feature-removed', 'segment-updated', 'segment-removed'],
    }),
  },
  {
    additionalProperties: true,
    description:
      'hydration: features, segments; feature-updated: feature; feature-removed: featureName, project; segment-updated: segment; segment-removed: segmentId',
  },
)

export const ClientDeltaResponse = Type.Object({ events: Type.Array(DeltaEvent) })
