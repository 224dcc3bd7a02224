/**
 * OFREP (OpenFeature Remote Evaluation Protocol, open-feature/protocol service/openapi.yaml):
 * `POST /ofrep/v1/evaluate/flags/:key` for server providers, `POST /ofrep/v1/evaluate/flags` for
 * web providers (every flag, with an ETag and an event stream), and that stream,
 * `GET /ofrep/v1/events`. Tokens as on the frontend API (http/sdk-pipeline.ts, api `ofrep`);
 * errors in the protocol's shapes (ofrep-errors.ts). docs/openfeature.md tells the choices.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { BodyPool } from '../../http/body-pool.ts'
import { sendJsonText } from '../../http/common-schemas.ts'
import { cut, unauthenticated } from '../../http/errors.ts'
import { hashSecret } from '../api-tokens/token-secret.ts'
import { sendWithEtag } from '../client-api/client-routes.ts'
import type { StreamingHub } from '../client-api/streaming-hub.ts'
import { tooManyStreams, tooManyStreamsOfToken } from '../client-api/streaming-routes.ts'
import { MAX_CONTEXT_FIELDS, MAX_NAME_LENGTH, MAX_VALUE_LENGTH } from './ofrep-context.ts'
import { OfrepError, sendOfrepError } from './ofrep-errors.ts'
import type { OfrepCaller, OfrepService } from './ofrep-service.ts'

const tags = ['OpenFeature (OFREP)']

/** A context is a few fields: 64 kB holds a thousand short ones, and bounds what parsing one costs. */
export const OFREP_BODY_LIMIT = 64 * 1024

const Context = Type.Object(
  { targetingKey: Type.Optional(Type.String({ maxLength: MAX_VALUE_LENGTH, description: "The user: Unleash's userId" })) },
  {
    additionalProperties: true,
    maxProperties: MAX_CONTEXT_FIELDS,
    description: `Other fields: sessionId, remoteAddress, environment, appName, currentTime as in Unleash; the rest are custom properties (texts, numbers, booleans; objects and arrays are left out). At most ${MAX_CONTEXT_FIELDS} fields, names of at most ${MAX_NAME_LENGTH} characters, values of at most ${MAX_VALUE_LENGTH}.`,
  },
)
const EvaluationRequest = Type.Object({ context: Type.Optional(Context) }, { description: 'An absent context is an empty one' })

const Metadata = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]))
const Reason = Type.Union(['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'DEFAULT'].map((reason) => Type.Literal(reason)))
const EvaluationSuccess = Type.Object({
  key: Type.String(),
  value: Type.Unknown({ description: "The variant's payload (typed) when the flag is enabled with one; otherwise whether it is enabled" }),
  reason: Reason,
  variant: Type.String({ description: "The Unleash variant's name (`disabled` when none)" }),
  metadata: Metadata,
})
const ErrorCode = Type.Union(
  ['PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL', 'FLAG_NOT_FOUND'].map((code) => Type.Literal(code)),
)
const EvaluationFailure = Type.Object({ key: Type.String(), errorCode: ErrorCode, errorDetails: Type.String() })
const BulkFailure = Type.Object({ errorCode: ErrorCode, errorDetails: Type.String() })
const Empty = (description: string) => Type.Null({ description })
const noBody = {
  401: Empty('No token, or one that does not work (no body)'),
  403: Empty('A token of another kind (no body)'),
  429: Empty('Too many failed authentications from this address: Retry-After says when to try again (no body)'),
}

/** Who asks, with the hash of the token they sent (what signs their stream's credential). */
function callerOf(request: FastifyRequest): OfrepCaller {
  const header = request.headers.authorization
  const credential = typeof header === 'string' ? header.replace(/^bearer\s+/i, '').trim() : ''
  return {
    principal: request.principal,
    secretHash: credential === '' || request.principal.kind === 'open-access' ? undefined : hashSecret(credential),
    ip: request.ip,
  }
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
  // EventSource from any origin, as the evaluations.
  'access-control-allow-origin': '*',
}

export const ofrepRoutes: FastifyPluginAsyncTypebox<{
  ofrep: OfrepService
  hub: StreamingHub
  maxConnections: number
  maxPerToken: number
  /** Where the service writes bulk answers (http/body-pool.ts): each given back once sent. */
  bodies: BodyPool
}> = async (app, { ofrep, hub, maxConnections, maxPerToken, bodies }) => {
  app.setErrorHandler((error, request, reply) => sendOfrepError(error, request, reply))
  // An address under /ofrep that names no route (a key the router will not take, such as `..`)
  // answers in the protocol's shapes too, after the same authentication.
  app.setNotFoundHandler(async (request) => {
    throw new OfrepError(404, 'FLAG_NOT_FOUND', `Nothing is served at ${cut(request.url.split('?')[0] ?? '', 200)}.`)
  })

  app.post(
    '/v1/evaluate/flags/:key',
    {
      bodyLimit: OFREP_BODY_LIMIT,
      config: { sdkApi: 'ofrep' },
      schema: {
        tags,
        summary: 'Evaluate one flag for a context (server providers)',
        description:
          "The flag in the token's environment and projects, by the evaluator of the client and frontend APIs. " +
          'A client, frontend or admin token, as `Authorization: <token>`, `Authorization: Bearer <token>` or `X-API-Key: <token>`.',
        params: Type.Object({ key: Type.String({ maxLength: 1000 }) }),
        body: EvaluationRequest,
        response: {
          200: EvaluationSuccess,
          400: EvaluationFailure,
          404: EvaluationFailure,
          ...noBody,
          500: Type.Object({ errorDetails: Type.String() }),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, await ofrep.evaluateOne(callerOf(request), request.params.key, request.body.context ?? {})),
  )

  app.post(
    '/v1/evaluate/flags',
    {
      bodyLimit: OFREP_BODY_LIMIT,
      config: { sdkApi: 'ofrep' },
      schema: {
        tags,
        summary: 'Evaluate every flag for a context (web providers)',
        description:
          "Every flag in the token's environment and projects, disabled ones included (`value: false`). A strong ETag: `If-None-Match` with it answers 304. " +
          '`eventStreams` offers a server-sent-event stream that says when to fetch again (with streaming on). ' +
          '`flagConfigEtag` and `flagConfigLastModified` (sent after a stream event) are accepted and not needed.',
        querystring: Type.Object({
          flagConfigEtag: Type.Optional(Type.String({ maxLength: 1000 })),
          flagConfigLastModified: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        body: EvaluationRequest,
        response: {
          200: Type.Object({
            flags: Type.Array(EvaluationSuccess),
            eventStreams: Type.Optional(
              Type.Array(
                Type.Object({
                  type: Type.Literal('sse'),
                  url: Type.Optional(Type.String()),
                  endpoint: Type.Optional(Type.Object({ requestUri: Type.String() })),
                }),
              ),
            ),
          }),
          304: Type.Null({ description: 'Not modified' }),
          400: BulkFailure,
          ...noBody,
          500: Type.Object({ errorDetails: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const { json, etag } = await ofrep.evaluateAll(callerOf(request), request.body.context ?? {})
      return sendWithEtag(request, reply, json, etag, bodies)
    },
  )

  app.get(
    '/v1/events',
    {
      config: { sdkApi: 'ofrep', credentialInUrl: true },
      schema: {
        tags,
        summary: "Server-sent events: when the token's flags change, fetch the evaluations again",
        description:
          'The URL comes from a bulk answer (`eventStreams`): its query is a credential for one token and scope, good for one to two hours. ' +
          'Each change in the scope sends `data: {"type":"refetchEvaluation","etag":…}` (ADR-0008); an SSE comment is the heartbeat. ' +
          'Past the streaming limits: 429 with Retry-After.',
        querystring: Type.Object({
          token: Type.Optional(Type.String({ maxLength: 1000 })),
          environment: Type.String({ maxLength: 1000 }),
          projects: Type.String({ maxLength: 100_000 }),
          expires: Type.String({ maxLength: 20 }),
          signature: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: { 200: Type.String({ description: 'text/event-stream' }), ...noBody },
      },
    },
    async (request, reply) => {
      const granted = await ofrep.streamScope(request.query)
      if (granted === undefined)
        throw unauthenticated('The stream credential is unknown, altered or expired: fetch the evaluations again for a new one.')
      if (maxConnections === 0 || !hub.hasRoom()) throw tooManyStreams(maxConnections)
      if (!hub.hasRoom(granted.owner)) throw tooManyStreamsOfToken(maxPerToken)
      reply.hijack()
      reply.raw.writeHead(200, SSE_HEADERS)
      reply.raw.flushHeaders()
      hub.open(reply.raw, granted.scope, {}, undefined, granted.owner, true)
    },
  )
}
