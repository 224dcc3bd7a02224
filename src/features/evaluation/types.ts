/**
 * Input and output shapes of flag evaluation. The input is the client API payload
 * (`GET /api/client/features`, also the `state` of each client specification file); only the
 * fields evaluation reads are declared, others may be present and are ignored.
 */

export interface ClientFeaturesPayload {
  version?: number
  features: FeatureDefinition[]
  segments?: SegmentDefinition[]
}

export interface FeatureDefinition {
  name: string
  enabled: boolean
  /** A feature without a strategies array is disabled (the SDK treats it as malformed). */
  strategies?: StrategyDefinition[]
  variants?: VariantDefinition[] | null
  dependencies?: DependencyDefinition[] | null
  impressionData?: boolean
}

export interface StrategyDefinition {
  name: string
  parameters?: Record<string, string | undefined> | null
  constraints?: Array<ConstraintDefinition | null> | null
  /** Ids of segments whose constraints also apply; an unknown id makes the strategy false. */
  segments?: number[] | null
  variants?: VariantDefinition[] | null
  /**
   * Never in what SDKs receive (the server leaves disabled strategies out). A payload made for
   * explaining (the playground) keeps them with `disabled: true`: listed, never evaluated.
   */
  disabled?: boolean
}

export interface ConstraintDefinition {
  contextName: string
  operator: string
  values?: Array<string | null> | null
  value?: string | null
  caseInsensitive?: boolean
  inverted?: boolean
}

export interface SegmentDefinition {
  id: number
  constraints?: ConstraintDefinition[] | null
}

export interface VariantPayload {
  type: string
  value: string
}

export interface VariantDefinition {
  name: string
  /** Already resolved by the server (weightType fix/variable is not evaluated by clients). */
  weight: number
  weightType?: string
  stickiness?: string
  payload?: VariantPayload
  overrides?: Array<{ contextName: string; values: string[] }>
}

export interface DependencyDefinition {
  feature: string
  /** `false` requires the parent to be disabled. */
  enabled?: boolean
  /** When non-empty, the parent's variant must be one of these. */
  variants?: string[]
}

/** An Unleash context. Other fields may be present: lookups read any own field, then `properties`. */
export interface EvaluationContext {
  userId?: string
  sessionId?: string
  remoteAddress?: string
  environment?: string
  appName?: string
  /** What DATE_* constraints compare against; now when absent. */
  currentTime?: Date | string
  properties?: Readonly<Record<string, string | number | null | undefined>>
}

/** A variant as `getVariant` returns it (the SDK's shape; both spellings of the feature state). */
export interface VariantResult {
  readonly name: string
  readonly enabled: boolean
  readonly payload?: VariantPayload
  readonly feature_enabled: boolean
  /** Deprecated spelling, still returned by the SDK and the frontend API. */
  readonly featureEnabled: boolean
}

/** One entry of the frontend API's `toggles` (`frontendApiFeatureSchema`). */
export interface FrontendFeature {
  readonly name: string
  readonly enabled: true
  readonly variant: VariantResult
  readonly impressionData: boolean
}
