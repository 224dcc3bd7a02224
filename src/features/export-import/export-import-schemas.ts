/**
 * The reference's export/import documents (exportQuerySchema, exportResultSchema,
 * importTogglesSchema, importTogglesValidateSchema). A body is bounded by BODY_LIMIT and by
 * the counts below (docs/api.md, "Export and import"): one import is one transaction.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { CreateFlagBody } from '../flags/flag-schemas.ts'
import { ConstraintBody } from '../segments/segment-schemas.ts'
import { StrategyVariantBody, VariantBody } from '../flag-environments/variant-schemas.ts'
import { ConstraintResponse } from '../segments/segment-schemas.ts'

/** At most this many flags in one export selection or one import. */
export const MAX_IMPORT_FEATURES = 1000
/** Strategies, flag environments, tags, dependencies and links of one import, each list. */
export const MAX_IMPORT_ITEMS = 10_000

const Name = Type.String({ minLength: 1, maxLength: 255 })
const Text = (maxLength: number) => Type.String({ maxLength })
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
/** A property the reference's document may carry and the import does not use: any value, ignored. */
const Ignored = Type.Unknown({ description: 'Accepted and ignored' })

export const ExportQuery = Type.Object(
  {
    environment: Type.String({ minLength: 1, maxLength: 255, description: 'The environment to export from' }),
    downloadFile: Type.Optional(Type.Boolean({ description: 'true: sent as an attachment (Content-Disposition)' })),
    features: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: MAX_IMPORT_FEATURES,
        description: 'These flags; [] or absent: by tag, or the project, or all',
      }),
    ),
    tag: Type.Optional(
      Type.String({
        maxLength: 255,
        description: 'The flags with a tag of this VALUE (of any type), archived ones included, as the reference',
      }),
    ),
    project: Type.Optional(
      Type.String({ maxLength: 255, description: "The project's active flags, when neither features nor tag select" }),
    ),
  },
  { description: 'One of features, tag or project selects the flags (in that order of precedence); none: every active flag' },
)
export type ExportQuery = Static<typeof ExportQuery>

const Feature = Type.Object(
  {
    name: Name,
    type: CreateFlagBody.properties.type,
    description: Type.Optional(nullable(Text(10_000))),
    archived: Type.Optional(Type.Boolean()),
    project: Type.Optional(nullable(Text(255))),
    stale: Type.Optional(Type.Boolean()),
    impressionData: Type.Optional(Type.Boolean()),
    ...Object.fromEntries(
      [
        'enabled',
        'favorite',
        'createdAt',
        'createdBy',
        'archivedAt',
        'environments',
        'tags',
        'children',
        'lifecycle',
        'dependencies',
        'collaborators',
        'links',
      ].map((key) => [key, Type.Optional(Ignored)]),
    ),
  },
  { additionalProperties: false },
)

const Parameters = Type.Record(Type.String({ maxLength: 255 }), Type.Union([Type.String({ maxLength: 100_000 }), Type.Number()]), {
  maxProperties: 100,
})

const FeatureStrategy = Type.Object(
  {
    id: Type.Optional(Text(255)),
    name: Name,
    title: Type.Optional(nullable(Text(255))),
    disabled: Type.Optional(nullable(Type.Boolean())),
    featureName: Type.Optional(Text(255)),
    sortOrder: Type.Optional(Type.Integer({ minimum: -2147483648, maximum: 2147483647 })),
    segments: Type.Optional(
      Type.Array(Type.Integer({ minimum: -2147483648, maximum: 2147483647 }), {
        maxItems: 1000,
        description: 'Ids in the source; its `segments` list names them',
      }),
    ),
    constraints: Type.Optional(Type.Array(ConstraintBody, { maxItems: 1000 })),
    variants: Type.Optional(Type.Array(StrategyVariantBody, { maxItems: 1000 })),
    parameters: Type.Optional(Parameters),
  },
  { additionalProperties: false },
)

const FeatureEnvironment = Type.Object(
  {
    name: Text(255),
    enabled: Type.Boolean(),
    featureName: Type.Optional(Text(255)),
    environment: Type.Optional(Text(255)),
    variants: Type.Optional(Type.Array(VariantBody, { maxItems: 1000 })),
    ...Object.fromEntries(
      [
        'type',
        'sortOrder',
        'variantCount',
        'strategies',
        'changeRequestIds',
        'milestoneName',
        'milestoneOrder',
        'totalMilestones',
        'lastSeenAt',
        'hasStrategies',
        'hasEnabledStrategies',
        'releasePlans',
        'safeguards',
        'yes',
        'no',
      ].map((key) => [key, Type.Optional(Ignored)]),
    ),
  },
  { additionalProperties: false },
)

const LegalValue = Type.Object(
  { value: Type.String({ minLength: 1, maxLength: 100 }), description: Type.Optional(Text(1000)) },
  { additionalProperties: false },
)

const ContextField = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(nullable(Text(250))),
    stickiness: Type.Optional(Type.Boolean()),
    sortOrder: Type.Optional(Type.Integer({ minimum: -(2 ** 31), maximum: 2 ** 31 - 1 })),
    legalValues: Type.Optional(Type.Array(LegalValue, { maxItems: 1000 })),
    project: Type.Optional(nullable(Text(255))),
    createdAt: Type.Optional(Ignored),
    usedInFeatures: Type.Optional(Ignored),
    usedInProjects: Type.Optional(Ignored),
  },
  { additionalProperties: false },
)

const FeatureTag = Type.Object(
  {
    featureName: Text(255),
    tagType: Type.Optional(Text(255)),
    tagValue: Text(255),
    createdByUserId: Type.Optional(Ignored),
  },
  { additionalProperties: false },
)

const TagType = Type.Object(
  {
    name: Text(1000),
    description: Type.Optional(nullable(Text(10_000))),
    icon: Type.Optional(nullable(Text(255))),
    color: Type.Optional(nullable(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' }))),
  },
  { additionalProperties: false },
)

const Dependencies = Type.Object(
  {
    feature: Text(255),
    dependencies: Type.Array(
      Type.Object(
        { feature: Text(255), enabled: Type.Optional(Type.Boolean()), variants: Type.Optional(Type.Array(Text(255), { maxItems: 100 })) },
        { additionalProperties: false },
      ),
      { maxItems: 1, description: 'A flag has at most one parent' },
    ),
  },
  { additionalProperties: false },
)

const Links = Type.Object(
  {
    feature: Text(255),
    links: Type.Array(
      Type.Object(
        { id: Type.Optional(Text(255)), url: Text(10_000), title: Type.Optional(nullable(Text(1000))) },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
  },
  { additionalProperties: false },
)

const list = <T extends TSchema>(item: T, maxItems = MAX_IMPORT_ITEMS) => Type.Array(item, { maxItems })

/** exportResultSchema, as an import body's `data`. */
export const ExportData = Type.Object(
  {
    features: list(Feature, MAX_IMPORT_FEATURES),
    featureStrategies: list(FeatureStrategy),
    featureEnvironments: Type.Optional(list(FeatureEnvironment)),
    contextFields: Type.Optional(list(ContextField, 1000)),
    featureTags: Type.Optional(list(FeatureTag)),
    segments: Type.Optional(list(Type.Object({ id: Type.Number(), name: Text(255) }, { additionalProperties: false }), 1000)),
    // Required by the reference's document, not by its server (a body without it is taken).
    tagTypes: Type.Optional(list(TagType, 1000)),
    dependencies: Type.Optional(list(Dependencies)),
    links: Type.Optional(list(Links)),
  },
  { additionalProperties: false },
)
export type ExportData = Static<typeof ExportData>

export const ImportBody = Type.Object(
  {
    project: Type.String({ minLength: 1, maxLength: 255, description: 'The project to import into' }),
    environment: Type.String({ minLength: 1, maxLength: 255, description: "The environment the file's environment data goes to" }),
    data: ExportData,
  },
  { additionalProperties: false },
)
export type ImportBody = Static<typeof ImportBody>

// Answers: what the export writes (no timestamps, no ids of the target beyond strategies' and segments').
const PayloadOut = Type.Object({ type: Type.String(), value: Type.String() })
const VariantOut = Type.Object({
  name: Type.String(),
  weight: Type.Integer(),
  weightType: Type.String(),
  stickiness: Type.String(),
  payload: Type.Optional(PayloadOut),
  overrides: Type.Optional(Type.Array(Type.Object({ contextName: Type.String(), values: Type.Array(Type.String()) }))),
})

export const ExportResult = Type.Object({
  features: Type.Array(
    Type.Object({
      name: Type.String(),
      description: nullable(Type.String()),
      type: Type.String(),
      project: Type.String(),
      stale: Type.Boolean(),
      impressionData: Type.Boolean(),
      archived: Type.Boolean(),
    }),
  ),
  featureStrategies: Type.Array(
    Type.Object({
      name: Type.String(),
      id: Type.String(),
      featureName: Type.String(),
      title: nullable(Type.String()),
      parameters: Type.Record(Type.String(), Type.String()),
      constraints: Type.Array(ConstraintResponse),
      variants: Type.Array(VariantOut),
      disabled: Type.Boolean(),
      segments: Type.Array(Type.Integer()),
    }),
  ),
  featureEnvironments: Type.Array(
    Type.Object({
      enabled: Type.Boolean(),
      featureName: Type.String(),
      environment: Type.String(),
      variants: Type.Array(VariantOut),
      name: Type.String(),
    }),
  ),
  contextFields: Type.Array(
    Type.Object({
      name: Type.String(),
      description: nullable(Type.String()),
      stickiness: Type.Boolean(),
      sortOrder: Type.Integer(),
      legalValues: Type.Array(Type.Object({ value: Type.String(), description: Type.Optional(Type.String()) })),
      project: Type.Optional(Type.String()),
    }),
  ),
  featureTags: Type.Array(Type.Object({ featureName: Type.String(), tagType: Type.String(), tagValue: Type.String() })),
  segments: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
  tagTypes: Type.Array(
    Type.Object({
      name: Type.String(),
      description: nullable(Type.String()),
      icon: nullable(Type.String()),
      color: nullable(Type.String()),
    }),
  ),
  dependencies: Type.Array(
    Type.Object({
      feature: Type.String(),
      dependencies: Type.Array(Type.Object({ feature: Type.String(), enabled: Type.Boolean(), variants: Type.Array(Type.String()) })),
    }),
  ),
  links: Type.Array(
    Type.Object({
      feature: Type.String(),
      links: Type.Array(Type.Object({ id: Type.String(), url: Type.String(), title: nullable(Type.String()) })),
    }),
  ),
})
export type ExportResult = Static<typeof ExportResult>

const ValidateItem = Type.Object({ message: Type.String(), affectedItems: Type.Array(Type.String()) })
export type ValidateItem = Static<typeof ValidateItem>

export const ValidateResult = Type.Object({
  errors: Type.Array(ValidateItem, { description: 'Any of these: the import would be refused' }),
  warnings: Type.Array(ValidateItem),
  permissions: Type.Array(ValidateItem, { description: 'The permissions the caller lacks for this import, by their display names' }),
})
export type ValidateResult = Static<typeof ValidateResult>
