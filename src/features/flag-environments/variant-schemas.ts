import { Type } from '@sinclair/typebox'
import { PAYLOAD_TYPES, TOTAL_WEIGHT, WEIGHT_TYPES, type VariantPayload } from './variant-rules.ts'

const Payload = Type.Object(
  {
    type: Type.Unsafe<VariantPayload['type']>({ type: 'string', enum: [...PAYLOAD_TYPES] }),
    value: Type.String({ maxLength: 100_000, description: '"json": valid JSON; "number": a finite number' }),
  },
  { additionalProperties: false, description: 'Extra data sent with the variant' },
)

const variantProperties = {
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Unique among the variants of the list' }),
  weight: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: TOTAL_WEIGHT,
      description: 'Per mille. Kept for "fix" variants; "variable" ones share what the fixed leave of 1000',
    }),
  ),
  weightType: Type.Optional(Type.Unsafe<(typeof WEIGHT_TYPES)[number]>({ type: 'string', enum: [...WEIGHT_TYPES], default: 'variable' })),
  stickiness: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      default: 'default',
      description: 'default, userId, sessionId, random, or a context field',
    }),
  ),
  payload: Type.Optional(Payload),
}

/** A variant of a flag's environment: may override the choice for listed context values. */
export const VariantBody = Type.Object(
  {
    ...variantProperties,
    overrides: Type.Optional(
      Type.Array(
        Type.Object(
          {
            contextName: Type.String({ minLength: 1, maxLength: 255 }),
            values: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    ),
  },
  { additionalProperties: false },
)

export const VariantsBody = Type.Array(VariantBody, { maxItems: 1000 })

/** A variant of a strategy (the way the reference prefers): no overrides. */
export const StrategyVariantBody = Type.Object(variantProperties, { additionalProperties: false })

const PayloadResponse = Type.Object({ type: Type.String(), value: Type.String() })

export const StrategyVariantResponse = Type.Object({
  name: Type.String(),
  weight: Type.Integer(),
  weightType: Type.String(),
  stickiness: Type.String(),
  payload: Type.Optional(PayloadResponse),
})

export const VariantResponse = Type.Object({
  ...StrategyVariantResponse.properties,
  overrides: Type.Optional(
    Type.Array(Type.Object({ contextName: Type.String(), values: Type.Array(Type.String()) }), {
      description: 'Always present on environment variants',
    }),
  ),
})
