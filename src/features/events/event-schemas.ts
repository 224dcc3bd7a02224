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
