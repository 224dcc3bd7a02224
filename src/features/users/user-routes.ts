/** `/api/admin/user-admin`: people, managed by admins (docs/security.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { Config } from '../../config.ts'
import { errorResponses, IntegerIdParam, NoContent, parseIntegerId, sendEmpty } from '../../http/common-schemas.ts'
import { addressKey } from '../../http/client-address.ts'
import { checkPasswordRules } from './password.ts'
import {
  CreatedUserResponse,
  CreateUserBody,
  IdBody,
  PasswordBody,
  ResetPasswordResponse,
  SearchQuery,
  UpdateUserBody,
  UserListResponse,
  UserResponse,
} from './user-schemas.ts'
import { ROOT_ROLE_LIST, type UserService } from './user-service.ts'

const tags = ['Users']
const UserParams = Type.Object({ id: IntegerIdParam })

/** Where invite and reset links point: PUBLIC_URL, or the origin this request reached. */
export const baseUrlOf = (request: FastifyRequest, config: Config): string => config.publicUrl ?? `${request.protocol}://${request.host}`

export const userRoutes: FastifyPluginAsyncTypebox<{ users: UserService; config: Config }> = async (app, { users, config }) => {
  app.get(
    '/user-admin',
    {
      config: { permission: 'ADMIN' },
      schema: { tags, summary: 'List users, with the root roles', response: { 200: UserListResponse, ...errorResponses(401, 403) } },
    },
    async () => ({ users: await users.list(), rootRoles: ROOT_ROLE_LIST }),
  )

  app.get(
    '/user-admin/search',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Users whose username, email or name contains q (any case), at most 100',
        querystring: SearchQuery,
        response: { 200: Type.Array(UserResponse), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => users.search(request.query.q ?? ''),
  )

  app.post(
    '/user-admin',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Create a user with a root role; without a password the answer has an invite link to hand over',
        description:
          'With SMTP configured (EMAIL_HOST) and `sendEmail` not false, a user with an email is also sent a welcome email (with the invite link); `emailSent` says whether it went. A failed send leaves the user created. A taken email or username is a 400, as the reference answers.',
        body: CreateUserBody,
        response: { 201: CreatedUserResponse, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await users.create(request.body, request.principal, baseUrlOf(request, config), addressKey(request.ip))),
  )

  app.post(
    '/user-admin/validate-password',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'Whether a password meets the rules',
        body: PasswordBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      checkPasswordRules(request.body.password)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/user-admin/reset-password',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'A link (valid a day) for a user to set a new password; with SMTP configured (EMAIL_HOST) it is also emailed to them',
        body: IdBody,
        response: { 200: ResetPasswordResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const { id } = request.body
      // Unleash sends the email; Pennon's console and older callers the id, as a number or its digits.
      const who = typeof id === 'number' || /^[0-9]+$/.test(id) ? parseIntegerId(String(id), '/body/id') : { login: id }
      const { link } = await users.resetLink(who, request.principal, baseUrlOf(request, config))
      return { resetPasswordUrl: link }
    },
  )

  app.get(
    '/user-admin/admin-count',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'How many admins there are: users with a password, users without one, service accounts',
        response: {
          200: Type.Object(
            { password: Type.Integer(), noPassword: Type.Integer(), service: Type.Integer() },
            { additionalProperties: false },
          ),
          ...errorResponses(401, 403),
        },
      },
    },
    async () => users.adminCount(),
  )

  app.get(
    '/user-admin/:id',
    {
      config: { permission: 'ADMIN' },
      schema: { tags, summary: 'A user', params: UserParams, response: { 200: UserResponse, ...errorResponses(400, 401, 403, 404) } },
    },
    async (request) => users.get(parseIntegerId(request.params.id, '/params/id')),
  )

  app.put(
    '/user-admin/:id',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: "Change a user's name, email or root role; a new role ends their sessions",
        description: 'Refused (409) when it takes the Admin role from the last credential that can administer Pennon.',
        params: UserParams,
        body: UpdateUserBody,
        response: { 200: UserResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => users.update(parseIntegerId(request.params.id, '/params/id'), request.body, request.principal),
  )

  app.delete(
    '/user-admin/:id',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Delete a user: their sessions and personal tokens stop working at once',
        description: 'Refused (409) when they are the last credential that can administer Pennon.',
        params: UserParams,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await users.delete(parseIntegerId(request.params.id, '/params/id'), request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.post(
    '/user-admin/:id/change-password',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: "Set a user's password; every session of theirs ends",
        params: UserParams,
        body: PasswordBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      await users.setPassword(parseIntegerId(request.params.id, '/params/id'), request.body.password, addressKey(request.ip))
      return sendEmpty(reply, 200)
    },
  )
}
