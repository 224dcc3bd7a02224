import { Type, type Static } from '@sinclair/typebox'

// Path parameters are bounded but not checked further: an unknown name is a 404 (or, for
// …/strategies, an empty list), not a 400.
const PathText = Type.String({ maxLength: 1000 })

export const ContextFieldParams = Type.Object({ contextField: PathText })
export const LegalValueParams = Type.Object({ contextField: PathText, legalValue: PathText })
export const ProjectParams = Type.Object({ projectId: PathText })
export const ProjectContextFieldParams = Type.Object({ projectId: PathText, contextField: PathText })
export const ProjectLegalValueParams = Type.Object({ projectId: PathText, contextField: PathText, legalValue: PathText })

export const ListQuery = Type.Object({
  include: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        '`project` on /context: project fields too; `root` on /projects/:projectId/context: the fields of every project too (case-insensitive; anything else is ignored)',
    }),
  ),
})

/** As many as a field may have: the reference sets no bound; a constraint editor offers them all. */
export const LEGAL_VALUES_LIMIT = 1000

export const LegalValue = Type.Object(
  {
    value: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'What a constraint may use (a constraint value is 1–100 characters too)',
    }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
)
export type LegalValue = Static<typeof LegalValue>

const LegalValues = Type.Array(LegalValue, { maxItems: LEGAL_VALUES_LIMIT, description: 'Unique by value, kept in the order sent' })
// One schema of two types rather than a union: a wrong value gets one message, not one per branch.
const stringOrNull = (options: { maxLength: number; description?: string }) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options })
// The reference takes null as no description too (its joi schema does).
const Description = stringOrNull({ maxLength: 250 })
const SortOrder = Type.Integer({
  minimum: -(2 ** 31),
  maximum: 2 ** 31 - 1,
  description: 'Where the field comes in a list sorted by it; 0 when created without it',
})
const Project = stringOrNull({
  maxLength: 1000,
  description: "An existing project the field belongs to; null or absent: every project's field",
})

// Other properties are accepted and ignored, as the reference strips them: a field read with GET
// (usedInFeatures, createdAt, …) can be sent back as it is.
export const CreateContextFieldBody = Type.Object({
  name: Type.String({ maxLength: 1000, description: "URL-friendly, 1–100 characters, unique among the context fields (every project's)" }),
  description: Type.Optional(Description),
  stickiness: Type.Optional(Type.Boolean({ description: 'Offered as a stickiness of rollouts and variants; false when absent' })),
  sortOrder: Type.Optional(SortOrder),
  legalValues: Type.Optional(LegalValues),
  project: Type.Optional(Project),
})
export type CreateContextFieldBody = Static<typeof CreateContextFieldBody>

/** PUT, as the reference: legalValues and stickiness are replaced ([] and false when absent); description and sortOrder are kept when absent. */
export const UpdateContextFieldBody = Type.Object({
  description: Type.Optional(Description),
  stickiness: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(SortOrder),
  legalValues: Type.Optional(LegalValues),
  project: Type.Optional(Project),
})
export type UpdateContextFieldBody = Static<typeof UpdateContextFieldBody>

export const ValidateNameBody = Type.Object({ name: Type.String({ maxLength: 1000 }) }, { additionalProperties: false })

const LegalValueResponse = Type.Object({ value: Type.String(), description: Type.Optional(Type.String()) })

/** Keys in the reference's order; the list adds the usage counts, a project's field names its project. */
export const ContextFieldResponse = Type.Object({
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  stickiness: Type.Boolean(),
  sortOrder: Type.Integer(),
  legalValues: Type.Array(LegalValueResponse),
  createdAt: Type.String({ format: 'date-time' }),
  usedInProjects: Type.Optional(
    Type.Integer({ description: 'Projects with an active flag whose strategies constrain on the field (list only)' }),
  ),
  usedInFeatures: Type.Optional(Type.Integer({ description: 'Active flags whose strategies constrain on the field (list only)' })),
  project: Type.Optional(Type.String()),
})

export const ContextFieldListResponse = Type.Array(ContextFieldResponse)

export const ContextFieldStrategiesResponse = Type.Object({
  strategies: Type.Array(
    Type.Object({
      id: Type.String(),
      projectId: Type.String(),
      featureName: Type.String(),
      strategyName: Type.String(),
      environment: Type.String(),
    }),
  ),
})
