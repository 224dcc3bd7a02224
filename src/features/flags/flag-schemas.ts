import { CurrentStage } from '../lifecycle/lifecycle-schemas.ts'
import { QueryFlag } from '../../http/common-schemas.ts'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { FlagListTags, TagBody } from '../tags/tag-schemas.ts'
import { FlagLinkResponse } from './flag-link-schemas.ts'

// The reference's types (8.2 added `sunset`); their lifetimes are in feature_types (GET /api/admin/feature-types).
export const FLAG_TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission', 'sunset'] as const
export type FlagType = (typeof FLAG_TYPES)[number]

// Path parameters are bounded but not checked further: an unknown name is a 404, not a 400.
const PathName = Type.String({ maxLength: 1000 })

export const ProjectFlagsParams = Type.Object({ projectId: PathName })
export type ProjectFlagsParams = Static<typeof ProjectFlagsParams>

export const FeatureNameParams = Type.Object({ featureName: PathName })
export type FeatureNameParams = Static<typeof FeatureNameParams>

export const FlagParams = Type.Object({ projectId: PathName, name: PathName })
export type FlagParams = Static<typeof FlagParams>

export const ChildParams = Type.Object({ projectId: PathName, child: PathName })
export type ChildParams = Static<typeof ChildParams>

export const DependencyParams = Type.Object({ projectId: PathName, child: PathName, parent: PathName })
export type DependencyParams = Static<typeof DependencyParams>

export const CreateFlagBody = Type.Object({
  name: Type.String({ maxLength: 1000, description: 'URL-friendly, 1–100 characters, unique across all projects' }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  // One `enum` keyword rather than a union of literals: one clear error message instead of five.
  type: Type.Optional(Type.Unsafe<FlagType>({ type: 'string', enum: [...FLAG_TYPES], default: 'release' })),
  impressionData: Type.Optional(Type.Boolean({ default: false })),
  tags: Type.Optional(
    Type.Array(TagBody, {
      maxItems: 100,
      description:
        'Tags to add to the new flag, as POST /features/:featureName/tags adds them (a missing tag is created; its type must exist)',
    }),
  ),
})
export type CreateFlagBody = Static<typeof CreateFlagBody>

/** POST /features/validate. `projectId` is accepted and unused: Pennon's projects have no naming pattern. */
export const ValidateFlagNameBody = Type.Object({
  name: Type.String({ maxLength: 1000, description: 'The flag name to check: URL-friendly, 1–100 characters, unused' }),
  projectId: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
})
export type ValidateFlagNameBody = Static<typeof ValidateFlagNameBody>

const FlagTypeSchema = Type.Unsafe<FlagType>({ type: 'string', enum: [...FLAG_TYPES] })

/** PUT: the metadata; what is not sent takes its default, as the reference replaces it. */
export const UpdateFlagBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 10_000, description: 'Absent, "" or the path\'s name: a flag is never renamed' })),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()], { description: 'Absent, "" or null: none' })),
  type: Type.Optional(Type.Unsafe<FlagType>({ ...FlagTypeSchema, description: 'Absent: release' })),
  stale: Type.Optional(Type.Boolean({ description: 'Absent: false' })),
  archived: Type.Optional(Type.Boolean({ description: 'Must be what the flag is: archive and revive have routes of their own' })),
  impressionData: Type.Optional(Type.Boolean({ description: 'Absent: false' })),
})
export type UpdateFlagBody = Static<typeof UpdateFlagBody>

/** What a PATCH must leave: the metadata a flag always has. */
export const FlagMetadata = Type.Object({
  description: Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()]),
  type: FlagTypeSchema,
  stale: Type.Boolean(),
  impressionData: Type.Boolean(),
})

export const StaleBody = Type.Object({
  features: Type.Array(Type.String(), { description: 'Names that are no flag are ignored' }),
  stale: Type.Boolean(),
})
export type StaleBody = Static<typeof StaleBody>

const flagProperties = {
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  project: Type.String(),
  stale: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  impressionData: Type.Boolean(),
  archived: Type.Boolean(),
}

export const FlagResponse = Type.Object(flagProperties)

const potentiallyStale = Type.Boolean({
  description: "Neither stale nor archived, and older than its type's expected lifetime (GET /api/admin/feature-types)",
})

/** A flag as read: with potentiallyStale, computed from its age when read. */
export const FlagReadResponse = Type.Object({ ...flagProperties, potentiallyStale })

export const FlagListResponse = Type.Object({
  version: Type.Literal(1),
  features: Type.Array(Type.Object({ ...flagProperties, potentiallyStale, tags: FlagListTags })),
  total: Type.Optional(Type.Integer({ minimum: 0, description: 'With any paging parameter: the flags matching, over every page' })),
})

export const FLAG_SORT_KEYS = ['name', 'createdAt', 'type'] as const
export type FlagSortKey = (typeof FLAG_SORT_KEYS)[number]

/** Paging of the flag list; with none of these the answer is every active flag, as before. */
export const ProjectFlagsQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 100, description: 'Part of the flag name (any case)' })),
  offset: Type.Optional(Type.String({ maxLength: 20, description: 'Flags to skip (default 0)' })),
  limit: Type.Optional(Type.String({ maxLength: 20, description: 'Flags in the page, 1–1000 (default 100)' })),
  sortBy: Type.Optional(
    Type.Unsafe<FlagSortKey>({ type: 'string', enum: [...FLAG_SORT_KEYS], description: 'Default name; ties are ordered by name' }),
  ),
  sortOrder: Type.Optional(Type.Unsafe<'asc' | 'desc'>({ type: 'string', enum: ['asc', 'desc'], description: 'Default asc' })),
  archived: Type.Optional(QueryFlag('true: the archived flags instead of the active ones')),
  stale: Type.Optional(QueryFlag('true: only the stale and the potentially stale flags')),
  tag: Type.Optional(
    Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100 })], {
      description: 'type:value, repeatable: only the flags with one of these tags (with or without paging)',
    }),
  ),
})
export type ProjectFlagsQuery = Static<typeof ProjectFlagsQuery>

export const DependencyResponse = Type.Object({
  feature: Type.String({ description: 'the parent flag' }),
  enabled: Type.Boolean(),
  variants: Type.Array(Type.String()),
})

/** A flag as read with its environments; `environment`: the schema of one (flag-environments/, handed over by app.ts). */
export const flagDetailsResponse = <E extends TSchema>(environment: E) =>
  Type.Object({
    ...flagProperties,
    potentiallyStale,
    favorite: Type.Boolean({ description: 'Whether the flag is a favorite of the signed-in caller (false for other callers)' }),
    lastSeenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: "The latest of its environments' lastSeenAt: when SDK metrics last counted it anywhere; null if never",
    }),
    archivedAt: Type.Optional(Type.String({ format: 'date-time', description: 'present on archived flags only' })),
    environments: Type.Array(environment, {
      description: "the flag's state, strategies and variants in each of its project's environments, by sort order",
    }),
    dependencies: Type.Array(DependencyResponse, { description: 'the parent of this flag, if any' }),
    children: Type.Array(Type.String(), { description: 'the flags that depend on this one, sorted by name' }),
    links: Type.Array(FlagLinkResponse, { description: 'its links (to tickets, dashboards), in the order they were added' }),
    lifecycle: Type.Optional(CurrentStage),
  })

export const CreateDependencyBody = Type.Object({
  feature: Type.String({ maxLength: 1000, description: 'the parent flag' }),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  variants: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000 })),
})
export type CreateDependencyBody = Static<typeof CreateDependencyBody>

export const DependenciesExistResponse = Type.Boolean({ description: 'true when any flag depends on another' })

export const PossibleParentsResponse = Type.Array(Type.String(), { description: 'flag names, sorted' })

// Item length is not bounded: names that match no flag are ignored (the body limit bounds the whole).
export const BatchFeaturesBody = Type.Object({ features: Type.Array(Type.String()) })
export type BatchFeaturesBody = Static<typeof BatchFeaturesBody>

export const ValidateArchiveResponse = Type.Object({
  parentsWithChildFeatures: Type.Array(Type.String(), { description: 'flags of the batch that have children outside it, sorted' }),
  hasDeletedDependencies: Type.Boolean({ description: 'whether archiving the batch would delete at least one dependency' }),
})
