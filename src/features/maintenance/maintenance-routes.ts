import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import type { MaintenanceService } from './maintenance-service.ts'

const tags = ['Maintenance']

export const MaintenanceResponse = Type.Object(
  { enabled: Type.Boolean({ description: 'Whether maintenance mode is on' }) },
  { additionalProperties: false },
)
export const ToggleMaintenanceBody = Type.Object({
  enabled: Type.Boolean({ description: 'true: refuse changes through the admin API; false: accept them again' }),
})

export const maintenanceRoutes: FastifyPluginAsyncTypebox<{ maintenance: MaintenanceService }> = async (app, { maintenance }) => {
  app.get(
    '/maintenance',
    {
      config: { permission: 'ADMIN' },
      schema: { tags, summary: 'Whether maintenance mode is on', response: { 200: MaintenanceResponse, ...errorResponses(401, 403) } },
    },
    async () => maintenance.get(),
  )

  app.post(
    '/maintenance',
    {
      // The one change maintenance mode lets through: turning it off.
      config: { permission: 'ADMIN', duringMaintenance: true },
      schema: {
        tags,
        summary: 'Turn maintenance mode on or off',
        description:
          'While it is on, every change through the admin API is refused with a 503 (MaintenanceModeError), but this one; reads, sign-in and the SDK APIs go on. Events: setting-created the first time, setting-updated after (none when nothing changes).',
        body: ToggleMaintenanceBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      await maintenance.set(request.body.enabled, request.principal)
      return sendEmpty(reply, 204)
    },
  )
}
