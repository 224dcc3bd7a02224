/**
 * Where an integration may send: an http(s) URL whose host resolves to public addresses only, so
 * an integration cannot be pointed at the network Pennon runs in (loopback, private and link-local
 * ranges, cloud metadata at 169.254.169.254), unless its host is allowed by name
 * (INTEGRATIONS_ALLOWED_HOSTS). Checked when an integration is saved and again before each send,
 * so a name re-pointed since is caught.
 */
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

const NON_PUBLIC = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6')
}

/** Whether an address is outside the public internet (an IPv4-mapped IPv6 address as its IPv4 one). */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return NON_PUBLIC.check(mapped[1]!, 'ipv4')
  const family = isIP(address)
  if (family === 0) return true
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

export type Resolve = (host: string) => Promise<string[]>
const resolveAll: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

/** Why Pennon will not send to `value`, or undefined when it may (its host name resolved by `resolve`). */
export async function urlProblem(
  value: string,
  allowedHosts: readonly string[],
  resolve: Resolve = resolveAll,
): Promise<string | undefined> {
  const target = parseTarget(value)
  if (typeof target === 'string') return target
  const { host } = target
  if (allowedHosts.includes(host)) return undefined
  let addresses: string[]
  try {
    addresses = isIP(host) !== 0 ? [host] : await resolve(host)
  } catch {
    return unresolvedProblem(host)
  }
  return addressesProblem(addresses)
}

/**
 * `urlProblem` without a DNS lookup, for each send: a host name is checked where the connection is
 * made (the address actually used, `post` in senders.ts), so only a literal address is checked here
 * (Node connects to one without a lookup).
 */
export function sendTimeUrlProblem(value: string, allowedHosts: readonly string[]): string | undefined {
  const target = parseTarget(value)
  if (typeof target === 'string') return target
  if (allowedHosts.includes(target.host) || isIP(target.host) === 0) return undefined
  return addressesProblem([target.host])
}

export function unresolvedProblem(host: string): string {
  return `has a host that does not resolve (${host.slice(0, 100)})`
}

/** Why none of `addresses` may be sent to, or undefined when none is non-public. */
export function addressesProblem(addresses: readonly string[]): string | undefined {
  const blocked = addresses.find(isNonPublicAddress)
  if (blocked !== undefined || addresses.length === 0) {
    return `resolves to a non-public address (${blocked ?? 'none'}); allow its host with INTEGRATIONS_ALLOWED_HOSTS`
  }
  return undefined
}

/** The URL and its host (lower case, IPv6 without brackets), or why it is not one Pennon sends to. */
function parseTarget(value: string): { url: URL; host: string } | string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must be an http or https URL, not ${url.protocol.slice(0, -1).slice(0, 20)}`
  return { url, host: url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase() }
}
