import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { FeatureSearchQuery, FeatureSearchResponse } from './feature-search-schemas.ts'
import { parseFeatureSearch, type FeatureSearchService } from './feature-search-service.ts'
import { favoritesOwner } from '../favorites/favorite-service.ts'

export const featureSearchRoutes: FastifyPluginAsyncTypebox<{ search: FeatureSearchService }> = async (app, { search }) => {
  app.get(
    '/search/features',
    {
      // As in the reference: any admin caller may search every project's flags.
      config: { permission: 'NONE' },
      schema: {
        tags: ['Flags'],
        summary: 'Search flags: filters, a sorted page with environments, segments and tags, and the total that match',
        querystring: FeatureSearchQuery,
        response: { 200: FeatureSearchResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => search.search(parseFeatureSearch(request.query), favoritesOwner(request.principal)),
  )
}
