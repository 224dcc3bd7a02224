/**
 * GET /api/admin/me: who the caller is and what it may do, so a client (the console) can
 * show what the caller cannot do as disabled, naming the permission, instead of meeting 403s.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { PERMISSIONS, type Principal } from '../../http/permissions.ts'

export const MeResponse = Type.Object({
  kind: Type.Union([Type.Literal('admin-token'), Type.Literal('service-account'), Type.Literal('user'), Type.Literal('open-access')], {
    description:
      'An admin API token, a service-account token, a person (signed in, or with a personal access token), or anybody under AUTH_TYPE=none',
  }),
  name: Type.String({
    description: 'The token name, the service account username, the person\'s email (else username), or "unknown" under AUTH_TYPE=none',
  }),
  id: Type.Optional(Type.Integer({ description: "A person's user id" })),
  session: Type.Optional(Type.Boolean({ description: 'true: signed in with a session cookie (sign out with POST /logout)' })),
  rootRole: Type.Union([Type.Literal('Admin'), Type.Literal('Editor'), Type.Literal('Viewer')]),
  permissions: Type.Array(Type.String(), {
    description: 'ADMIN alone for admins (it grants everything); otherwise each permission held, in a fixed order',
  }),
})

function rootRoleOf(principal: Principal): 'Admin' | 'Editor' | 'Viewer' {
  if (principal.permissions.has('ADMIN')) return 'Admin'
  return principal.permissions.size > 0 ? 'Editor' : 'Viewer'
}

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me',
    {
      // Client and frontend tokens are refused by the pipeline (403): they are no admin-API credential.
      config: { permission: 'NONE' },
      schema: {
        tags: ['Service'],
        summary: 'The caller: kind, name, root role and permissions',
        response: { 200: MeResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const { principal } = request
      return {
        kind: principal.kind as 'admin-token' | 'service-account' | 'user' | 'open-access',
        name: principal.name,
        ...(principal.kind === 'user' ? { id: principal.userId } : {}),
        ...(principal.session === undefined ? {} : { session: true }),
        rootRole: rootRoleOf(principal),
        permissions: PERMISSIONS.filter((permission) => principal.permissions.has(permission)),
      }
    },
  )
}
