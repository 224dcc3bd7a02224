/**
 * The playground's bodies: the reference's playgroundRequestSchema / advancedPlaygroundRequestSchema
 * in, playgroundResponseSchema / advancedPlaygroundResponseSchema out, with Pennon's additions
 * (`result.rollout`, `explanation`). Answers are written as JSON text as they are evaluated
 * (playground-service.ts), so the response schemas document them; they are not re-serialized.
 */
import { Type, type Static } from '@sinclair/typebox'
import { VariantResponse } from '../flag-environments/variant-schemas.ts'

const ContextText = Type.String({ maxLength: 10_000 })

export const SdkContext = Type.Object(
  {
    appName: Type.String({ minLength: 1, maxLength: 10_000 }),
    currentTime: Type.Optional(
      Type.String({
        format: 'date-time',
        maxLength: 100,
        description: 'What DATE_* constraints compare with; the time of the request when absent',
      }),
    ),
    environment: Type.Optional(
      Type.String({ maxLength: 10_000, description: "The context field (default: `default`, the SDK's), not the environment evaluated" }),
    ),
    properties: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), ContextText, { maxProperties: 1000 })),
    remoteAddress: Type.Optional(ContextText),
    sessionId: Type.Optional(ContextText),
    userId: Type.Optional(ContextText),
  },
  { additionalProperties: true, maxProperties: 1000, description: 'Other fields are context fields too; only text values are evaluated' },
)
export type SdkContext = Static<typeof SdkContext>

const Projects = Type.Union([Type.Array(Type.String({ maxLength: 100 }), { maxItems: 1000 }), Type.Literal('*')], {
  description: 'Project ids, or `*` (the default): every project',
})

export const PlaygroundBody = Type.Object({
  environment: Type.String({ minLength: 1, maxLength: 100 }),
  projects: Type.Optional(Projects),
  context: SdkContext,
})
export type PlaygroundBody = Static<typeof PlaygroundBody>

export const AdvancedPlaygroundBody = Type.Object({
  environments: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-zA-Z0-9~_.-]+$' }), { minItems: 1, maxItems: 100 }),
  projects: Type.Optional(Projects),
  context: Type.Object(SdkContext.properties, {
    additionalProperties: true,
    maxProperties: 1000,
    description: 'Each text field and property may hold several values separated by commas: every combination is evaluated',
  }),
})
export type AdvancedPlaygroundBody = Static<typeof AdvancedPlaygroundBody>

const Payload = Type.Object({ type: Type.String(), value: Type.String() })

const Variant = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean(),
  payload: Type.Optional(Payload),
  feature_enabled: Type.Boolean(),
  featureEnabled: Type.Boolean({ description: 'Deprecated spelling of feature_enabled' }),
})

const PlaygroundConstraint = Type.Object({
  contextName: Type.String(),
  operator: Type.String(),
  caseInsensitive: Type.Boolean(),
  inverted: Type.Boolean(),
  values: Type.Array(Type.String()),
  value: Type.Optional(Type.String()),
  result: Type.Boolean({ description: "The constraint's answer for the context (inverted included)" }),
})

const PlaygroundSegment = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  result: Type.Boolean({ description: 'All its constraints hold' }),
  constraints: Type.Array(PlaygroundConstraint),
})

const Rollout = Type.Object(
  {
    percentage: Type.Union([Type.Number(), Type.Null()]),
    groupId: Type.String(),
    stickiness: Type.String({ description: 'The field whose value was bucketed (`default` resolved to userId or sessionId), or `random`' }),
    value: Type.Union([Type.String(), Type.Null()], {
      description: 'That value (a random one for `random`); null when the context has none: the rollout is false',
    }),
    bucket: Type.Union([Type.Integer(), Type.Null()], {
      description: '1–100; the rollout holds when bucket ≤ percentage (and percentage > 0)',
    }),
  },
  { description: "Pennon's addition, on flexibleRollout and the gradualRollout* strategies" },
)

const StrategyResult = Type.Object(
  {
    evaluationStatus: Type.Union([Type.Literal('complete'), Type.Literal('incomplete'), Type.Literal('unevaluated')]),
    enabled: Type.Unsafe<boolean | 'unknown'>({
      type: ['boolean', 'string'],
      description: 'true, false, or `unknown` (incomplete or unevaluated)',
    }),
    variant: Type.Optional(Type.Object({ name: Type.String(), enabled: Type.Boolean(), payload: Type.Optional(Payload) })),
    variants: Type.Optional(Type.Array(VariantResponse)),
    rollout: Type.Optional(Rollout),
  },
  {
    description:
      'complete: evaluated (variant and variants when its variants chose one); incomplete: a custom strategy the server cannot evaluate, `unknown` when its constraints and segments hold; unevaluated: a disabled strategy',
  },
)

const PlaygroundStrategy = Type.Object({
  name: Type.String(),
  id: Type.String(),
  title: Type.Optional(Type.String()),
  disabled: Type.Boolean(),
  parameters: Type.Record(Type.String(), Type.String()),
  result: StrategyResult,
  constraints: Type.Array(PlaygroundConstraint),
  segments: Type.Array(PlaygroundSegment),
  links: Type.Object({ edit: Type.String() }),
})

const VariantChoice = {
  override: Type.Optional(Type.Object({ contextName: Type.String(), value: Type.String() }, { description: 'The override that matched' })),
  stickiness: Type.Optional(Type.String({ description: 'Otherwise: the field hashed, or `random`' })),
  value: Type.Optional(Type.String()),
  bucket: Type.Optional(Type.Integer({ description: '1..totalWeight: the first variant whose cumulative weight reaches it is chosen' })),
  totalWeight: Type.Integer(),
}

const Explanation = Type.Object(
  {
    enabledBy: Type.Union([Type.String(), Type.Null()], {
      description: 'The id of the strategy that enables the flag: the first whose constraints, segments and rule hold',
    }),
    dependency: Type.Union([
      Type.Object({
        feature: Type.String({ description: 'The parent' }),
        enabled: Type.Boolean({ description: 'Whether the parent must be enabled (false: disabled)' }),
        variants: Type.Optional(Type.Array(Type.String(), { description: 'The parent must have one of these variants' })),
        parentEnabled: Type.Union([Type.Boolean(), Type.Null()]),
        parentVariant: Type.Optional(Type.String()),
        satisfied: Type.Boolean(),
      }),
      Type.Null(),
    ]),
    variant: Type.Union(
      [
        Type.Object({
          source: Type.Union([Type.Literal('strategy'), Type.Literal('environment')]),
          strategyId: Type.Optional(Type.String()),
          ...VariantChoice,
        }),
        Type.Null(),
      ],
      { description: 'How the variant was chosen, when the flag is enabled and a variant was' },
    ),
  },
  { description: "Pennon's addition: why the flag is what it is" },
)

const featureProperties = {
  isEnabled: Type.Boolean(),
  isEnabledInCurrentEnvironment: Type.Boolean(),
  hasUnsatisfiedDependency: Type.Boolean(),
  variant: Variant,
  variants: Type.Array(VariantResponse),
  name: Type.String(),
  projectId: Type.String(),
  strategies: Type.Object({
    result: Type.Unsafe<boolean | 'unknown'>({ type: ['boolean', 'string'] }),
    data: Type.Array(PlaygroundStrategy),
  }),
  explanation: Explanation,
}

export const PlaygroundResponse = Type.Object({
  input: PlaygroundBody,
  features: Type.Array(Type.Object(featureProperties), { description: 'Every flag of the projects, by name' }),
})

const { variants, name, ...beforeVariants } = featureProperties
const AdvancedEnvironmentFeature = Type.Object({
  ...beforeVariants,
  context: Type.Record(Type.String(), Type.String(), {
    description: 'The combination evaluated (sdkFlatContextSchema: properties among the fields)',
  }),
  variants,
  name,
  environment: Type.String(),
})

export const AdvancedPlaygroundResponse = Type.Object({
  features: Type.Array(
    Type.Object({
      name: Type.String(),
      projectId: Type.String(),
      environments: Type.Record(Type.String(), Type.Array(AdvancedEnvironmentFeature), {
        description: 'Per environment, one entry per context combination',
      }),
    }),
  ),
  input: AdvancedPlaygroundBody,
  warnings: Type.Optional(Type.Object({ invalidContextProperties: Type.Array(Type.String()) })),
})
