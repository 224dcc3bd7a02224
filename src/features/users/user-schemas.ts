import { Type, type Static } from '@sinclair/typebox'

const DateTime = Type.String({ format: 'date-time' })
// A root role by id (1 Admin, 2 Editor, 3 Viewer) or by name, as the reference accepts it.
const RootRoleInput = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 100 })], {
  description: '1 or "Admin", 2 or "Editor", 3 or "Viewer"',
})
const Password = Type.String({ maxLength: 1000, description: 'The rules: POST /api/admin/user-admin/validate-password' })

export const CreateUserBody = Type.Object(
  {
    username: Type.Optional(Type.String({ maxLength: 255 })),
    email: Type.Optional(Type.String({ maxLength: 255 })),
    name: Type.Optional(Type.String({ maxLength: 255 })),
    password: Type.Optional(Password),
    rootRole: RootRoleInput,
    sendEmail: Type.Optional(
      Type.Boolean({
        description: 'With SMTP configured: whether to email the user a welcome (with the invite link); true when absent, as the reference',
      }),
    ),
  },
  { additionalProperties: false },
)
export type CreateUserBody = Static<typeof CreateUserBody>

export const UpdateUserBody = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 255 })),
  name: Type.Optional(Type.String({ maxLength: 255 })),
  rootRole: Type.Optional(RootRoleInput),
})
export type UpdateUserBody = Static<typeof UpdateUserBody>

export const UserResponse = Type.Object({
  id: Type.Integer(),
  name: Type.Union([Type.String(), Type.Null()]),
  username: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  rootRole: Type.Integer({ description: '1 Admin, 2 Editor, 3 Viewer' }),
  loginAttempts: Type.Integer({ description: 'Failed sign-ins since the last successful one' }),
  seenAt: Type.Union([DateTime, Type.Null()], { description: 'The last sign-in' }),
  createdAt: DateTime,
  accountType: Type.Literal('User'),
})
export const CreatedUserResponse = Type.Object({
  ...UserResponse.properties,
  inviteLink: Type.Optional(Type.String({ description: 'For a user created without a password: where they set one (valid 7 days)' })),
  emailSent: Type.Boolean({ description: 'Whether the welcome email was sent (never without SMTP configured)' }),
})

export const RootRoleResponse = Type.Object({
  id: Type.Integer(),
  type: Type.Literal('root'),
  name: Type.String(),
  description: Type.String(),
})
export const UserListResponse = Type.Object({ users: Type.Array(UserResponse), rootRoles: Type.Array(RootRoleResponse) })

export const PasswordBody = Type.Object(
  { password: Password, oldPassword: Type.Optional(Password), confirmPassword: Type.Optional(Password) },
  { additionalProperties: false },
)
export type PasswordBody = Static<typeof PasswordBody>

export const IdBody = Type.Object(
  {
    id: Type.Union([Type.String({ maxLength: 255 }), Type.Integer()], {
      description: "The user's email (any case) as the reference takes it, their username, or their id (a number or its digits)",
    }),
  },
  { additionalProperties: false },
)
export const ResetPasswordResponse = Type.Object({ resetPasswordUrl: Type.String() })
export const SearchQuery = Type.Object({ q: Type.Optional(Type.String({ maxLength: 255 })) })
