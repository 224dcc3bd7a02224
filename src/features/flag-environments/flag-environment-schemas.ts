import { Type } from '@sinclair/typebox'
import { StrategyResponse } from './strategy-schemas.ts'
import { VariantResponse, VariantsBody } from './variant-schemas.ts'

const PathName = Type.String({ maxLength: 1000 })
export const FeatureEnvironmentParams = Type.Object({ projectId: PathName, featureName: PathName, environment: PathName })
export const BulkParams = Type.Object({ projectId: PathName, environment: PathName })
export const FeatureParams = Type.Object({ projectId: PathName, featureName: PathName })
export const ParentParams = Type.Object({ projectId: PathName, parent: PathName })

/** PUT …/variants-batch (the reference's pushVariantsSchema). */
export const PushVariantsBody = Type.Object({
  variants: Type.Optional(VariantsBody),
  environments: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description: 'At least one' })),
})

export const FeatureEnvironmentResponse = Type.Object({
  name: Type.String(),
  lastSeenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When SDK metrics last counted the flag in this environment (written about every second); null if never',
  }),
  enabled: Type.Boolean(),
  type: Type.String(),
  sortOrder: Type.Integer(),
  variantCount: Type.Integer(),
  strategies: Type.Array(StrategyResponse),
  variants: Type.Array(VariantResponse),
  hasStrategies: Type.Boolean(),
  hasEnabledStrategies: Type.Boolean(),
})

export const FeatureEnvironmentDetails = Type.Object({
  ...FeatureEnvironmentResponse.properties,
  environment: Type.String(),
  featureName: Type.String(),
})
export const VariantsResponse = Type.Object({ version: Type.Literal(1), variants: Type.Array(VariantResponse) })
