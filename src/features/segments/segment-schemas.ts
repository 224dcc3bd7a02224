import { Type, type Static } from '@sinclair/typebox'
import { IntegerIdParam } from '../../http/common-schemas.ts'
import { OPERATORS, type Operator } from '../constraints/constraints.ts'

export const SegmentParams = Type.Object({ id: IntegerIdParam })
export type SegmentParams = Static<typeof SegmentParams>

// A plain `enum` (not a union of literals): one error that lists the allowed operators.
const OperatorSchema = Type.Unsafe<Operator>({ type: 'string', enum: [...OPERATORS] })

export const ConstraintBody = Type.Object(
  {
    contextName: Type.String({ minLength: 1, maxLength: 255 }),
    operator: OperatorSchema,
    caseInsensitive: Type.Optional(Type.Boolean()),
    inverted: Type.Optional(Type.Boolean({ description: 'REGEX constraints cannot be inverted' })),
    values: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        description: 'IN, NOT_IN and STR_* need at least one; at most SEGMENT_VALUES_LIMIT (1000) summed over a segment',
      }),
    ),
    value: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          'NUM_*: a finite number; DATE_*: an ISO-8601 date or date-time; SEMVER_*: a strict semantic version; REGEX: a pattern that compiles',
      }),
    ),
  },
  { additionalProperties: false },
)

/** Body of POST /segments/validate: the reference's nameSchema. */
export const SegmentNameBody = Type.Object(
  { name: Type.String({ maxLength: 1000, description: 'Outer whitespace is trimmed; then 1–255 characters, unused' }) },
  { additionalProperties: false },
)
export type SegmentNameBody = Static<typeof SegmentNameBody>

/** Body of POST and PUT. Unknown top-level properties are ignored, as the reference does. */
export const UpsertSegmentBody = Type.Object({
  name: Type.String({ description: 'Outer whitespace is trimmed; then 1–255 characters, unique (case-sensitive)' }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  project: Type.Optional(
    Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description: 'An existing project; "" or null make a global segment' }),
  ),
  constraints: Type.Array(ConstraintBody),
})
export type UpsertSegmentBody = Static<typeof UpsertSegmentBody>

/** A constraint as strategies, segments, exports and the client API show it. */
export const ConstraintResponse = Type.Object({
  contextName: Type.String(),
  operator: Type.String(),
  caseInsensitive: Type.Optional(Type.Boolean()),
  inverted: Type.Optional(Type.Boolean()),
  values: Type.Array(Type.String()),
  value: Type.Optional(Type.String()),
})

const segmentProperties = {
  id: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  project: Type.Optional(Type.String({ description: 'Present only for a project segment' })),
  constraints: Type.Array(ConstraintResponse),
}
const auditProperties = {
  createdBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
}

export const SegmentResponse = Type.Object({ ...segmentProperties, ...auditProperties })

export const SegmentListResponse = Type.Object({
  segments: Type.Array(
    Type.Object({
      ...segmentProperties,
      usedInFeatures: Type.Integer({ minimum: 0, description: 'Active flags whose strategies use it' }),
      usedInProjects: Type.Integer({ minimum: 0, description: 'Projects of those flags' }),
      ...auditProperties,
    }),
  ),
})

export const SegmentStrategiesResponse = Type.Object({
  strategies: Type.Array(
    Type.Object({
      id: Type.String(),
      featureName: Type.String(),
      projectId: Type.String(),
      environment: Type.String(),
      strategyName: Type.String(),
    }),
  ),
  changeRequestStrategies: Type.Array(Type.Object({}), { description: 'Always empty: Pennon has no change requests' }),
})
