import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, NoContent, sendEmpty } from '../../http/common-schemas.ts'
import { checkContentType } from '../../http/json-body.ts'
import { CLIENT_PREFIX } from '../../http/sdk-pipeline.ts'
import { METRICS_BODY_LIMIT } from '../metrics/metrics-routes.ts'
import { EdgeInstanceDataBody, IssueTokensBody, ValidatedTokensResponse, ValidateTokensBody } from './edge-schemas.ts'
import type { EdgeIssue } from './edge-issue.ts'
import type { EdgeService } from './edge-service.ts'

export const EDGE_PREFIX = '/edge'

const tags = ['Unleash Edge']

/** `/edge`: what Unleash Edge asks of its upstream before it serves anyone (docs/proxies.md). */
export const edgeRoutes: FastifyPluginAsyncTypebox<{ edge: EdgeService; issue: EdgeIssue; bodyLimit: number }> = async (
  app,
  { edge, issue, bodyLimit },
) => {
  // No pipeline covers /edge: JSON bodies only, checked before the body is read.
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.schema?.body) checkContentType(request)
  })

  app.post(
    '/validate',
    {
      bodyLimit: Math.min(bodyLimit, METRICS_BODY_LIMIT),
      schema: {
        tags,
        summary: 'Which of these client and frontend tokens work, with their type, projects and environment',
        description:
          'Asked by Unleash Edge without credentials, as the reference allows. Only client (backend) and frontend tokens are confirmed: ' +
          'tokens that are unknown, deleted, expired or of another kind (admin, service account, personal) are left out of the answer, ' +
          "and each counts as a failed authentication of the caller's address (AUTH_FAILURES_PER_MINUTE); tokens that work do not. " +
          'Once the address has made that many, the tokens after are not looked up: 429 with Retry-After.',
        body: ValidateTokensBody,
        response: { 200: ValidatedTokensResponse, ...errorResponses(400, 413, 415, 429) },
      },
    },
    async (request) => edge.validateTokens(request.body.tokens, request.ip),
  )

  app.post(
    '/issue-token',
    {
      bodyLimit: Math.min(bodyLimit, METRICS_BODY_LIMIT),
      schema: {
        tags,
        summary: 'New backend tokens for environment and projects pairs, for an Edge that signs with the client secret',
        description:
          'As the reference: the Edge signs the request with EDGE_CLIENT_SECRET (`Authorization: HMAC enterprise-edge:<signature>`, X-Timestamp, X-Nonce, Content-SHA256), ' +
          'and gets one new backend token per pair (`enterprise_edge_<environment>_<projects>`, each with its api-token-created event). Pennon keeps only hashes of tokens, ' +
          "so every request makes new ones. After the body is checked (400), a request that does not pass is a 401 in the reference's words: " +
          '"Missing HMAC authorization header", "Missing content headers", "Stale request" (more than 5 minutes off), "Unknown client" (always, without EDGE_CLIENT_SECRET), ' +
          '"Body tampering detected", "Signature mismatch", "Replay detected" (a nonce used in the last 5 minutes).',
        body: IssueTokensBody,
        response: { 200: ValidatedTokensResponse, ...errorResponses(400, 401, 413, 415) },
      },
    },
    async (request) => issue.issue(request.headers, request.body),
  )
}

/** `/api/client/metrics/edge`: Edge's report of itself, taken with a client token like the other metrics. */
export const edgeMetricsRoutes: FastifyPluginAsyncTypebox<{ bodyLimit: number }> = async (app, { bodyLimit }) => {
  app.post(
    `${CLIENT_PREFIX}/metrics/edge`,
    {
      bodyLimit: Math.min(bodyLimit, METRICS_BODY_LIMIT),
      config: { sdkApi: 'client' },
      schema: {
        tags: ['Client API'],
        summary: 'Unleash Edge reports its own traffic, latency and connected Edges',
        description:
          "Accepted and not kept: Pennon shows no Edge observability (the reference's open-source server has no such route). " +
          'Edge counts its own traffic; the counts of the flags it served come on /api/client/metrics/bulk.',
        body: EdgeInstanceDataBody,
        response: { 202: NoContent, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (_request, reply) => sendEmpty(reply, 202),
  )
}
