import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { IntegerIdParam } from '../../http/common-schemas.ts'
import { CreateDependencyBody } from '../flags/flag-schemas.ts'
import { CreateStrategyBody, SortOrderBody, UpdateStrategyBody } from '../flag-environments/strategy-schemas.ts'
import { VariantsBody } from '../flag-environments/variant-schemas.ts'
import { UpsertSegmentBody } from '../segments/segment-schemas.ts'

// Path parameters are bounded but not checked further: an unknown name is a 404, not a 400.
const PathName = Type.String({ maxLength: 1000 })

export const ProjectParams = Type.Object({ projectId: PathName })
export const EnvironmentParams = Type.Object({ projectId: PathName, environment: PathName })
export const RequestParams = Type.Object({ projectId: PathName, id: IntegerIdParam })
export const ChangeParams = Type.Object({ projectId: PathName, id: IntegerIdParam, changeId: IntegerIdParam })
export const FeatureParams = Type.Object({ projectId: PathName, featureName: PathName })

export const ConfigBody = Type.Object(
  {
    changeRequestsEnabled: Type.Boolean({ description: 'Whether changes in this environment need change requests' }),
    requiredApprovals: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10,
        description:
          'Approvals a request needs (default: as before, else 1); 0: a request is Approved once its author sends it to review, to apply or schedule without a second person',
      }),
    ),
  },
  { additionalProperties: false },
)

export const ConfigResponse = Type.Array(
  Type.Object({
    environment: Type.String(),
    type: Type.String(),
    changeRequestEnabled: Type.Boolean(),
    requiredApprovals: Type.Integer(),
  }),
)

/** The actions of the open edition, each with the payload schema it is checked against when added. */
export const PAYLOADS = {
  updateEnabled: Type.Object({ enabled: Type.Boolean() }),
  addStrategy: CreateStrategyBody,
  updateStrategy: Type.Object({ id: Type.String({ maxLength: 255 }), ...UpdateStrategyBody.properties }),
  deleteStrategy: Type.Object({ id: Type.String({ maxLength: 255 }) }),
  reorderStrategy: SortOrderBody,
  patchVariant: Type.Object({ variants: VariantsBody }),
  // The flag as a whole (its request's environment only hosts the change): no body, as the direct routes.
  archiveFeature: Type.Object({}, { additionalProperties: false }),
  addDependency: CreateDependencyBody,
  deleteDependency: Type.Object(
    { feature: Type.Optional(Type.String({ maxLength: 1000, description: 'The one parent to remove (left out: every one)' })) },
    { additionalProperties: false },
  ),
  // A segment's changes (`feature: null`): the direct routes' bodies, with the segment's id.
  updateSegment: Type.Object({ id: Type.Integer({ minimum: 1 }), ...UpsertSegmentBody.properties }),
  deleteSegment: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
} satisfies Record<string, TSchema>
export type ChangeAction = keyof typeof PAYLOADS
export type PayloadOf<A extends ChangeAction> = Static<(typeof PAYLOADS)[A]>
export const ACTIONS = Object.keys(PAYLOADS) as ChangeAction[]
/** Actions whose payload may be left out, as the reference's UI sends them: stored as `{}`. */
export const PAYLOAD_OPTIONAL: ReadonlySet<string> = new Set<ChangeAction>(['archiveFeature', 'deleteDependency'])
/** Actions that change a segment, not a flag: sent with `feature: null`, shown under the request's `segments`. */
export const SEGMENT_ACTIONS: ReadonlySet<string> = new Set<ChangeAction>(['updateSegment', 'deleteSegment'])

export const ChangeBody = Type.Object({
  feature: Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()], {
    description: "The flag the change is about; null for a segment's change (updateSegment, deleteSegment)",
  }),
  action: Type.Union(
    ACTIONS.map((action) => Type.Literal(action)),
    { description: ACTIONS.join(', ') },
  ),
  payload: Type.Optional(
    Type.Unknown({
      description: "The action's payload, as the direct route's body (archiveFeature and deleteDependency: may be left out)",
    }),
  ),
})
export type ChangeBody = Static<typeof ChangeBody>
/** One change, or several (as the reference's UI sends them): added in their order, all or none. */
export const ChangeBodies = Type.Union([ChangeBody, Type.Array(ChangeBody, { minItems: 1, maxItems: 100 })])

/** The states, as the reference's. */
export const STATES = ['Draft', 'In review', 'Approved', 'Applied', 'Scheduled', 'Cancelled', 'Rejected'] as const
export type ChangeRequestState = (typeof STATES)[number]

export const StateBody = Type.Object({
  state: Type.Union(
    STATES.filter((state) => state !== 'Draft').map((state) => Type.Literal(state)),
    { description: 'In review, Approved, Rejected, Applied, Scheduled or Cancelled' },
  ),
  comment: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
  scheduledAt: Type.Optional(
    Type.String({ maxLength: 100, description: 'With Scheduled: when to apply it, an ISO 8601 time in the future' }),
  ),
})
export type StateBody = Static<typeof StateBody>

export const TitleBody = Type.Object({ title: Type.String({ minLength: 1, maxLength: 255 }) })
export const CommentBody = Type.Object({ text: Type.String({ minLength: 1, maxLength: 10_000 }) })

const User = Type.Object({ id: Type.Integer(), username: Type.String(), imageUrl: Type.String() })
const Change = Type.Object({
  id: Type.Integer(),
  action: Type.String(),
  payload: Type.Unknown(),
  createdBy: User,
  createdAt: Type.String(),
})

/** A segment's change, as the reference shows it: `name` is the segment's (the one it is given, for an update). */
const SegmentChange = Type.Object({
  id: Type.Integer(),
  action: Type.String(),
  name: Type.String(),
  payload: Type.Unknown(),
  createdBy: User,
  createdAt: Type.String(),
})

export const ChangeRequestResponse = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  project: Type.String(),
  environment: Type.String(),
  state: Type.String(),
  minApprovals: Type.Integer(),
  createdBy: User,
  createdAt: Type.String(),
  features: Type.Array(Type.Object({ name: Type.String(), changes: Type.Array(Change) })),
  segments: Type.Array(SegmentChange),
  approvals: Type.Array(Type.Object({ createdBy: User, createdAt: Type.String() })),
  rejections: Type.Array(Type.Object({ createdBy: User, createdAt: Type.String() })),
  comments: Type.Array(Type.Object({ id: Type.Integer(), text: Type.String(), createdBy: User, createdAt: Type.String() })),
  stateTimestamps: Type.Record(Type.String(), Type.String()),
  schedule: Type.Optional(
    Type.Object({
      scheduledAt: Type.String(),
      status: Type.String({ description: 'pending, failed or suspended' }),
      reason: Type.Optional(Type.String()),
      failureReason: Type.Optional(Type.String()),
    }),
  ),
})
export const ChangeRequestList = Type.Array(ChangeRequestResponse)

export const CountResponse = Type.Object({
  applied: Type.Integer(),
  approved: Type.Integer(),
  rejected: Type.Integer(),
  scheduled: Type.Integer(),
  reviewRequired: Type.Integer(),
  total: Type.Integer(),
})

export const ScheduledQuery = Type.Object({
  feature: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000 })])),
  strategyId: Type.Optional(Type.String({ maxLength: 255 })),
})
/** The reference's actionableChangeRequestsSchema. */
export const ActionableResponse = Type.Object({
  total: Type.Integer({ minimum: 0, description: 'The number of actionable change requests in the project' }),
})

export const ScheduledList = Type.Array(Type.Object({ id: Type.Integer(), environment: Type.String(), title: Type.String() }))
