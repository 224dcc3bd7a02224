/**
 * The check order every admin request goes through (docs/contract.md §0): authentication →
 * route match → permission → maintenance mode (a change refused while it is on) → content type; JSON parsing and schema validation
 * follow in Fastify's own phases, then the service's rules.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { cut, forbidden, inMaintenance, LONG_ECHO_LIMIT, notFound, quote } from './errors.ts'
import { checkContentType, findHostileInput } from './json-body.ts'
import { isSdkPath } from './sdk-pipeline.ts'
import { missingPermissions, type Principal, type RoutePermission } from './permissions.ts'
import type { Authenticate } from './auth.ts'
import type { ChangeWatch } from '../db/change-watch.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Every /api/admin route declares what it needs, next to its schema. */
    permission?: RoutePermission
    /** A route that may change data yet stays open in maintenance mode (turning it off); reads always do. */
    duringMaintenance?: true
  }
  interface FastifyRequest {
    principal: Principal
    /**
     * The database's change version when the request began (change-watch.ts), read once per
     * request: its caches (event answers, archive validations) serve only what is at least that recent.
     */
    dataVersion: number | undefined
  }
}

export const ADMIN_PREFIX = '/api/admin'

export function isAdminPath(url: string): boolean {
  return url === ADMIN_PREFIX || url.startsWith(`${ADMIN_PREFIX}/`) || url.startsWith(`${ADMIN_PREFIX}?`)
}

/** Names the missing permission and, on a route with an environment in its path, the environment. */
function permissionMessage(missing: readonly string[], environment: unknown): string {
  if (missing.length === 0) {
    return 'This endpoint needs an admin API token or a service-account token: client and frontend tokens cannot use the admin API.'
  }
  const where = typeof environment === 'string' ? ` in the ${quote(environment)} environment` : ''
  if (missing.length === 1) return `Missing permission: this operation needs "${missing[0]}"${where}.`
  return `Missing permission: this operation needs one of ${missing.map((p) => `"${p}"`).join(', ')}${where}.`
}

export interface AdminPipelineOptions {
  /** Also throttles failed authentications per client address (auth.ts). */
  authenticate: Authenticate
  changes: ChangeWatch
  /** Answers CORS preflights and marks allowed origins; returns true when it answered. */
  handleCors?: (request: FastifyRequest, reply: FastifyReply) => boolean
  /** Whether maintenance mode is on (features/maintenance/): remembered, so asking costs no query. */
  inMaintenance?: () => boolean | Promise<boolean>
}

/** Methods that never change anything: never refused in maintenance mode. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export function registerAdminPipeline(
  app: FastifyInstance,
  { authenticate, changes, handleCors, inMaintenance: maintenanceOn }: AdminPipelineOptions,
): void {
  app.decorateRequest('principal', null as unknown as Principal)
  app.decorateRequest('dataVersion', undefined)

  app.addHook('onRequest', async (request, reply) => {
    // Sent on every response, errors included: no MIME sniffing, and admin data is never cached.
    reply.header('x-content-type-options', 'nosniff')
    // The SDK APIs answer CORS themselves (sdk-pipeline.ts): the frontend API for any origin, with the SDKs' headers.
    if (!isSdkPath(request.url) && handleCors?.(request, reply)) return reply
    if (!isAdminPath(request.url)) return
    reply.header('cache-control', 'no-store')
    request.dataVersion = changes.version()
    request.principal = await authenticate(request)
    if (request.is404) return
    const needed = request.routeOptions.config.permission ?? 'ADMIN'
    const missing = missingPermissions(request.principal, needed)
    if (missing)
      throw forbidden(permissionMessage(missing, (request.params as Record<string, unknown> | undefined)?.environment), [...missing])
    // After the permission: what the caller may not do at all is a 403 whatever the mode.
    if (maintenanceOn && !READ_METHODS.has(request.method) && !request.routeOptions.config.duringMaintenance && (await maintenanceOn()))
      throw inMaintenance()
    if (request.routeOptions.schema?.body) checkContentType(request)
  })

  // Path and query strings get the same NUL / surrogate check as bodies (json-body.ts).
  app.addHook('preValidation', async (request) => {
    const hostile = findHostileInput(request.params, '/params') ?? findHostileInput(request.query, '/query')
    if (hostile) throw hostile
  })

  app.setNotFoundHandler(async (request) => {
    const path = request.url.split('?')[0] ?? ''
    throw notFound(`The path you were looking for (${request.method} ${cut(path, LONG_ECHO_LIMIT)}) is not available.`)
  })

  // A route under /api/admin without a declared permission is a programming error: refuse to start.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(ADMIN_PREFIX) && route.config?.permission === undefined) {
      throw new Error(`Route ${route.method} ${route.url} does not declare its permission`)
    }
  })
}
