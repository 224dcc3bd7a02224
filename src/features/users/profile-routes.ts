/** `/api/admin/user`: the signed-in user (a session or a personal token) and their own password. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { notFound } from '../../http/errors.ts'
import { addressKey } from '../../http/client-address.ts'
import { PERMISSIONS, type Principal } from '../../http/permissions.ts'
import { PasswordBody, RootRoleResponse, UserResponse } from './user-schemas.ts'
import { rootRoleOf, type UserService } from './user-service.ts'

const tags = ['Users']

/** The user id of a principal that is a person; 404 for tokens (they have no profile, no password, no personal tokens). */
export function personOf(principal: Principal): number {
  if (principal.kind !== 'user')
    throw notFound('This is for signed-in users and their personal access tokens: the credential used is not a person.')
  return principal.userId
}

const MeUserResponse = Type.Object({
  user: UserResponse,
  permissions: Type.Array(Type.Object({ permission: Type.String() })),
  feedback: Type.Array(Type.Object({})),
  splash: Type.Object({}),
})
const ProfileResponse = Type.Object({
  rootRole: RootRoleResponse,
  projects: Type.Array(Type.String()),
  groups: Type.Array(Type.Object({})),
  features: Type.Array(Type.Object({})),
  subscriptions: Type.Array(Type.String()),
  canChangePassword: Type.Boolean(),
})

/** The reference's roleSchema: a role held in a project (Pennon has none to list). */
const ProjectRoleResponse = Type.Object({
  id: Type.Integer({ minimum: 0 }),
  type: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  project: Type.Optional(Type.Union([Type.String(), Type.Null()])),
})

export const profileRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (app, { users }) => {
  app.get(
    '/user',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'The signed-in user and their permissions',
        response: { 200: MeUserResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const user = await users.get(personOf(request.principal))
      return {
        user,
        permissions: PERMISSIONS.filter((p) => request.principal.permissions.has(p)).map((permission) => ({ permission })),
        feedback: [],
        splash: {},
      }
    },
  )

  app.get(
    '/user/roles',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: "The caller's roles in a project",
        description:
          'Always `{version: 1, roles: []}`: Pennon has root roles only, no project roles (GET /user/profile has the root role). `projectId` is required, as the reference.',
        querystring: Type.Object({ projectId: Type.String({ minLength: 1, maxLength: 1000 }) }),
        response: {
          200: Type.Object({ version: Type.Literal(1), roles: Type.Array(ProjectRoleResponse) }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async () => ({ version: 1 as const, roles: [] }),
  )

  app.get(
    '/user/profile',
    {
      config: { permission: 'NONE' },
      schema: { tags, summary: "The signed-in user's root role", response: { 200: ProfileResponse, ...errorResponses(401, 403, 404) } },
    },
    async (request) => {
      const user = await users.get(personOf(request.principal))
      return {
        rootRole: rootRoleOf(user.rootRole),
        projects: ['default'],
        groups: [],
        features: [],
        subscriptions: [],
        canChangePassword: true,
      }
    },
  )

  app.post(
    '/user/change-password',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Change your own password: send the current one as oldPassword; your other sessions end',
        description:
          'Wrong current passwords count as failed sign-ins do (LOGIN_FAILURES_PER_ACCOUNT per 15 minutes per address): past that, 429 with Retry-After.',
        body: PasswordBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      await users.changeOwnPassword(personOf(request.principal), request.body, addressKey(request.ip), request.principal.session)
      return sendEmpty(reply, 200)
    },
  )
}
