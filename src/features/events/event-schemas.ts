import { Type, type Static } from '@sinclair/typebox'

export const EventsQuery = Type.Object({
  project: Type.Optional(
    Type.String({ maxLength: 1000, description: 'Only the events of this project, all of them. Empty means absent. Given once.' }),
  ),
})
export type EventsQuery = Static<typeof EventsQuery>

export const FeatureEventsParams = Type.Object({ featureName: Type.String({ maxLength: 1000, description: 'A feature flag name' }) })
export type FeatureEventsParams = Static<typeof FeatureEventsParams>

const NullableString = Type.Union([Type.String(), Type.Null()])
const NullableObject = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])

/** Documentation only: bodies are sent as the stored JSON text, never re-serialized. */
export const EventSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    type: Type.String({ description: 'kebab-case event type, e.g. feature-created' }),
    createdBy: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    createdByUserId: Type.Integer(),
    data: NullableObject,
    preData: NullableObject,
    tags: Type.Array(Type.Object({ value: Type.String(), type: Type.String() })),
    featureName: NullableString,
    project: NullableString,
    environment: NullableString,
    groupType: Type.Union([Type.Literal('transaction'), Type.Literal('system')]),
    groupId: Type.String(),
  },
  { description: 'An audit event; keys always in this order.' },
)

export const EventsResponse = Type.Object(
  {
    version: Type.Literal(1),
    events: Type.Array(EventSchema, { description: 'Newest first' }),
    totalEvents: Type.Integer({ minimum: 0, description: 'All events of the instance, or of the project when one is given' }),
  },
  { description: 'Without `project`: the last 100 events. With it: every event of the project, streamed.' },
)

export const FeatureEventsResponse = Type.Object(
  {
    version: Type.Literal(1),
    toggleName: Type.String(),
    events: Type.Array(EventSchema, { description: 'Newest first' }),
    totalEvents: Type.Integer({ minimum: 0 }),
  },
  { description: 'Every event of the flag, streamed; an unknown flag has none.' },
)

const filter = (description: string) => Type.Optional(Type.String({ maxLength: 10_000, description }))

export const EventSearchQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 1000, description: "Text found in an event's data, preData or tags (case-insensitive)" })),
  id: filter('IS:<id> or IS_ANY_OF:<id>,<id>…'),
  groupId: filter('IS:<groupId> or IS_ANY_OF:…'),
  feature: filter('IS:<flag name> or IS_ANY_OF:…'),
  project: filter('IS:<project id> or IS_ANY_OF:…'),
  type: filter('IS:<event type> or IS_ANY_OF:…'),
  environment: filter('IS:<environment> or IS_ANY_OF:…'),
  createdBy: filter('IS:<user id> or IS_ANY_OF:…: who made the event'),
  from: filter('IS:yyyy-MM-dd: created on or after that day (UTC)'),
  to: filter('IS:yyyy-MM-dd: created on or before that day (UTC)'),
  offset: Type.Optional(Type.String({ maxLength: 1000, description: 'Events to skip; 0 by default' })),
  limit: Type.Optional(
    Type.String({ maxLength: 1000, description: 'Events in the page, 1 to 1000 (more is taken as 1000); 50 by default' }),
  ),
})
export type EventSearchQuery = Static<typeof EventSearchQuery>

export const EventSearchResponse = Type.Object(
  {
    events: Type.Array(EventSchema, { description: 'Newest first' }),
    total: Type.Integer({ minimum: 0, description: 'Events that match, in all' }),
  },
  { description: "One page of the events that match every filter given (the reference's eventSearchResponseSchema)" },
)

export const EventCreatorsResponse = Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false }), {
  description: 'Everyone who made an event, by user id ascending',
})
