import { Type, type Static } from '@sinclair/typebox'

export const FeatureTypeResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  lifetimeDays: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'Days after its creation that a flag of this type is potentially stale; null: never',
  }),
})

export const FeatureTypesResponse = Type.Object({ version: Type.Literal(1), types: Type.Array(FeatureTypeResponse) })

export const FeatureTypeParams = Type.Object({ id: Type.String({ maxLength: 1000 }) })

export const UpdateLifetimeBody = Type.Object({
  // One type keyword for both (allowUnionTypes): one message for a wrong value, where a union gives one per branch.
  lifetimeDays: Type.Unsafe<number | null>({
    type: ['integer', 'null'],
    minimum: 0,
    maximum: 2_147_483_647,
    description: 'null or 0: flags of this type are never potentially stale',
  }),
})
export type UpdateLifetimeBody = Static<typeof UpdateLifetimeBody>
