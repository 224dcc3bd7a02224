import { Type, type Static } from '@sinclair/typebox'

const DateTime = Type.String({ format: 'date-time' })
const NullableDateTime = Type.Union([DateTime, Type.Null()])
const Label = Type.String({ minLength: 1, maxLength: 255 })

export const CreateApiTokenBody = Type.Object({
  tokenName: Label,
  type: Type.Union([Type.Literal('admin'), Type.Literal('client'), Type.Literal('backend'), Type.Literal('frontend')]),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  projects: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 1000 })),
  project: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'One project, as `projects: [project]` (the older field Unleash documents); not together with `projects`.',
    }),
  ),
  expiresAt: Type.Optional(NullableDateTime),
})
export type CreateApiTokenBody = Static<typeof CreateApiTokenBody>

/** A project's token: its projects are the project of the path; no admin type (any case, as the reference). */
export const CreateProjectApiTokenBody = Type.Object({
  tokenName: Label,
  type: Type.String({
    pattern: '^([Cc][Ll][Ii][Ee][Nn][Tt]|[Bb][Aa][Cc][Kk][Ee][Nn][Dd]|[Ff][Rr][Oo][Nn][Tt][Ee][Nn][Dd])$',
    description: '`client`, `backend` or `frontend`, in any case',
  }),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  expiresAt: Type.Optional(NullableDateTime),
})
export type CreateProjectApiTokenBody = Static<typeof CreateProjectApiTokenBody>

/** The token's whole secret, as its creation showed it (never echoed back in an error). */
export const ProjectTokenParams = Type.Object({ projectId: Type.String({ maxLength: 1000 }), token: Type.String() })

export const ApiTokenResponse = Type.Object({
  tokenName: Type.String(),
  type: Type.String(),
  environment: Type.String(),
  projects: Type.Array(Type.String()),
  expiresAt: NullableDateTime,
  createdAt: DateTime,
})
export const CreatedApiTokenResponse = Type.Object({ ...ApiTokenResponse.properties, secret: Type.String() })
export const ApiTokenListResponse = Type.Object({ tokens: Type.Array(ApiTokenResponse) })
export const TokenNameParams = Type.Object({ tokenName: Type.String({ maxLength: 1000 }) })
export const TokenSecretParams = Type.Object({ token: Type.String({ maxLength: 1000, description: "The token's secret" }) })
export const UpdateApiTokenBody = Type.Object({ expiresAt: DateTime })
export type UpdateApiTokenBody = Static<typeof UpdateApiTokenBody>

export const CreateServiceAccountBody = Type.Object({
  username: Label,
  name: Label,
  rootRole: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], { description: '1 Admin, 2 Editor, 3 Viewer' }),
})
export type CreateServiceAccountBody = Static<typeof CreateServiceAccountBody>

export const ServiceAccountResponse = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  rootRole: Type.Integer(),
  createdAt: DateTime,
})
export const ServiceAccountListResponse = Type.Object({ serviceAccounts: Type.Array(ServiceAccountResponse) })
export const ServiceAccountParams = Type.Object({ id: Type.String({ maxLength: 1000 }) })

export const CreateServiceAccountTokenBody = Type.Object({
  description: Type.String({ maxLength: 255 }),
  expiresAt: NullableDateTime,
})
export type CreateServiceAccountTokenBody = Static<typeof CreateServiceAccountTokenBody>

export const ServiceAccountTokenResponse = Type.Object({
  id: Type.Integer(),
  description: Type.String(),
  expiresAt: NullableDateTime,
  createdAt: DateTime,
  secret: Type.String(),
})
