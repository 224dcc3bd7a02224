import { Type, type Static } from '@sinclair/typebox'

const DateTime = Type.String({ format: 'date-time' })

/** A token's secret in a path: the reference's are 32 hex digits; anything far longer is refused before any query. */
export const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) })

export const SignupTokenResponse = Type.Object(
  {
    secret: Type.String({ description: 'The secret the invite link carries' }),
    url: Type.Union([Type.String(), Type.Null()], { description: 'The invite link: where people sign up' }),
    name: Type.String(),
    enabled: Type.Boolean({ description: 'Whether the link works: always false once it has expired' }),
    expiresAt: DateTime,
    createdAt: DateTime,
    createdBy: Type.Union([Type.String(), Type.Null()]),
    users: Type.Union([
      Type.Array(
        Type.Object({
          id: Type.Integer(),
          name: Type.Union([Type.String(), Type.Null()]),
          username: Type.Union([Type.String(), Type.Null()]),
        }),
      ),
      Type.Null(),
    ]),
    role: Type.Object({ id: Type.Integer(), type: Type.Literal('root'), name: Type.String() }),
  },
  { additionalProperties: false },
)
export type SignupToken = Static<typeof SignupTokenResponse>
export const SignupTokensResponse = Type.Object({ tokens: Type.Array(SignupTokenResponse) }, { additionalProperties: false })

export const CreateTokenBody = Type.Object(
  {
    name: Type.String({ maxLength: 255 }),
    expiresAt: Type.String({ format: 'date-time', description: 'At most a month away: a later date is brought to a month from now' }),
  },
  { additionalProperties: false },
)
export type CreateTokenBody = Static<typeof CreateTokenBody>

export const UpdateTokenBody = Type.Object(
  {
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'At most a month away, as at creation' })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type UpdateTokenBody = Static<typeof UpdateTokenBody>

export const SignupBody = Type.Object(
  {
    username: Type.Optional(Type.String({ maxLength: 255 })),
    email: Type.String({ maxLength: 255 }),
    name: Type.String({ maxLength: 255 }),
    password: Type.String({ maxLength: 1000, description: 'The rules: POST /auth/reset/validate-password' }),
  },
  { additionalProperties: false },
)
export type SignupBody = Static<typeof SignupBody>
