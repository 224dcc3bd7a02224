/**
 * `GET /api/client/features` answered 304 before Fastify, when everything it takes is in memory:
 * a remembered, current token (api-tokens/authenticator.ts), the answer already built for the current flags
 * (client-features-service.ts), and an `If-None-Match` naming its ETag. This is what every SDK
 * sends on every poll while nothing changed, so it is most of the client API's traffic; going
 * through Fastify's routing, hooks and reply would cost it twice the CPU of node:http itself
 * (docs/performance.md, (f′)). The answer is the one the route gives, header for header (the
 * test compares them). Anything else — a query string, a token not remembered, another ETag, a
 * flags version not read yet — returns false and takes the whole way, which gives the same
 * answer, or the error.
 */
import type { Authenticate } from '../../http/auth.ts'
import type { FastPath } from '../../http/server-factory.ts'
import type { Principal } from '../../http/permissions.ts'
import { CLIENT_PREFIX, SDK_TOKEN_KINDS } from '../../http/sdk-pipeline.ts'
import { takesSegmentsApart, type ClientFeaturesService } from './client-features-service.ts'
import { etagMatches } from './client-routes.ts'

const FEATURES_PATH = `${CLIENT_PREFIX}/features`
const CONTENT_TYPE_OPTIONS = ['x-content-type-options', 'nosniff']

const STREAMING_HINT = ['fetch-mode', 'streaming']

export function createClientFeaturesFastPath({
  authenticate,
  clientFeatures,
  suggestStreaming,
}: {
  authenticate: Authenticate
  clientFeatures: ClientFeaturesService
  suggestStreaming: (principal: Principal) => boolean
}): FastPath {
  // An SDK sends the same Unleash-Client-Spec on every poll: the last one read is remembered.
  let lastSpec: string | undefined
  let lastSpecTakesSegmentsApart = false
  return (request, response) => {
    if (request.method !== 'GET' || request.url !== FEATURES_PATH) return false
    const ifNoneMatch = request.headers['if-none-match']
    if (ifNoneMatch === undefined) return false
    const principal = authenticate.remembered(request.headers.authorization)
    if (principal === undefined || principal.scope === undefined || !SDK_TOKEN_KINDS.client.has(principal.kind)) return false
    const header = request.headers['unleash-client-spec']
    const spec = typeof header === 'string' ? header : undefined
    if (spec !== lastSpec) {
      lastSpecTakesSegmentsApart = takesSegmentsApart(spec)
      lastSpec = spec
    }
    const answer = clientFeatures.rememberedAnswer(principal.scope, lastSpecTakesSegmentsApart)
    if (answer === undefined || !etagMatches(ifNoneMatch, answer.etag)) return false
    response.writeHead(304, [...CONTENT_TYPE_OPTIONS, 'etag', answer.etag, ...(suggestStreaming(principal) ? STREAMING_HINT : [])])
    response.end()
    return true
  }
}
