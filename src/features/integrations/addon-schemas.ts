import { Type, type Static } from '@sinclair/typebox'
import { IntegerIdParam } from '../../http/common-schemas.ts'

export const AddonParams = Type.Object({ id: IntegerIdParam })

const Names = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000, description })
const ParameterValue = Type.Union([Type.String({ maxLength: 100_000 }), Type.Number(), Type.Boolean()])

/** Create and change, as the reference's addonCreateUpdateSchema. */
export const AddonBody = Type.Object({
  provider: Type.String({ maxLength: 100, description: 'One of the providers GET /api/admin/addons lists' }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  enabled: Type.Boolean(),
  parameters: Type.Record(Type.String({ maxLength: 100 }), ParameterValue, {
    maxProperties: 50,
    description: "The provider's parameters; on a change, `*****` keeps a stored value",
  }),
  events: Names('The event types it takes'),
  projects: Type.Optional(Names('The projects whose events it takes; none, or `*`: every project (and events of none)')),
  environments: Type.Optional(Names('The environments whose events it takes; none, or `*`: every environment (and events of none)')),
})
export type AddonBody = Static<typeof AddonBody>

export const AddonResponse = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  provider: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  parameters: Type.Record(Type.String(), ParameterValue, { description: 'Sensitive parameters that are set show as `*****`' }),
  events: Type.Array(Type.String()),
  projects: Type.Array(Type.String()),
  environments: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
})

const ProviderParameter = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  type: Type.String(),
  description: Type.String(),
  placeholder: Type.Optional(Type.String()),
  required: Type.Boolean(),
  sensitive: Type.Boolean(),
})

const ProviderResponse = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  documentationUrl: Type.String(),
  howTo: Type.Optional(Type.String()),
  parameters: Type.Array(ProviderParameter),
  events: Type.Array(Type.String()),
})

export const AddonsResponse = Type.Object({
  addons: Type.Array(AddonResponse),
  providers: Type.Array(ProviderResponse),
})

export const AttemptsQuery = Type.Object({
  limit: Type.Optional(Type.String({ maxLength: 20 })),
  offset: Type.Optional(Type.String({ maxLength: 20 })),
})

export const RedeliverParams = Type.Object({ id: IntegerIdParam, eventId: IntegerIdParam })

/** One delivery try, as the reference's integrationEventSchema. */
export const AttemptResponse = Type.Object({
  id: Type.String({ pattern: '^[0-9]+$' }),
  integrationId: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  state: Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('successWithErrors')]),
  stateDetails: Type.String(),
  event: Type.Unknown({ description: 'The event, as GET /api/admin/events shows it' }),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'What was sent' }),
})

export const AttemptsResponse = Type.Object({ integrationEvents: Type.Array(AttemptResponse) })
