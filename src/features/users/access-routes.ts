/**
 * The reference's other /user-admin routes: the people and accounts of the access overview,
 * inactive people (inactive-users.ts) and the deletion of SCIM-provisioned people (Pennon has none).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { createTokenStore } from '../api-tokens/token-store.ts'
import type { InactiveUsers } from './inactive-users.ts'
import { createUserStore } from './user-store.ts'

const tags = ['Users']
const Text = Type.Union([Type.String(), Type.Null()])
const DateTime = Type.String({ format: 'date-time' })

const AccessResponse = Type.Object({
  users: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Text,
      username: Text,
      email: Text,
      accountType: Type.Union([Type.Literal('User'), Type.Literal('Service Account')]),
    }),
    { description: 'People by id, then service accounts by id' },
  ),
  groups: Type.Array(Type.Object({}), { description: 'Always empty: Pennon has no groups' }),
})

const InactiveUsersResponse = Type.Object({
  version: Type.Literal(1),
  inactiveUsers: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Text,
      email: Text,
      username: Text,
      seenAt: Type.Union([DateTime, Type.Null()], { description: 'The last sign-in' }),
      createdAt: DateTime,
      patSeenAt: Type.Union([DateTime, Type.Null()], { description: 'The last use of one of their personal tokens' }),
    }),
    { description: 'By id' },
  ),
})

const IdsBody = Type.Object({
  ids: Type.Array(Type.Integer({ minimum: 0, maximum: 2147483647 }), { maxItems: 1000, description: 'Ids of inactive people' }),
})

export const accessRoutes: FastifyPluginAsyncTypebox<{ db: Kysely<Database>; inactive: InactiveUsers }> = async (app, { db, inactive }) => {
  app.get(
    '/user-admin/access',
    {
      config: { permission: 'NONE' },
      schema: {
        tags,
        summary: 'People and service accounts, for the access overview',
        description: 'Any admin-API credential (NONE), as the reference: names and emails only, no roles nor activity.',
        response: { 200: AccessResponse, ...errorResponses(401, 403) },
      },
    },
    async () => {
      const [people, accounts] = await Promise.all([createUserStore(db).list(), createTokenStore(db).listServiceAccounts()])
      return {
        users: [
          ...people.map(({ id, name, username, email }) => ({ id, name, username, email, accountType: 'User' as const })),
          ...accounts.map(({ id, name, username }) => ({ id, name, username, email: null, accountType: 'Service Account' as const })),
        ],
        groups: [],
      }
    },
  )

  app.get(
    '/user-admin/inactive',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'People inactive for USER_INACTIVITY_THRESHOLD_IN_DAYS days (default 180)',
        description:
          'Created before then, and neither signed in nor used a personal token since (never counts as not), as the reference defines them.',
        response: { 200: InactiveUsersResponse, ...errorResponses(401, 403) },
      },
    },
    async () => inactive.list(),
  )

  app.post(
    '/user-admin/inactive/delete',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Delete inactive people',
        description:
          "Each with its user-deleted event, all or none. The caller's own id is left out, as the reference does. 404 for an unknown id; 400 for a person who is not inactive (the reference deletes whoever it is given); 409 for the last credential that can administer Pennon.",
        body: IdsBody,
        response: { 200: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await inactive.delete(request.body.ids, request.principal)
      return sendEmpty(reply, 200)
    },
  )

  app.delete(
    '/user-admin/scim-users',
    {
      config: { permission: 'ADMIN' },
      schema: {
        tags,
        summary: 'Delete every person provisioned by SCIM: none here',
        description:
          'Pennon provisions no one through SCIM, so there is none to delete: 200, no event, as the reference answers with no SCIM users.',
        response: { 200: NoContent, ...errorResponses(401, 403) },
      },
    },
    async (_request, reply) => sendEmpty(reply, 200),
  )
}
