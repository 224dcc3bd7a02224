import { Type, type Static } from '@sinclair/typebox'
import { PARAMETER_TYPES, type ParameterType } from './strategy-definitions.ts'

// Path parameters are bounded but not checked further: an unknown name is a 404, not a 400.
const PathName = Type.String({ maxLength: 1000 })

export const DefinitionParams = Type.Object({ name: PathName })
/** The reference names the path parameter of deprecate and reactivate `strategyName`. */
export const DeprecationParams = Type.Object({ strategyName: PathName })

const ParameterBody = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 255,
    description: "Unique among the parameters: the key of a flag strategy's `parameters`",
  }),
  type: Type.Unsafe<ParameterType>({ type: 'string', enum: [...PARAMETER_TYPES] }),
  description: Type.Optional(Type.String({ maxLength: 1000, default: '' })),
  required: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Shown to people configuring the strategy; not enforced on flag strategies (as the reference)',
    }),
  ),
})

const Parameters = Type.Array(ParameterBody, { maxItems: 100 })
const Title = Type.Union([Type.String({ maxLength: 255 }), Type.Null()])
const Description = Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])

export const CreateStrategyDefinitionBody = Type.Object({
  name: Type.String({ maxLength: 1000, description: 'URL-friendly, 1–100 characters, unique among the strategies (built-in ones too)' }),
  title: Type.Optional(Title),
  description: Type.Optional(Description),
  parameters: Parameters,
  editable: Type.Optional(Type.Boolean({ description: 'Accepted and ignored, as the reference: a custom strategy is always editable' })),
  deprecated: Type.Optional(
    Type.Boolean({ description: 'Accepted and ignored, as the reference: a new strategy is active (POST …/deprecate deprecates it)' }),
  ),
})
export type CreateStrategyDefinitionBody = Static<typeof CreateStrategyDefinitionBody>

/** PUT, as the reference: `parameters` are replaced; `title` and `description` are kept when not sent (`null` clears them). */
export const UpdateStrategyDefinitionBody = Type.Object({
  title: Type.Optional(Title),
  description: Type.Optional(Description),
  parameters: Parameters,
})
export type UpdateStrategyDefinitionBody = Static<typeof UpdateStrategyDefinitionBody>

export const StrategyDefinitionResponse = Type.Object({
  title: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  displayName: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  editable: Type.Boolean({ description: 'false: built in (it can only be deprecated and reactivated)' }),
  deprecated: Type.Boolean({ description: 'Still accepted on flags, as the reference' }),
  parameters: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), description: Type.String(), required: Type.Boolean() })),
})

export const StrategyDefinitionListResponse = Type.Object({ version: Type.Literal(1), strategies: Type.Array(StrategyDefinitionResponse) })
