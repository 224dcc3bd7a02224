import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, parseIntegerId } from '../../http/common-schemas.ts'
import { REVERT_PERMISSIONS } from './revert-diff.ts'
import { RevertParams, RevertQuery, RevertResponse } from './revert-schemas.ts'
import type { RevertService } from './revert-service.ts'

export const revertRoutes: FastifyPluginAsyncTypebox<{ reverts: RevertService }> = async (app, { reverts }) => {
  app.post(
    '/events/:id/revert',
    {
      // Any one of them lets the request in (so a read-only credential gets its 403 at once); the
      // service then requires the one the event's equivalent change needs.
      config: { permission: REVERT_PERMISSIONS },
      schema: {
        tags: ['Events'],
        summary: 'Revert one change: restore what an event changed as it was before (dryRun=true: only say what would change)',
        description:
          'Revertible: feature-metadata-updated, feature-stale-on/off, feature-environment-enabled/disabled, feature-strategy-add/update/remove, ' +
          'feature-environment-variants-updated, feature-dependency-added/removed, feature-dependencies-removed. The changes are made by the same ' +
          'rules and write the same events as the equivalent admin calls, in one transaction. 409 when later events changed the same things (unless force=true) ' +
          'or what the event changed can no longer be restored.',
        params: RevertParams,
        querystring: RevertQuery,
        response: { 200: RevertResponse, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const id = parseIntegerId(request.params.id, '/params/id')
      return reverts.revert(id, { dryRun: request.query.dryRun === 'true', force: request.query.force === 'true' }, request.principal)
    },
  )
}
