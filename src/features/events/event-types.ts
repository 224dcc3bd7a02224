/**
 * Every event Pennon writes, as one discriminated union on `type`. `data` and
 * `preData` are the API objects (never rows, never secrets).
 */
export interface ProjectData {
  id: string
  name: string
  description: string | null
  createdAt: string
}
export interface FlagData {
  name: string
  description: string | null
  type: string
  project: string
  stale: boolean
  createdAt: string
  impressionData: boolean
  archived: boolean
  archivedAt?: string | null
}
export interface DependencyData {
  feature: string
  enabled?: boolean
  variants?: string[]
}
export interface SegmentData {
  id: number
  name: string
  description: string | null
  project?: string
  constraints: object[]
  createdBy: string
  createdAt: string
}
export interface ApiTokenData {
  tokenName: string
  type: string
  environment: string
  projects: string[]
  expiresAt: string | null
  createdAt: string
}
export interface EnvironmentData {
  name: string
  type: string
  enabled: boolean
  protected: boolean
  sortOrder: number
}
/** Keys in the reference's order. */
export interface StrategyData {
  id: string
  name: string
  constraints: object[]
  parameters: Record<string, string>
  variants: object[]
  segments: number[]
  title: string | null
  disabled: boolean
  sortOrder: number
}
export interface VariantsData {
  variants: object[]
}
/** A strategy definition (GET /api/admin/strategies/:name), keys in the reference's order. */
export interface StrategyDefinitionData {
  title: string | null
  name: string
  displayName: string | null
  description: string | null
  editable: boolean
  deprecated: boolean
  parameters: Array<{ name: string; type: string; description: string; required: boolean }>
}
/** A context field as GET /api/admin/context/:name shows it, keys in the reference's order. */
export interface ContextFieldData {
  name: string
  description: string | null
  stickiness: boolean
  sortOrder: number
  legalValues: Array<{ value: string; description?: string }>
  createdAt: string
  project?: string
}
export interface StrategyOrderData {
  strategyIds: string[]
  sortOrders: number[]
}
export interface FeatureTypeData {
  id: string
  name: string
  description: string
  lifetimeDays: number | null
}
export interface ServiceAccountData {
  id: number
  username: string
  name: string
  rootRole: number
  createdAt: string
}
/** A user in an event, as the reference records one. */
export interface UserEventData {
  id: number
  name: string | null
  username: string | null
  email: string | null
  rootRole: number
}
/** A personal access token in an event (never its secret). */
export interface PatEventData {
  id: number
  description: string
  expiresAt: string
  userId: number
}
export interface ServiceAccountTokenData {
  id: number
  description: string
  expiresAt: string | null
  userId: number
}

/** A setting in an event: its name as `id`, then its value's keys. */
/** A public sign-up token, named by its name: the secret (and the link that carries it) stays out of events. */
export interface SignupTokenData {
  name: string
  enabled: boolean
  expiresAt: string
  createdAt: string
  role: string
}
export interface SettingData {
  id: string
  [key: string]: unknown
}

/** A tag type (GET /api/admin/tag-types/:name), keys in the reference's order. */
/** An integration as its events carry it: everything but its parameters (secrets among them). */
export interface AddonData {
  id: number
  provider: string
  enabled: boolean
  description: string | null
  events: string[]
  projects: string[]
  environments: string[]
  createdAt: string
}
export interface TagTypeData {
  name: string
  description: string | null
  icon: string | null
  color: string | null
}
/** A tag, as the tag routes show it. */
export interface TagData {
  type: string
  value: string
}
/** A flag's link in its events, as the reference writes it: `title` only when it has one. */
export interface LinkData {
  url: string
  title?: string
}
/** A protected environment's setting (change-requests/settings-service.ts). */
export interface ChangeRequestConfigData {
  changeRequestsEnabled: boolean
  requiredApprovals: number
}
/** A change request event: the request's id (as the reference's formatters read it) and the state it is in. */
export interface ChangeRequestEventData {
  changeRequestId: number
  state: string
  /** A scheduled request's time (its scheduling, its apply), and when it was applied or failed. */
  scheduledAt?: string
  appliedAt?: string
  failedAt?: string
  /** Why a scheduled apply failed, or why the schedule was suspended. */
  reason?: string
}
/** A change added to or discarded from a request. */
export interface ChangeEventData {
  changeRequestId: number
  change: { id: number; action: string; payload: unknown }
}
/** A flag marked completed (POST …/lifecycle/complete), as the reference records it. */
export interface LifecycleCompletedData {
  status: 'kept' | 'discarded'
  statusValue?: string
  kept: boolean
}
/** A tag in an event's `tags`, keys in the reference's order there. */
export interface EventTag {
  value: string
  type: string
}

interface Base {
  featureName?: string | null
  project?: string | null
  environment?: string | null
  /**
   * An event about a flag records the flag's tags (appendEvents reads those it has when the event
   * is written); these instead, where they are gone by then (a flag deleted for good).
   */
  tags?: readonly EventTag[]
}

export type NewEvent = Base &
  (
    | { type: 'project-created'; data: ProjectData }
    | { type: 'project-deleted'; preData: ProjectData }
    | { type: 'feature-created'; data: FlagData }
    | { type: 'feature-archived' | 'feature-revived' | 'feature-dependencies-removed' }
    | { type: 'feature-deleted'; preData: FlagData }
    | { type: 'feature-metadata-updated'; data: FlagData; preData: FlagData }
    | { type: 'feature-stale-on' | 'feature-stale-off' }
    // Written by the system's periodic scan (flags/potentially-stale-scan.ts).
    | { type: 'feature-potentially-stale-on' }
    | { type: 'feature-completed'; data: LifecycleCompletedData }
    | { type: 'feature-uncompleted' }
    // As the reference records them: the flag's name (no project) or the project's id in data.
    | { type: 'feature-favorited' | 'feature-unfavorited'; data: { feature: string } }
    | { type: 'project-favorited' | 'project-unfavorited'; data: { project: string } }
    | { type: 'feature-type-updated'; data: FeatureTypeData; preData: FeatureTypeData }
    | { type: 'project-updated'; data: ProjectData; preData: ProjectData }
    | { type: 'feature-dependency-added' | 'feature-dependency-removed'; data: DependencyData }
    | { type: 'environment-created'; data: EnvironmentData }
    | { type: 'environment-updated'; data: EnvironmentData; preData: EnvironmentData }
    | { type: 'project-environment-added' | 'project-environment-removed' }
    // A project's default strategy in an environment, as it was sent (flag-environments/default-strategy-service.ts).
    | { type: 'default-strategy-updated'; data: object; preData: object | null }
    | { type: 'feature-environment-enabled' | 'feature-environment-disabled' }
    | { type: 'feature-strategy-add'; data: StrategyData }
    | { type: 'feature-strategy-update'; data: StrategyData; preData: StrategyData }
    | { type: 'feature-strategy-remove'; preData: StrategyData }
    | { type: 'strategy-order-changed'; data: StrategyOrderData; preData: StrategyOrderData }
    | { type: 'strategy-created'; data: StrategyDefinitionData }
    | { type: 'strategy-updated'; data: StrategyDefinitionData; preData: StrategyDefinitionData }
    | { type: 'strategy-deleted'; data: { name: string }; preData: StrategyDefinitionData }
    | { type: 'strategy-deprecated' | 'strategy-reactivated'; data: { name: string } }
    | { type: 'feature-environment-variants-updated'; data: VariantsData; preData: VariantsData }
    | { type: 'segment-created'; data: SegmentData }
    | { type: 'segment-updated'; data: SegmentData; preData: SegmentData }
    | { type: 'segment-deleted'; preData: SegmentData }
    | { type: 'api-token-created'; data: ApiTokenData }
    | { type: 'api-token-deleted'; preData: ApiTokenData }
    | { type: 'api-token-updated'; data: ApiTokenData; preData: ApiTokenData }
    | { type: 'service-account-created'; data: ServiceAccountData }
    | { type: 'service-account-deleted'; preData: ServiceAccountData }
    | { type: 'service-account-token-created'; data: ServiceAccountTokenData }
    | { type: 'user-created'; data: UserEventData }
    | { type: 'user-updated'; data: UserEventData; preData: UserEventData }
    | { type: 'user-deleted'; preData: UserEventData }
    | { type: 'public-signup-token-created'; data: SignupTokenData }
    | { type: 'public-signup-token-updated'; data: SignupTokenData; preData: SignupTokenData }
    | { type: 'public-signup-token-user-added'; data: { name: string; userId: number } }
    | { type: 'pat-created'; data: PatEventData }
    // As the reference: the deleted token in data.
    | { type: 'pat-deleted'; data: PatEventData }
    | { type: 'context-field-created'; data: ContextFieldData }
    | { type: 'context-field-updated'; data: ContextFieldData; preData: ContextFieldData }
    | { type: 'context-field-deleted'; preData: ContextFieldData }
    | { type: 'tag-type-created'; data: TagTypeData }
    | { type: 'tag-type-updated'; data: TagTypeData; preData: TagTypeData }
    | { type: 'tag-type-deleted'; preData: TagTypeData }
    | { type: 'addon-config-created'; data: AddonData }
    | { type: 'addon-config-updated'; data: AddonData; preData: AddonData }
    | { type: 'addon-config-deleted'; preData: AddonData }
    | { type: 'tag-created' | 'tag-deleted'; data: TagData }
    | { type: 'feature-tagged'; data: TagData }
    | { type: 'feature-untagged'; preData: TagData }
    | { type: 'feature-link-added'; data: LinkData }
    | { type: 'feature-link-updated'; data: LinkData; preData: LinkData }
    | { type: 'feature-link-removed'; preData: LinkData }
    // Closes an import's events (POST /features-batch/import): its project and environment.
    | { type: 'features-imported' }
    // A server-wide setting (maintenance mode), as the reference records it: data `{id, …value}`, preData the value before.
    | { type: 'setting-created'; data: SettingData }
    | { type: 'setting-updated'; data: SettingData; preData: object }
    // Change requests (docs/change-requests.md): project and environment set; changes name their flag.
    | { type: 'change-request-configuration-updated'; data: ChangeRequestConfigData; preData: ChangeRequestConfigData }
    | {
        type:
          | 'change-request-created'
          | 'change-request-discarded'
          | 'change-request-sent-to-review'
          | 'change-request-approval-added'
          | 'change-request-approved'
          | 'change-request-rejected'
          | 'change-request-cancelled'
          | 'change-request-applied'
          | 'change-request-scheduled'
          | 'change-request-scheduled-application-success'
          | 'change-request-scheduled-application-failure'
          | 'change-request-schedule-suspended'
        data: ChangeRequestEventData
      }
    | { type: 'change-added' | 'change-edited' | 'change-discarded'; data: ChangeEventData }
  )

export type EventType = NewEvent['type']
