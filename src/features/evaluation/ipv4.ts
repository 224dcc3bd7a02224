/**
 * IPv4 addresses and ranges as numbers, read exactly as `ip-address`'s `Address4` reads them
 * (the package unleash-client uses): four decimal octets without leading zeros, an optional
 * `/0`–`/32` suffix (one or two digits), nothing else. Where `Address4` compares strings of 32
 * binary digits built through a BigInt for every test, these compare two integers: `remoteAddress`
 * and `IN_CIDR` evaluate hundreds of ranges per context (ipv4.test.ts checks both agree).
 */

/** An IPv4 address or range: its 32 bits as an unsigned integer, and its prefix length (32 without a suffix). */
export interface Ipv4 {
  readonly value: number
  readonly prefix: number
}

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
const ADDRESS = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}(?:\\/([0-9]{1,2}))?$`)

/** `text` as `new Address4(text)` reads it, or undefined where `Address4.isValid(text)` is false. */
export function parseIpv4(text: string): Ipv4 | undefined {
  const match = ADDRESS.exec(text)
  if (match === null) return undefined
  const prefix = match[5] === undefined ? 32 : Number(match[5])
  if (prefix > 32) return undefined
  const value = ((Number(match[1]) << 24) | (Number(match[2]) << 16) | (Number(match[3]) << 8) | Number(match[4])) >>> 0
  return { value, prefix }
}

/**
 * `Address4`'s `address.isInSubnet(range)`: the address's network is inside the range (an address
 * written with a wider prefix than the range's is not), its first `range.prefix` bits equal.
 */
export function inIpv4Range(address: Ipv4, range: Ipv4): boolean {
  if (address.prefix < range.prefix) return false
  if (range.prefix === 0) return true
  const shift = 32 - range.prefix
  return address.value >>> shift === range.value >>> shift
}

// Many strategies and constraints read one context's address: the last text read is kept, so a
// context's address is parsed once per evaluation, not once per strategy.
let lastText: string | undefined
let lastAddress: Ipv4 | undefined

/** parseIpv4 of the text last asked for, remembered. */
export function contextIpv4(text: string): Ipv4 | undefined {
  if (text !== lastText) {
    lastText = text
    lastAddress = parseIpv4(text)
  }
  return lastAddress
}
