import { QueryFlag } from '../../http/common-schemas.ts'
import { Type } from '@sinclair/typebox'

const Count = Type.Integer({ minimum: 0 })

export const OverviewQuery = Type.Object({
  archived: Type.Optional(QueryFlag('true: featureTypeCounts counts the archived flags')),
})

/** The reference's projectStatsSchema: counts over the last 30 days (current) and the 30 before (past). */
export const ProjectStats = Type.Object(
  {
    avgTimeToProdCurrentWindow: Type.Number({ description: "The project's average lead time to production, in days" }),
    createdCurrentWindow: Count,
    createdPastWindow: Count,
    archivedCurrentWindow: Count,
    archivedPastWindow: Count,
    projectActivityCurrentWindow: Type.Integer({ minimum: 0, description: 'Events about the project' }),
    projectActivityPastWindow: Count,
    projectMembersAddedCurrentWindow: Count,
  },
  { additionalProperties: false },
)

export const FeatureTypeCounts = Type.Array(Type.Object({ type: Type.String(), count: Count }, { additionalProperties: false }), {
  description: "The project's active flags by type, by type name",
})

/** A strategy as it was stored (createFeatureStrategySchema, as sent). */
export const StoredStrategy = Type.Object({ name: Type.String() }, { additionalProperties: true })

export const OnboardingStatus = Type.Object(
  {
    status: Type.String({ description: 'onboarding-started, first-flag-created (with `feature`), sdk-connected or onboarded' }),
    feature: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

export const ProjectOverviewResponse = Type.Object(
  {
    stats: ProjectStats,
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    mode: Type.Literal('open', { description: 'Always `open`: Pennon has no collaboration modes' }),
    featureLimit: Type.Null(),
    featureNaming: Type.Object({ pattern: Type.Null(), example: Type.Null(), description: Type.Null() }),
    linkTemplates: Type.Array(Type.Object({})),
    defaultStickiness: Type.String(),
    health: Type.Integer({ description: 'Deprecated: 100 - technicalDebt' }),
    technicalDebt: Type.Integer({ minimum: 0, maximum: 100 }),
    favorite: Type.Boolean({ description: 'Always false' }),
    updatedAt: Type.Null(),
    createdAt: Type.String({ format: 'date-time' }),
    onboardingStatus: OnboardingStatus,
    environments: Type.Array(
      Type.Object({ environment: Type.String(), defaultStrategy: Type.Optional(StoredStrategy) }, { additionalProperties: false }),
      { description: "The project's environments by sort order, with their default strategies" },
    ),
    featureTypeCounts: FeatureTypeCounts,
    members: Type.Integer({ minimum: 0, description: '1 when a person who still exists created the project (its owner), else 0' }),
    version: Type.Literal(1),
  },
  { additionalProperties: false },
)

const HealthCounts = Type.Object({
  rating: Type.Integer(),
  activeCount: Count,
  potentiallyStaleCount: Count,
  staleCount: Count,
})

export const ProjectDoraResponse = Type.Object(
  {
    features: Type.Array(Type.Object({ name: Type.String(), timeToProduction: Type.Integer() }, { additionalProperties: false }), {
      description: 'Release flags switched on in a production environment: whole days from creation to the first switch-on there',
    }),
    projectAverage: Type.Number(),
  },
  { additionalProperties: false },
)

export const ProjectInsightsResponse = Type.Object(
  {
    stats: ProjectStats,
    featureTypeCounts: FeatureTypeCounts,
    technicalDebt: HealthCounts,
    leadTime: ProjectDoraResponse,
    members: Type.Object({ currentMembers: Count, change: Type.Integer({ description: 'Members added in the last 30 days' }) }),
    health: HealthCounts,
  },
  { additionalProperties: false },
)
