import { Type, type Static } from '@sinclair/typebox'
import { ConstraintBody, ConstraintResponse } from '../segments/segment-schemas.ts'
import { StrategyVariantBody, StrategyVariantResponse } from './variant-schemas.ts'

// Path parameters are bounded but not checked further: an unknown name is a 404, not a 400.
const PathName = Type.String({ maxLength: 1000 })

export const StrategyParams = Type.Object({ projectId: PathName, featureName: PathName, environment: PathName, strategyId: PathName })

const Parameters = Type.Record(Type.String({ maxLength: 255 }), Type.Union([Type.String({ maxLength: 100_000 }), Type.Number()]), {
  maxProperties: 100,
  description:
    'Stored as strings; a number is stored as its text. flexibleRollout: rollout 0–100 (default 100), stickiness (default "default"), groupId (default the flag name)',
})

const strategyFields = {
  title: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  disabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'A disabled strategy is kept but not evaluated' })),
  sortOrder: Type.Optional(
    Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'Lower first; defaults to after the last' }),
  ),
  constraints: Type.Optional(Type.Array(ConstraintBody, { description: 'All must hold; at most SEGMENT_VALUES_LIMIT values in all' })),
  variants: Type.Optional(Type.Array(StrategyVariantBody, { maxItems: 1000 })),
  parameters: Type.Optional(Parameters),
  segments: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
      maxItems: 1000,
      description: 'Ids of existing segments; all must hold',
    }),
  ),
}

export const CreateStrategyBody = Type.Object({
  name: Type.String({ maxLength: 255, description: 'A known strategy name (GET /api/admin/strategies)' }),
  ...strategyFields,
})
export type CreateStrategyBody = Static<typeof CreateStrategyBody>

/**
 * PUT, as the reference: constraints, variants and parameters are replaced (not sent: none, or a
 * flexible rollout's defaults); name, title, disabled, segments and sortOrder are kept when not sent.
 */
export const UpdateStrategyBody = Type.Object({ name: Type.Optional(CreateStrategyBody.properties.name), ...strategyFields })
export type UpdateStrategyBody = Static<typeof UpdateStrategyBody>

export const SortOrderBody = Type.Array(
  Type.Object(
    { id: Type.String({ maxLength: 255 }), sortOrder: Type.Integer({ minimum: -2147483648, maximum: 2147483647 }) },
    { additionalProperties: false },
  ),
  { maxItems: 10_000 },
)
export type SortOrderBody = Static<typeof SortOrderBody>

export const StrategyResponse = Type.Object({
  id: Type.String({ description: 'A ULID' }),
  name: Type.String(),
  constraints: Type.Array(ConstraintResponse),
  parameters: Type.Record(Type.String(), Type.String()),
  variants: Type.Array(StrategyVariantResponse),
  segments: Type.Array(Type.Integer(), { description: 'Segment ids, ascending' }),
  title: Type.Union([Type.String(), Type.Null()]),
  disabled: Type.Boolean(),
  sortOrder: Type.Integer(),
})

export const StrategyListResponse = Type.Array(StrategyResponse)
