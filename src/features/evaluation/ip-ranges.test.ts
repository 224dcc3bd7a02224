import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { isInSubnet, parseIpv4, parseIpv6, sameAddress } from './ip-ranges.ts'

describe('parseIpv4', () => {
  test('reads a dotted quad with an optional one- or two-digit prefix', () => {
    assert.deepEqual(parseIpv4('10.1.2.3'), { family: 4, groups: [0x0a01, 0x0203], prefixLength: 32 })
    assert.deepEqual(parseIpv4('160.33.0.0/16'), { family: 4, groups: [0xa021, 0x0000], prefixLength: 16 })
    assert.deepEqual(parseIpv4('0.0.0.0/00'), { family: 4, groups: [0, 0], prefixLength: 0 })
  })

  test('refuses leading zeros, out-of-range octets and prefixes, and anything around the address', () => {
    for (const text of ['', '127.invalid', '192.168.01.1', '256.0.0.1', '1.2.3', '1.2.3.4/33', '1.2.3.4/', '1.2.3.4/032', ' 1.2.3.4', '1.2.3.4 ', '::1']) {
      assert.equal(parseIpv4(text), undefined, JSON.stringify(text))
    }
  })
})

describe('parseIpv6', () => {
  test('expands ::, reads an embedded dotted quad, a prefix and ignores a zone', () => {
    assert.deepEqual(parseIpv6('2001:db8::1'), { family: 6, groups: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1], prefixLength: 128 })
    assert.deepEqual(parseIpv6('::ffff:10.1.2.3'), { family: 6, groups: [0, 0, 0, 0, 0, 0xffff, 0x0a01, 0x0203], prefixLength: 128 })
    assert.deepEqual(parseIpv6('fe80::1/64%eth0'), { family: 6, groups: [0xfe80, 0, 0, 0, 0, 0, 0, 1], prefixLength: 64 })
    assert.deepEqual(parseIpv6('fe80::1%eth0/64'), { family: 6, groups: [0xfe80, 0, 0, 0, 0, 0, 0, 1], prefixLength: 64 })
    assert.deepEqual(parseIpv6('::'), { family: 6, groups: [0, 0, 0, 0, 0, 0, 0, 0], prefixLength: 128 })
  })

  test('refuses malformed addresses', () => {
    for (const text of ['bad::cidr', '1::2::3', ':::', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8::', 'abcde::', ':1::', '1::/129', '1::/64/64', '::01.2.3.4', '10.1.2.3']) {
      assert.equal(parseIpv6(text), undefined, text)
    }
  })
})

describe('ranges', () => {
  test('an address is in a range when its prefix is at least as long and the range bits agree', () => {
    assert.equal(isInSubnet(parseIpv4('160.33.0.33')!, parseIpv4('160.33.0.0/16')!), true)
    assert.equal(isInSubnet(parseIpv4('160.34.0.1')!, parseIpv4('160.33.0.0/16')!), false)
    assert.equal(isInSubnet(parseIpv4('160.33.0.0/8')!, parseIpv4('160.33.0.0/16')!), false)
    assert.equal(isInSubnet(parseIpv6('2001:db8:0:1::42')!, parseIpv6('2001:db8::/32')!), true)
    assert.equal(isInSubnet(parseIpv6('2001:db9::1')!, parseIpv6('2001:db8::/32')!), false)
    assert.equal(isInSubnet(parseIpv6('::1')!, parseIpv6('::/0')!), true)
  })

  test('families never mix', () => {
    assert.equal(isInSubnet(parseIpv6('::a00:1')!, parseIpv4('10.0.0.0/8')!), false)
    assert.equal(sameAddress(parseIpv6('::a00:1')!, parseIpv4('10.0.0.1')!), false)
  })

  test('sameAddress ignores prefix lengths and notation', () => {
    assert.equal(sameAddress(parseIpv4('10.1.2.3/30')!, parseIpv4('10.1.2.3')!), true)
    assert.equal(sameAddress(parseIpv6('2001:DB8:0:0:0:0:0:1')!, parseIpv6('2001:db8::1')!), true)
  })
})
