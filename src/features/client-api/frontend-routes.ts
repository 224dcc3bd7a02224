import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../http/common-schemas.ts'
import { readScope } from './client-features-service.ts'
import { sendWithEtag } from './client-routes.ts'
import type { BodyPool } from '../../http/body-pool.ts'
import { contextFrom, type FrontendService } from './frontend-service.ts'

const tags = ['Frontend API']

const Variant = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean(),
  payload: Type.Optional(Type.Object({ type: Type.String(), value: Type.String() })),
  feature_enabled: Type.Boolean(),
  featureEnabled: Type.Boolean({ description: 'Deprecated spelling of feature_enabled' }),
})

const TogglesResponse = Type.Object({
  toggles: Type.Array(Type.Object({ name: Type.String(), enabled: Type.Literal(true), variant: Variant, impressionData: Type.Boolean() }), {
    description: 'The enabled flags only, by name',
  }),
})

const ContextText = Type.String({ maxLength: 10_000 })
// A query parameter may be repeated: its first value counts.
const QueryText = Type.Union([ContextText, Type.Array(ContextText, { maxItems: 100 })])

const SentContext = Type.Object(
  {
    userId: Type.Optional(ContextText),
    sessionId: Type.Optional(ContextText),
    remoteAddress: Type.Optional(ContextText),
    appName: Type.Optional(ContextText),
    environment: Type.Optional(ContextText),
    currentTime: Type.Optional(ContextText),
    properties: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), ContextText, { maxProperties: 1000 })),
  },
  { additionalProperties: ContextText, maxProperties: 1000, description: 'Other fields are custom properties' },
)

const description =
  "Evaluates every flag the frontend token may read (its environment and projects) for the context sent, and answers the enabled ones with their variant. The caller's address is the default remoteAddress. Answers carry an ETag; If-None-Match with it answers 304."

export const frontendRoutes: FastifyPluginAsyncTypebox<{ frontend: FrontendService; bodies: BodyPool }> = async (
  app,
  { frontend, bodies },
) => {
  // Each route answers at `/api/frontend` (documented, as the reference's path) and at `/api/frontend/` (the same, left out of the document).
  for (const [prefixTrailingSlash, hide] of [
    ['no-slash', false],
    ['slash', true],
  ] as const) {
    app.get(
      '/',
      {
        prefixTrailingSlash,
        config: { sdkApi: 'frontend' },
        schema: {
          hide,
          tags,
          summary: 'The enabled flags for a context given in the query',
          description: `${description} Context fields are query parameters; custom ones as \`properties[name]=value\` (or any other name).`,
          querystring: Type.Object(
            {
              userId: Type.Optional(QueryText),
              sessionId: Type.Optional(QueryText),
              remoteAddress: Type.Optional(QueryText),
              appName: Type.Optional(QueryText),
              environment: Type.Optional(QueryText),
              currentTime: Type.Optional(QueryText),
            },
            {
              additionalProperties: QueryText,
              maxProperties: 1000,
              description: 'Other parameters are custom properties: properties[name]=value, or name=value',
            },
          ),
          response: { 200: TogglesResponse, 304: Type.Null({ description: 'Not modified' }), ...errorResponses(400, 401, 403) },
        },
      },
      async (request, reply) => {
        const { body, etag } = await frontend.evaluate(
          readScope(request.principal.scope, undefined),
          contextFrom(request.query, request.ip),
        )
        return sendWithEtag(request, reply, body, etag, bodies)
      },
    )

    app.post(
      '/',
      {
        prefixTrailingSlash,
        config: { sdkApi: 'frontend' },
        schema: {
          hide,
          tags,
          summary: 'The enabled flags for a context given in the body',
          description,
          body: Type.Object({ context: Type.Optional(SentContext) }),
          response: { 200: TogglesResponse, 304: Type.Null({ description: 'Not modified' }), ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        const { body, etag } = await frontend.evaluate(
          readScope(request.principal.scope, undefined),
          contextFrom(request.body.context ?? {}, request.ip),
        )
        return sendWithEtag(request, reply, body, etag, bodies)
      },
    )
  }
}
