/**
 * The OpenAPI document of every route, made from the routes' own TypeBox schemas
 * (`GET /docs/openapi.json`), and Swagger UI over it (`/docs/openapi`). Registered before the
 * routes, so that it sees each one as it is added.
 */
import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import { ADMIN_PREFIX } from './admin-pipeline.ts'
import { docsUi } from './docs-ui.ts'
import { isSdkPath } from './sdk-pipeline.ts'

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pennon admin API',
        version: '1.0.0',
        description: 'Feature-flag administration, wire-compatible with the Unleash admin API.',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } } },
    },
    // Shared schemas keep their own names (ErrorResponse) in components.schemas.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const secured = url.startsWith(ADMIN_PREFIX) || isSdkPath(url)
      const transformed = { ...schema, ...(secured ? { security: [{ apiKey: [] }] } : {}) } as typeof schema
      return { schema: transformed, url, route }
    },
  })
  await app.register(docsUi, { routePrefix: '/docs/openapi' })
  app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
