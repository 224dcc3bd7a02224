/**
 * Row types of every table. Timestamps come back as ISO-8601 strings and JSON
 * columns as text on both databases (see database.ts), so stores map rows the
 * same way whatever the dialect. Booleans are 0/1 on SQLite, hence `boolean | number`.
 */

import type { ColumnType, Generated } from 'kysely'
type Bool = boolean | number
type Timestamp = string

export interface ProjectsTable {
  id: string
  name: string
  description: string | null
  created_at: Timestamp
}

export interface FeaturesTable {
  name: string
  project: string
  description: string | null
  type: string
  stale: Bool
  impression_data: Bool
  created_at: Timestamp
  archived_at: Timestamp | null
  /** Marked potentially stale by the periodic scan, with its event (migration 0017); reads compute their own. */
  potentially_stale: Generated<Bool>
}

/** One row per child: a child has at most one parent (the primary key says so). */
export interface FeatureDependenciesTable {
  child: string
  parent: string
  enabled: Bool
  /** JSON text: string[] */
  variants: string
}

export interface SegmentsTable {
  id: number
  name: string
  description: string | null
  project: string | null
  /** JSON text: the constraints exactly as echoed by the API */
  constraints: string
  created_by: string
  created_at: Timestamp
}

export interface ApiTokensTable {
  /** SHA-256 of the secret, hex; the secret itself is never stored. */
  secret_hash: string
  token_name: string
  type: string
  environment: string
  /** JSON text: string[] */
  projects: string
  expires_at: Timestamp | null
  created_at: Timestamp
}

export interface ServiceAccountsTable {
  id: number
  username: string
  name: string
  root_role: number
  created_at: Timestamp
}

export interface ServiceAccountTokensTable {
  id: number
  service_account_id: number
  description: string
  secret_hash: string
  expires_at: Timestamp | null
  created_at: Timestamp
}

export interface UsersTable {
  id: number
  name: string | null
  username: string | null
  /** Lower case. */
  email: string | null
  /** password.ts's encoding; null until the user sets a password. */
  password_hash: string | null
  root_role: number
  created_at: Timestamp
}

/** Sign-in bookkeeping of a user (a row once they tried to sign in). */
export interface UserActivityTable {
  user_id: number
  /** Failed sign-ins since the last successful one. */
  login_attempts: number
  /** The last sign-in. */
  seen_at: Timestamp | null
}

export interface UserSessionsTable {
  /** SHA-256 of the cookie's secret, hex. */
  secret_hash: string
  user_id: number
  created_at: Timestamp
  seen_at: Timestamp
  /** The absolute end, whatever the activity. */
  expires_at: Timestamp
}

export interface PersonalAccessTokensTable {
  id: number
  user_id: number
  description: string
  secret_hash: string
  expires_at: Timestamp
  seen_at: Timestamp | null
  created_at: Timestamp
}

export interface PasswordResetTokensTable {
  secret_hash: string
  user_id: number
  created_by: string
  expires_at: Timestamp
  created_at: Timestamp
}

/** Public sign-up tokens (migration 0026): the secret as is, since admins are shown every token's link. */
export interface PublicSignupTokensTable {
  secret: string
  name: string
  url: string
  role_id: number
  enabled: Bool
  expires_at: Timestamp
  created_at: Timestamp
  created_by: string | null
}

/** Who signed up with which public sign-up token. */
export interface PublicSignupTokensUserTable {
  secret: string
  user_id: number
  created_at: Timestamp
}

export interface EventsTable {
  id: number
  type: string
  created_by: string
  created_by_user_id: number
  created_at: Timestamp
  feature_name: string | null
  project: string | null
  environment: string | null
  group_type: string
  group_id: string
  /** The complete event object serialized once at write time (events never change). */
  json: string
}

export interface EnvironmentsTable {
  name: string
  type: string
  sort_order: number
  enabled: Bool
  protected: Bool
  created_at: Timestamp
}

export interface ProjectEnvironmentsTable {
  project: string
  environment: string
  /** The strategy switching a flag on adds where it has none (JSON text, as sent); null: the built-in one. */
  default_strategy: ColumnType<string | null, string | null | undefined, string | null>
}

/** A flag's state in one environment of its project: a row per environment of the project. */
export interface FeatureEnvironmentsTable {
  feature: string
  environment: string
  enabled: Bool
  /** JSON text: the environment's variants */
  variants: string
}

export interface FeatureStrategiesTable {
  /** A ULID */
  id: string
  feature_name: string
  project: string
  environment: string
  strategy_name: string
  title: string | null
  disabled: Bool
  /** JSON text: Record<string, string> */
  parameters: string
  /** JSON text: the constraints as echoed */
  constraints: string
  /** JSON text: the strategy's variants */
  variants: string
  sort_order: number
  created_at: Timestamp
}

export interface FeatureStrategySegmentsTable {
  strategy_id: string
  segment_id: number
}

/** The names flag strategies may use: the built-in ones (seeded, `editable` false) and custom ones. */
export interface StrategyDefinitionsTable {
  name: string
  title: string | null
  display_name: string | null
  description: string | null
  /** false: built in (only its deprecation can change) */
  editable: Bool
  deprecated: Bool
  /** JSON text: [{name, type, description, required}] */
  parameters: string
  /** The built-ins' place in the list; custom ones (0) follow them by name */
  sort_order: number
  created_at: Timestamp
}

/** Context fields constraints are offered (migration 0011): the built-in ones are rows too. */
export interface ContextFieldsTable {
  name: string
  description: string | null
  stickiness: Bool
  sort_order: number
  /** JSON text: [{value, description?}] */
  legal_values: string
  /** A project's own field; null: every project's */
  project: string | null
  created_at: Timestamp
}

/** SDK usage counts of one flag in one application and environment, per hour (migration 0007). */
export interface ClientMetricsEnvTable {
  feature_name: string
  app_name: string
  environment: string
  /** The start of the hour */
  timestamp: Timestamp
  yes: number
  no: number
}

export interface ClientMetricsEnvVariantsTable {
  feature_name: string
  app_name: string
  environment: string
  timestamp: Timestamp
  variant: string
  count: number
}

export interface ClientApplicationsTable {
  app_name: string
  /** JSON text: string[]; null until the application registers */
  strategies: string | null
  sdk_version: string | null
  created_at: Timestamp
  last_seen_at: Timestamp
  /** The client or frontend token whose report first recorded it (migration 0008); null: an admin token, or recorded before */
  token_name: string | null
  /** Set by an admin (POST /metrics/applications/:appName, migration 0025); null until then */
  url: string | null
  color: string | null
  icon: string | null
  /** Set by an admin too (migration 0036); null until then */
  description: string | null
}

export interface ClientApplicationsUsageTable {
  app_name: string
  /** `*`: a token for every project */
  project: string
  environment: string
}

export interface ClientInstancesTable {
  app_name: string
  instance_id: string
  environment: string
  sdk_version: string | null
  client_ip: string | null
  started_at: Timestamp | null
  /** Milliseconds */
  interval: number | null
  created_at: Timestamp
  last_seen_at: Timestamp
  /** `frontend` or `backend`: the route it last reported on (migration 0012); null before */
  sdk_type: string | null
}

/** Names SDKs counted that are no flags, per application and environment (migration 0012; bounded, pruned after 24 hours). */
export interface UnknownFlagsTable {
  name: string
  app_name: string
  environment: string
  last_seen_at: Timestamp
}

/** When SDKs last reported a flag in an environment. */
export interface LastSeenAtMetricsTable {
  feature_name: string
  environment: string
  last_seen_at: Timestamp
}

/** Kinds of tags (`simple` is seeded); a tag's type. */
/** A server-wide setting by name (`maintenance.mode`), its value as JSON text; no row: the default. */
/** A sign-in begun at the OpenID provider, until its callback takes it (features/sso/). */
export interface OidcLoginsTable {
  /** SHA-256 of the `state` sent to the provider, hex. */
  state_hash: string
  nonce: string
  code_verifier: string
  /** The callback URL the sign-in was begun with: the code is redeemed with the same. */
  redirect_uri: string
  expires_at: Timestamp
}

/** The ID token a session signed in with through OpenID Connect: the hint for single sign-out. */
export interface OidcSessionsTable {
  session_hash: string
  id_token: string
}

export interface SettingsTable {
  name: string
  content: string
}

/** An integration ("addon" on the wire); JSON text for the parameters and the three filters. */
export interface AddonsTable {
  id: Generated<number>
  provider: string
  description: string | null
  enabled: Bool
  parameters: string
  events: string
  projects: string
  environments: string
  created_at: Timestamp
  /** Delivery: where in the event log it stands (events/event-log.ts), who sends now, when to try again. */
  cursor: string
  leased_until: Timestamp | null
  retry_at: Timestamp | null
  attempts: Generated<number>
  failing_since: Timestamp | null
}

/** One delivery attempt of an integration (the reference's integration event). */
export interface IntegrationEventsTable {
  id: Generated<number>
  integration_id: number
  created_at: Timestamp
  state: string
  state_details: string
  event: string
  details: string
}

export interface TagTypesTable {
  name: string
  description: string | null
  icon: string | null
  /** `#RRGGBB`, or null */
  color: string | null
  created_at: Timestamp
}

export interface TagsTable {
  type: string
  value: string
  created_at: Timestamp
}

/** The tags of each flag (archived ones keep theirs; a flag deleted for good takes its rows along). */
export interface FeatureTagsTable {
  feature_name: string
  tag_type: string
  tag_value: string
  created_by_user_id: number
  created_at: Timestamp
}

/** The links of each flag (archived ones keep theirs; a flag deleted for good takes its rows along). */
export interface FeatureLinksTable {
  /** A ULID: a flag's links are listed by id, the order they were made in. */
  id: string
  feature_name: string
  url: string
  title: string | null
  created_at: Timestamp
}

/** A lifecycle stage a flag entered, and when (migration 0022); one row per flag and stage. */
export interface FeatureLifecyclesTable {
  feature: string
  /** initial, pre-live, live, completed or archived */
  stage: string
  /** On `completed`: kept or discarded */
  status: string | null
  status_value: string | null
  created_at: Timestamp
}

/** A signed-in user's favorite flag (migration 0023). */
export interface FavoriteFeaturesTable {
  user_id: number
  feature: string
  created_at: Timestamp
}

/** A signed-in user's favorite project (migration 0023). */
export interface FavoriteProjectsTable {
  user_id: number
  project: string
  created_at: Timestamp
}

/**
 * PostgreSQL only (migration 0027): the transactions that changed a watched table without writing
 * an event, one row each, written by the change trigger; read by the change watch's poll, which
 * deletes them one to two minutes after their transaction ended (pg-change-watch.ts). Ids are text (xid8).
 */
export interface ChangeMarksTable {
  tx: string
}

/** Gap-free sequences and maintained counts, updated in the writing transaction. */
export interface CountersTable {
  name: string
  value: number
}

/** A flag type and how long its flags are expected to live (migration 0009). */
export interface FeatureTypesTable {
  id: string
  name: string
  description: string
  /** null: its flags are never potentially stale */
  lifetime_days: number | null
  sort_order: number
}

/** A protected environment of a project: a row means changes there go through change requests. */
export interface ChangeRequestSettingsTable {
  project: string
  environment: string
  required_approvals: number
}

export interface ChangeRequestsTable {
  id: number
  project: string
  environment: string
  /** Draft, In review, Approved, Scheduled, Applied, Rejected, Cancelled */
  state: string
  title: string
  min_approvals: number
  created_by: string
  created_by_user_id: number
  created_at: Timestamp
  scheduled_at: Timestamp | null
  /** JSON text: when each state was entered */
  state_timestamps: string
  /** While Scheduled: pending, failed or suspended (with schedule_reason) (migration 0029) */
  schedule_status: string | null
  schedule_reason: string | null
  /** Who scheduled it: the scheduled apply is theirs */
  scheduled_by: string | null
  scheduled_by_user_id: number | null
}

export interface ChangeRequestChangesTable {
  id: number
  change_request_id: number
  /** null for a segment's change (its payload names the segment) */
  feature: string | null
  action: string
  /** JSON text */
  payload: string
  created_by: string
  created_by_user_id: number
  created_at: Timestamp
}

/** One approval or rejection per person and request. */
export interface ChangeRequestReviewsTable {
  change_request_id: number
  user_id: number
  decision: 'approved' | 'rejected'
  created_by: string
  created_at: Timestamp
}

export interface ChangeRequestCommentsTable {
  id: number
  change_request_id: number
  text: string
  created_by: string
  created_by_user_id: number
  created_at: Timestamp
}

/** Nonces of Unleash Edge's signed token requests, refused again until they expire (migration 0025). */
export interface EdgeNoncesTable {
  client_id: string
  nonce: string
  expires_at: Timestamp
}

export interface Database {
  projects: ProjectsTable
  features: FeaturesTable
  feature_dependencies: FeatureDependenciesTable
  segments: SegmentsTable
  api_tokens: ApiTokensTable
  service_accounts: ServiceAccountsTable
  service_account_tokens: ServiceAccountTokensTable
  users: UsersTable
  user_activity: UserActivityTable
  user_sessions: UserSessionsTable
  personal_access_tokens: PersonalAccessTokensTable
  password_reset_tokens: PasswordResetTokensTable
  public_signup_tokens: PublicSignupTokensTable
  public_signup_tokens_user: PublicSignupTokensUserTable
  events: EventsTable
  counters: CountersTable
  change_marks: ChangeMarksTable
  environments: EnvironmentsTable
  project_environments: ProjectEnvironmentsTable
  feature_environments: FeatureEnvironmentsTable
  feature_strategies: FeatureStrategiesTable
  feature_strategy_segments: FeatureStrategySegmentsTable
  strategy_definitions: StrategyDefinitionsTable
  client_metrics_env: ClientMetricsEnvTable
  client_metrics_env_variants: ClientMetricsEnvVariantsTable
  client_applications: ClientApplicationsTable
  client_applications_usage: ClientApplicationsUsageTable
  client_instances: ClientInstancesTable
  last_seen_at_metrics: LastSeenAtMetricsTable
  unknown_flags: UnknownFlagsTable
  feature_types: FeatureTypesTable
  context_fields: ContextFieldsTable
  tag_types: TagTypesTable
  addons: AddonsTable
  integration_events: IntegrationEventsTable
  tags: TagsTable
  feature_tags: FeatureTagsTable
  feature_links: FeatureLinksTable
  settings: SettingsTable
  oidc_logins: OidcLoginsTable
  oidc_sessions: OidcSessionsTable
  change_request_settings: ChangeRequestSettingsTable
  change_requests: ChangeRequestsTable
  change_request_changes: ChangeRequestChangesTable
  change_request_reviews: ChangeRequestReviewsTable
  change_request_comments: ChangeRequestCommentsTable
  feature_lifecycles: FeatureLifecyclesTable
  favorite_features: FavoriteFeaturesTable
  favorite_projects: FavoriteProjectsTable
  edge_nonces: EdgeNoncesTable
}
