/**
 * The check order of the APIs SDKs call (`/api/client` for server SDKs, `/api/frontend` for
 * browser and mobile SDKs), as for the admin API: authentication → route → which kind of token
 * the route takes → content type; then parsing, schema and the service's rules.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Authenticate } from './auth.ts'
import { checkContentType } from './json-body.ts'
import { forbidden } from './errors.ts'
import { addVary } from './vary.ts'
import type { PrincipalKind } from './permissions.ts'

export const CLIENT_PREFIX = '/api/client'
export const FRONTEND_PREFIX = '/api/frontend'
/** OpenFeature's remote evaluation protocol (features/openfeature/): server and web providers alike. */
export const OFREP_PREFIX = '/ofrep'

/** Which SDK API a route belongs to, and so which tokens it takes. */
export type SdkApi = 'client' | 'frontend' | 'ofrep'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Every /api/client and /api/frontend route says which API it belongs to. */
    sdkApi?: SdkApi
    /** The route checks a credential of its own, in its URL (OFREP's event stream: EventSource sends no headers). */
    credentialInUrl?: boolean
  }
}

/**
 * Client tokens read the client API, frontend tokens the frontend API; an admin token (or
 * AUTH_TYPE=none) reads both, as in the reference, for every project in the environment it asks for.
 */
export const SDK_TOKEN_KINDS: Record<SdkApi, ReadonlySet<PrincipalKind>> = {
  client: new Set(['client-token', 'admin-token', 'open-access']),
  frontend: new Set(['frontend-token', 'admin-token', 'open-access']),
  // OpenFeature's providers run on servers (a client token) and in browsers (a frontend token).
  ofrep: new Set(['client-token', 'frontend-token', 'admin-token', 'open-access']),
}

const under = (url: string, prefix: string) => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`)

export function isSdkPath(url: string): boolean {
  return under(url, CLIENT_PREFIX) || under(url, FRONTEND_PREFIX) || under(url, OFREP_PREFIX)
}

export const isOfrepPath = (url: string): boolean => under(url, OFREP_PREFIX)

/** The APIs browsers call from any origin (their CORS): the frontend API and OFREP. */
export const isBrowserApiPath = (url: string): boolean => under(url, FRONTEND_PREFIX) || under(url, OFREP_PREFIX)

// Header names a preflight may ask for (the browser SDK sends a few of its own).
const HEADER_LIST = /^[A-Za-z0-9-]+(\s*,\s*[A-Za-z0-9-]+)*$/

/**
 * The frontend API is called by browsers with a token meant to be public: by default every origin
 * may call it (as in the reference), without cookies; an admin may name the origins instead
 * (POST /api/admin/ui-config/cors; features/ui-config/frontend-origins.ts). An empty list, or one
 * with `*`, is every origin, as the reference's. Another origin gets no Access-Control-Allow-Origin
 * (its browser withholds the answer). Preflights are answered before authentication: browsers send
 * them without credentials. Returns true when it answered.
 */
function frontendCors(request: FastifyRequest, reply: FastifyReply, ofrep: boolean, origins: readonly string[]): boolean {
  if (origins.length === 0 || origins.includes('*')) reply.header('access-control-allow-origin', '*')
  else {
    addVary(reply, 'Origin')
    const origin = request.headers.origin
    if (typeof origin === 'string' && origins.includes(origin)) reply.header('access-control-allow-origin', origin)
  }
  reply.header('access-control-expose-headers', ofrep ? 'ETag, Retry-After' : 'ETag')
  if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return false
  const asked = request.headers['access-control-request-headers']
  reply
    .code(204)
    .header('access-control-allow-methods', 'GET, POST')
    .header(
      'access-control-allow-headers',
      typeof asked === 'string' && asked.length <= 1000 && HEADER_LIST.test(asked)
        ? asked
        : ofrep
          ? 'Authorization, Content-Type, X-API-Key'
          : 'Authorization, Content-Type',
    )
    .header('access-control-max-age', '86400')
    .send()
  return true
}

/** The origins browsers may call the frontend API and OFREP from: remembered by its owner, a query only after a change. */
export type FrontendOriginsOf = () => readonly string[] | Promise<readonly string[]>

export function registerSdkPipeline(
  app: FastifyInstance,
  { authenticate, frontendOrigins }: { authenticate: Authenticate; frontendOrigins: FrontendOriginsOf },
): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isSdkPath(request.url)) return
    // OFREP's web provider reads Retry-After on a 429: exposed to the page too.
    if (isBrowserApiPath(request.url) && frontendCors(request, reply, isOfrepPath(request.url), await frontendOrigins())) return reply
    // OFREP's providers may send the token as X-API-Key (the protocol's ApiKeyAuth) instead of Authorization.
    if (request.routeOptions.config.credentialInUrl === true) return
    if (request.headers.authorization === undefined && typeof request.headers['x-api-key'] === 'string' && isOfrepPath(request.url))
      request.headers.authorization = request.headers['x-api-key']
    request.principal = await authenticate(request)
    if (request.is404) return
    const api = request.routeOptions.config.sdkApi ?? 'client'
    if (!SDK_TOKEN_KINDS[api].has(request.principal.kind)) {
      const token =
        api === 'client'
          ? 'a client (backend) or admin API token'
          : api === 'frontend'
            ? 'a frontend or admin API token'
            : 'a client, frontend or admin API token'
      throw forbidden(
        `This endpoint needs ${token}.`,
        api === 'client' ? ['CLIENT'] : api === 'frontend' ? ['FRONTEND'] : ['CLIENT', 'FRONTEND'],
      )
    }
    if (request.routeOptions.schema?.body) checkContentType(request)
  })

  // A route under the SDK prefixes without its API is a programming error: refuse to start.
  app.addHook('onRoute', (route) => {
    if (isSdkPath(route.url) && route.config?.sdkApi === undefined)
      throw new Error(`Route ${route.method} ${route.url} does not say which SDK API it belongs to`)
  })
}
