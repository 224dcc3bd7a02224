import { Type, type Static } from '@sinclair/typebox'

const filter = (description: string) => Type.Optional(Type.String({ maxLength: 10_000, description }))

/** The query parameters of the reference's searchChangeRequests (and the sorting its page sends); docs/change-requests.md#searching. */
export const ChangeRequestSearchQuery = Type.Object({
  createdBy: filter('IS:<user id> or IS_ANY_OF:<user id>,…: who made the request'),
  requestedApproverId: filter('IS:<user id> or IS_ANY_OF:…: requests In review awaiting that person’s approval'),
  state: filter('IS:open (Draft, In review, Approved, Scheduled) or IS:closed (Applied, Cancelled, Rejected); IS_ANY_OF:open,closed'),
  sortBy: Type.Optional(Type.String({ maxLength: 1000, description: 'createdAt (the only one, and the default)' })),
  sortOrder: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'desc (newest first) by default' })),
  offset: Type.Optional(Type.String({ maxLength: 1000, description: 'Requests to skip; 0 by default' })),
  limit: Type.Optional(
    Type.String({ maxLength: 1000, description: 'Requests in the page, 1 to 1000 (more is taken as 1000); 50 by default' }),
  ),
})
export type ChangeRequestSearchQuery = Static<typeof ChangeRequestSearchQuery>

const Schedule = Type.Object(
  {
    scheduledAt: Type.String({ format: 'date-time' }),
    status: Type.String({ description: 'pending, failed or suspended' }),
    reason: Type.Optional(Type.String()),
    failureReason: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

export const ChangeRequestSearchItem = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    project: Type.String(),
    environment: Type.String(),
    state: Type.String(),
    createdBy: Type.Object({ id: Type.Integer(), username: Type.String(), imageUrl: Type.String() }, { additionalProperties: false }),
    createdAt: Type.String({ format: 'date-time' }),
    features: Type.Array(Type.String(), { description: 'The flags it changes, in the order their first change was added' }),
    segments: Type.Array(Type.String(), { description: 'The segments it changes, by name, in the order their first change was added' }),
    schedule: Type.Optional(Schedule),
  },
  { additionalProperties: false, description: "The reference's changeRequestSearchItemSchema" },
)
export type ChangeRequestSearchItem = Static<typeof ChangeRequestSearchItem>

export const ChangeRequestSearchResponse = Type.Object(
  {
    changeRequests: Type.Array(ChangeRequestSearchItem, { description: 'Newest first (sortOrder=asc: oldest first)' }),
    total: Type.Integer({ minimum: 0, description: 'Requests that match, in all' }),
  },
  {
    additionalProperties: false,
    description: "One page of the change requests that match every filter (the reference's changeRequestSearchResponseSchema)",
  },
)
