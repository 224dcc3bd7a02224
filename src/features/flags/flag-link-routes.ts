import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { linkRules } from './flag-link-rules.ts'
import { FlagLinkParams, FlagLinksParams, LinkBody } from './flag-link-schemas.ts'
import type { FlagLinkService } from './flag-link-service.ts'

const tags = ['Flags']

/** A flag's links (to tickets, dashboards), as the reference's routes: 204 with no body; its links are read with the flag. */
export const flagLinkRoutes: FastifyPluginAsyncTypebox<{ links: FlagLinkService }> = async (app, { links }) => {
  app.post(
    '/projects/:projectId/features/:featureName/link',
    {
      config: { permission: 'UPDATE_FEATURE', bodyRules: linkRules },
      schema: {
        tags,
        summary: 'Add a link to a flag',
        description: "At most 10 links per flag; an archived flag's links do not change (400). A `feature-link-added` event.",
        params: FlagLinksParams,
        body: LinkBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { projectId, featureName } = request.params
      await links.addLink(projectId, featureName, request.body, request.principal)
      return sendEmpty(reply, 204)
    },
  )

  app.put(
    '/projects/:projectId/features/:featureName/link/:linkId',
    {
      config: { permission: 'UPDATE_FEATURE', bodyRules: linkRules },
      schema: {
        tags,
        summary: "Change one of a flag's links",
        description: 'Its address and title replaced (a title not sent: none). A `feature-link-updated` event, when it changed.',
        params: FlagLinkParams,
        body: LinkBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { projectId, featureName, linkId } = request.params
      await links.updateLink(projectId, featureName, linkId, request.body, request.principal)
      return sendEmpty(reply, 204)
    },
  )

  app.delete(
    '/projects/:projectId/features/:featureName/link/:linkId',
    {
      config: { permission: 'UPDATE_FEATURE' },
      schema: {
        tags,
        summary: "Remove one of a flag's links",
        description: 'A `feature-link-removed` event.',
        params: FlagLinkParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { projectId, featureName, linkId } = request.params
      await links.removeLink(projectId, featureName, linkId, request.principal)
      return sendEmpty(reply, 204)
    },
  )
}
