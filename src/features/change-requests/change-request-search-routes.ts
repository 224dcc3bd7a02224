import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { parseChangeRequestSearch, type ChangeRequestSearchService } from './change-request-search.ts'
import { ChangeRequestSearchQuery, ChangeRequestSearchResponse } from './change-request-search-schemas.ts'

export const changeRequestSearchRoutes: FastifyPluginAsyncTypebox<{ search: ChangeRequestSearchService }> = async (app, { search }) => {
  app.get(
    '/search/change-requests',
    {
      // As the project's list: any admin caller; drafts only their author's.
      config: { permission: 'NONE' },
      schema: {
        tags: ['Change Requests'],
        summary: "Search every project's change requests: filters, a page newest first, and the total that match",
        description:
          'createdBy and requestedApproverId take user ids (IS or IS_ANY_OF), state open or closed. A draft is found only by its author.',
        querystring: ChangeRequestSearchQuery,
        response: { 200: ChangeRequestSearchResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => search.search(parseChangeRequestSearch(request.query, request.principal.userId)),
  )
}
