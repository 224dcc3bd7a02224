/**
 * IPv4 and IPv6 addresses and CIDR ranges, read as the Node SDK reads them (it uses the
 * `ip-address` package: `new Address4(text)`, `new Address6(text)`, `isInSubnet`, `correctForm`).
 * Only what the remoteAddress strategy and the IN_CIDR operator need.
 */

/** An address with its prefix length (32 or 128 when the text has none). */
export interface IpAddress {
  family: 4 | 6
  /** The address as 16-bit groups: two for IPv4, eight for IPv6. */
  groups: number[]
  prefixLength: number
}

const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/
const IPV4_PREFIX = /\/\d{1,2}$/
const LEADING_ZERO = /^0\d/

/** Dotted quad without leading zeros, optionally `/0`..`/32` (one or two digits). */
export function parseIpv4(text: string): IpAddress | undefined {
  let address = text
  let prefixLength = 32
  const prefix = IPV4_PREFIX.exec(address)
  if (prefix !== null) {
    prefixLength = Number.parseInt(prefix[0].slice(1), 10)
    if (prefixLength > 32) return undefined
    address = address.slice(0, prefix.index)
  }
  if (address.length > 15) return undefined
  const octets = ipv4Octets(address)
  if (octets === undefined) return undefined
  return { family: 4, groups: [(octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]], prefixLength }
}

function ipv4Octets(address: string): number[] | undefined {
  const match = IPV4.exec(address)
  if (match === null) return undefined
  return [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])]
}

// The `ip-address` package's IPv6 checks, applied in its order.
const IPV6_PREFIX = /\/\d{1,3}(?=%|$)/
const LINE = /^.*$/
const IPV6_BAD_CHARACTER = /[^0-9a-f:/%]/i
const IPV6_BAD_SHAPE = /[0-9a-f]{5,}|:{3,}|[^:]:$|^:[^:]|\/$/i
const IPV6_MAX_LENGTH = 45

/**
 * Eight hex groups with at most one `::`, an optional trailing dotted quad, an optional
 * `/0`..`/128` and an optional `%zone` (ignored), as `new Address6(text)` accepts them.
 */
export function parseIpv6(text: string): IpAddress | undefined {
  let address = text
  let prefixLength = 128
  const prefix = IPV6_PREFIX.exec(address)
  if (prefix !== null) {
    prefixLength = Number.parseInt(prefix[0].slice(1), 10)
    if (prefixLength > 128) return undefined
    address = address.slice(0, prefix.index) + address.slice(prefix.index + prefix[0].length)
  }
  if (address.includes('/')) return undefined
  const zoneStart = address.indexOf('%')
  if (zoneStart !== -1 && LINE.test(address.slice(zoneStart))) address = address.slice(0, zoneStart)
  if (address.length > IPV6_MAX_LENGTH) return undefined
  const expanded = expandEmbeddedIpv4(address)
  if (expanded === undefined || IPV6_BAD_CHARACTER.test(expanded) || IPV6_BAD_SHAPE.test(expanded)) return undefined
  const groups = ipv6Groups(expanded)
  return groups === undefined ? undefined : { family: 6, groups, prefixLength }
}

// `::ffff:1.2.3.4`: the dotted quad becomes two hex groups. A tail that is not a valid
// dotted quad is left alone (its dots then fail the character check).
function expandEmbeddedIpv4(address: string): string | undefined {
  if (!address.includes('.')) return address
  const lastColon = address.lastIndexOf(':')
  const last = address.slice(lastColon + 1)
  const parts = last.split('.')
  if (parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part)) && parts.some((part) => LEADING_ZERO.test(part))) {
    return undefined
  }
  const octets = ipv4Octets(last)
  if (octets === undefined) return address
  const hex = (high: number, low: number) => ((high << 8) | low).toString(16)
  return `${address.slice(0, lastColon + 1)}${hex(octets[0], octets[1])}:${hex(octets[2], octets[3])}`
}

function ipv6Groups(address: string): number[] | undefined {
  const halves = address.split('::')
  let texts: string[]
  if (halves.length === 1) {
    texts = address.split(':')
  } else if (halves.length === 2) {
    const first = halves[0] === '' ? [] : halves[0].split(':')
    const last = halves[1] === '' ? [] : halves[1].split(':')
    const elided = 8 - first.length - last.length
    if (elided === 0) return undefined
    texts = [...first, ...Array<string>(Math.max(elided, 0)).fill('0'), ...last]
  } else {
    return undefined
  }
  if (texts.length !== 8 || texts.some((group) => group === '')) return undefined
  return texts.map((group) => Number.parseInt(group, 16))
}

/** Same address, prefix lengths aside (`correctForm()` equality in the SDK). */
export function sameAddress(a: IpAddress, b: IpAddress): boolean {
  if (a.family !== b.family) return false
  for (let i = 0; i < a.groups.length; i++) if (a.groups[i] !== b.groups[i]) return false
  return true
}

/**
 * `address.isInSubnet(range)`: same family, a prefix at least as long as the range's, and the
 * range's leading prefix bits equal.
 */
export function isInSubnet(address: IpAddress, range: IpAddress): boolean {
  if (address.family !== range.family || address.prefixLength < range.prefixLength) return false
  let bits = range.prefixLength
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff
    if ((address.groups[i] & mask) !== (range.groups[i] & mask)) return false
  }
  return true
}
