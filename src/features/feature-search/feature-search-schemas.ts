import { Type, type Static } from '@sinclair/typebox'
import { StageName } from '../lifecycle/lifecycle-schemas.ts'

const filter = (description: string) => Type.Optional(Type.String({ maxLength: 10_000, description }))

/** The query parameters of the reference's searchFeatures, all optional; docs/api.md, "Searching flags". */
export const FeatureSearchQuery = Type.Object({
  query: Type.Optional(
    Type.String({ maxLength: 1000, description: 'Text in the name or description (case-insensitive); commas separate alternatives' }),
  ),
  project: filter('IS, IS_NOT, IS_ANY_OF or IS_NONE_OF with project ids'),
  type: filter('IS, IS_NOT, IS_ANY_OF or IS_NONE_OF with flag types'),
  state: filter('IS, IS_NOT, IS_ANY_OF or IS_NONE_OF with stale, active or potentially-stale'),
  createdAt: filter('IS_BEFORE or IS_ON_OR_AFTER with a day, yyyy-MM-dd (UTC)'),
  createdBy: filter('IS, IS_NOT, IS_ANY_OF or IS_NONE_OF with user ids: who created the flag'),
  tag: filter('INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF or EXCLUDE_ALL with type:value tags'),
  segment: filter('INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF or EXCLUDE_ALL with segment names'),
  status: Type.Optional(
    Type.Union([Type.String({ maxLength: 10_000 }), Type.Array(Type.String({ maxLength: 10_000 }), { maxItems: 100 })], {
      description: 'environment:enabled or environment:disabled, repeated; or IS:/IS_ANY_OF: with such entries. A flag matches any of them',
    }),
  ),
  lifecycle: filter(
    'IS, IS_NOT, IS_ANY_OF or IS_NONE_OF with stages: initial, pre-live, live, completed, archived (the stage each flag entered last)',
  ),
  lastSeenAt: filter('IS_BEFORE or IS_ON_OR_AFTER with a day, yyyy-MM-dd (UTC): when an SDK last saw the flag in any environment'),
  archived: filter('IS:true (archived flags) or IS:false (the default)'),
  favorite: filter(
    "IS, IS_NOT, IS_ANY_OF or IS_NONE_OF with true or false: the signed-in caller's favorite flags (other callers have none)",
  ),
  favoritesFirst: Type.Optional(
    Type.String({ maxLength: 1000, description: "true: the signed-in caller's favorite flags first, each part in the order asked" }),
  ),
  sortBy: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'createdAt (the default), name, type, stale, project, lastSeenAt or environment:<name> (enabled there first)',
    }),
  ),
  sortOrder: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'asc by default' })),
  offset: Type.Optional(Type.String({ maxLength: 1000, description: 'Flags to skip; 0 by default' })),
  limit: Type.Optional(Type.String({ maxLength: 1000, description: 'Flags in the page, 1 to 100 (more is taken as 100); 50 by default' })),
})
export type FeatureSearchQuery = Static<typeof FeatureSearchQuery>

const Timestamp = Type.String({ format: 'date-time' })

const SearchEnvironment = Type.Object(
  {
    name: Type.String(),
    enabled: Type.Boolean(),
    type: Type.String(),
    sortOrder: Type.Number(),
    variantCount: Type.Number(),
    lastSeenAt: Type.Union([Timestamp, Type.Null()]),
    hasStrategies: Type.Boolean(),
    hasEnabledStrategies: Type.Boolean(),
  },
  { additionalProperties: false, description: "The reference's featureSearchEnvironmentSchema, as far as Pennon has the data" },
)

const SearchTag = Type.Object(
  { value: Type.String(), type: Type.String(), color: Type.Union([Type.String(), Type.Null()]) },
  { additionalProperties: false },
)

export const FeatureSearchItem = Type.Object(
  {
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    dependencyType: Type.Union([Type.Literal('parent'), Type.Literal('child'), Type.Null()]),
    type: Type.String(),
    project: Type.String(),
    stale: Type.Boolean(),
    favorite: Type.Boolean({ description: 'Whether the flag is a favorite of the signed-in caller (false for other callers)' }),
    impressionData: Type.Boolean(),
    createdAt: Type.Union([Timestamp, Type.Null()]),
    archivedAt: Type.Union([Timestamp, Type.Null()]),
    createdBy: Type.Object(
      { id: Type.Integer(), name: Type.String(), imageUrl: Type.String() },
      { additionalProperties: false, description: "From the flag's creation event; id 0 and name unknown when there is none" },
    ),
    environments: Type.Array(SearchEnvironment),
    segments: Type.Array(Type.String(), { description: "Names of the segments the flag's strategies use, by name" }),
    tags: Type.Optional(Type.Array(SearchTag, { description: 'By type then value; absent when the flag has none, as in the reference' })),
    lifecycle: Type.Optional(
      Type.Object(
        { stage: StageName, status: Type.Optional(Type.String()), enteredStageAt: Timestamp },
        { additionalProperties: false, description: 'The stage the flag entered last; `status` on completed' },
      ),
    ),
  },
  { additionalProperties: false, description: "The reference's featureSearchResponseSchema" },
)
export type FeatureSearchItem = Static<typeof FeatureSearchItem>

export const FeatureSearchResponse = Type.Object(
  {
    features: Type.Array(FeatureSearchItem),
    total: Type.Integer({ minimum: 0, description: 'Flags that match, in all' }),
  },
  {
    additionalProperties: false,
    description: "One page of the flags that match every filter given (the reference's searchFeaturesSchema)",
  },
)
export type FeatureSearchResponse = Static<typeof FeatureSearchResponse>
