import type { TrustProxy } from '../config.ts'

/**
 * Fastify's `trustProxy` for TRUST_PROXY, so that `request.ip` is the client behind the
 * proxies trusted. A hop count becomes a function: Fastify itself ignores a bare number (it
 * cannot tell the immediate peer is a proxy), which is why TRUST_PROXY warns to count hops only
 * when every request comes through them.
 */
export function trustProxyOption(setting: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting
  if (typeof setting === 'boolean') return setting
  return [...setting]
}
