/**
 * The Host allow-list, against DNS rebinding (docs/security.md, "AUTH_TYPE=none"): a page on a
 * name its owner controls (`evil.example`) has that name re-resolved to 127.0.0.1 or a LAN
 * address, and is then same-origin with whatever listens there, so the browser lets it read
 * every answer. Its requests still carry its own name in `Host`: a server that answers only to
 * its own names is out of its reach.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { AppError, quote } from './errors.ts'

/** Whether a `Host` header names this server (`allows`), or refuses it. */
export interface HostCheck {
  allows(host: string | undefined): boolean
}

/** `example.com:4242` → `example.com`, `[::1]:80` → `[::1]`, `Localhost.` → `localhost`; undefined when it is no host. */
function hostnameOf(host: string): string | undefined {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':') === -1 ? host.length : host.indexOf(':')
  const port = host.slice(end)
  if (end <= 0 || (port !== '' && !/^:[0-9]{0,5}$/.test(port))) return undefined
  return host.slice(0, end).toLowerCase().replace(/\.$/, '')
}

// A browser sends an address as it is in the page's URL, and goes to that address without asking
// any DNS: a Host that is an IP literal was typed by whoever meant that address, never rebound.
const isIpLiteral = (name: string): boolean => (name.startsWith('[') ? isIP(name.slice(1, -1)) === 6 : isIP(name) === 4)

/**
 * The names this server answers to: loopback names (`localhost`, `*.localhost`; browsers resolve
 * them to loopback themselves), any IP literal, PUBLIC_URL's host and ALLOWED_HOSTS (`*.example.com`
 * for any name under example.com). Undefined when no check applies: with tokens or passwords
 * required and no ALLOWED_HOSTS (a deployment reached by a name of its own keeps working); with
 * AUTH_TYPE=none always, since no credential protects anything there.
 */
export function createHostCheck(config: Pick<Config, 'authType' | 'allowedHosts' | 'publicUrl'>): HostCheck | undefined {
  if (config.authType !== 'none' && config.allowedHosts.length === 0) return undefined
  const names = [
    'localhost',
    '*.localhost',
    ...(config.publicUrl === undefined ? [] : [new URL(config.publicUrl).hostname.replace(/\.$/, '')]),
    ...config.allowedHosts,
  ]
  const exact = new Set(names.filter((name) => !name.startsWith('*.')))
  const suffixes = names.filter((name) => name.startsWith('*.')).map((name) => name.slice(1))
  // Nearly every request names the same Host as the one before (SDKs polling, the console): one comparison.
  let lastAllowed: string | undefined
  return {
    allows(host) {
      // No browser sends a request without Host (HTTP/1.1 needs it): no page can have made it.
      if (host === lastAllowed || host === undefined || host === '') return true
      const name = hostnameOf(host)
      if (name === undefined || !(exact.has(name) || isIpLiteral(name) || suffixes.some((suffix) => name.endsWith(suffix)))) return false
      lastAllowed = host
      return true
    },
  }
}

/**
 * 421 Misdirected Request (RFC 9110 §15.5.20): "the request was directed at a server that is
 * unwilling to produce an authoritative response for the target URI", which is what a Host
 * Pennon does not answer to is; a 403 would say the caller lacks a permission.
 */
export const hostRefused = (host: string) =>
  new AppError(
    421,
    'MisdirectedRequestError',
    `This server does not answer to the host ${quote(host)}. If you reach Pennon by this name, add it to ALLOWED_HOSTS.`,
  )

/**
 * Refuses, before anything else looks at it, a request whose `Host` (and `X-Forwarded-Host`,
 * when a proxy TRUST_PROXY trusts sent it) is not allowed: every path, the console's pages, /auth
 * and the SDK APIs included. Both are checked: a TRUST_PROXY set too wide would otherwise let a
 * rebound page name a Host of its choosing in X-Forwarded-Host.
 */
export function registerHostCheck(app: FastifyInstance, check: HostCheck): void {
  app.addHook('onRequest', async (request, reply) => {
    const host = request.headers.host
    const refused = !check.allows(host) ? host! : request.host !== host && !check.allows(request.host) ? request.host : undefined
    if (refused === undefined) return
    // As every admin answer is: never sniffed, never kept by a cache.
    reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store')
    throw hostRefused(refused)
  })
}

/**
 * The same check for the answers given before Fastify (server-factory.ts): true when the request
 * may take them; a refused Host, or a forwarded one (whose trust Fastify knows), takes the whole way.
 */
export function mayTakeFastPath(check: HostCheck, request: IncomingMessage): boolean {
  return request.headers['x-forwarded-host'] === undefined && check.allows(request.headers.host)
}
