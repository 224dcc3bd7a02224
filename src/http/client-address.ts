/**
 * The key a client address is counted by in throttles and fair shares: an IPv4 address as it is
 * (an IPv4-mapped IPv6 address as its IPv4 form), an IPv6 address by its /64 network — one
 * subscriber usually holds a whole /64, so counting single IPv6 addresses would give one client
 * 2^64 fresh allowances.
 */
import { Address6 } from 'ip-address'

export function addressKey(ip: string): string {
  if (!ip.includes(':')) return ip
  try {
    const address = new Address6(ip)
    if (address.is4()) return address.to4().correctForm()
    return `${new Address6(`${address.correctForm()}/64`).startAddress().correctForm()}/64`
  } catch {
    // Not an address (TRUST_PROXY=true lets a client name itself anything): counted as sent.
    return ip
  }
}
