import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Address4 } from 'ip-address'
import { contextIpv4, inIpv4Range, parseIpv4 } from './ipv4.ts'

// What Address4 accepts and how it compares, against which ipv4.ts is checked.
const reference = (text: string) => (Address4.isValid(text) ? new Address4(text) : undefined)

const octet = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map(String),
  fc.constantFrom('00', '01', '256', '300', '-1', '1e2', ' 1', '0x1', ''),
)
const ipv4Text = fc.oneof(
  fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.')),
  fc
    .tuple(
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
    )
    .map((parts) => parts.join('.')),
)
const suffix = fc.oneof(
  fc.constant(''),
  fc.integer({ min: 0, max: 40 }).map((n) => `/${n}`),
  fc.constantFrom('/08', '/032', '/', '//8', '/8 ', '/ 8', '\n'),
)
const text = fc.oneof(
  fc.tuple(ipv4Text, suffix).map(([address, tail]) => address + tail),
  fc.string(),
  fc.constantFrom('::1', '::ffff:1.2.3.4', '1.2.3', '1.2.3.4.5', '1.2.3.4\n', '１.2.3.4', '127.0.0.1'),
)

describe('ipv4 (as ip-address reads and compares IPv4)', () => {
  it('accepts exactly what Address4.isValid accepts', () => {
    fc.assert(
      fc.property(text, (value) => assert.equal(parseIpv4(value) !== undefined, Address4.isValid(value), value)),
      { numRuns: 20_000 },
    )
  })

  it('inIpv4Range answers as Address4#isInSubnet, and equal numbers are equal correct forms', () => {
    const valid = fc
      .tuple(ipv4Text, suffix)
      .map(([address, tail]) => address + tail)
      .filter((value) => Address4.isValid(value))
    // Ranges near the address, so that many tests are inside.
    const pair = fc.oneof(
      fc.tuple(valid, valid),
      valid.chain((address) =>
        fc.integer({ min: 0, max: 32 }).map((prefix) => [address, `${address.replace(/\/.*/, '')}/${prefix}`] as const),
      ),
    )
    fc.assert(
      fc.property(pair, ([addressText, rangeText]) => {
        const address = reference(addressText)!
        const range = reference(rangeText)!
        assert.equal(
          inIpv4Range(parseIpv4(addressText)!, parseIpv4(rangeText)!),
          address.isInSubnet(range),
          `${addressText} in ${rangeText}`,
        )
        assert.equal(parseIpv4(addressText)!.value === parseIpv4(rangeText)!.value, address.correctForm() === range.correctForm())
      }),
      { numRuns: 20_000 },
    )
  })

  it('examples', () => {
    assert.deepEqual(parseIpv4('10.1.2.3'), { value: 0x0a010203, prefix: 32 })
    assert.deepEqual(parseIpv4('255.255.255.255/0'), { value: 0xffffffff, prefix: 0 })
    assert.equal(parseIpv4('1.2.3.4/33'), undefined)
    assert.equal(inIpv4Range(parseIpv4('10.200.3.4')!, parseIpv4('10.0.0.0/8')!), true)
    assert.equal(inIpv4Range(parseIpv4('11.0.0.1')!, parseIpv4('10.0.0.0/8')!), false)
    assert.equal(inIpv4Range(parseIpv4('10.0.0.0/8')!, parseIpv4('10.0.0.0/16')!), false)
    assert.equal(inIpv4Range(parseIpv4('10.0.0.0/16')!, parseIpv4('10.0.0.0/8')!), true)
  })

  it('contextIpv4 remembers the last text, and reads another anew', () => {
    assert.deepEqual(contextIpv4('1.2.3.4'), { value: 0x01020304, prefix: 32 })
    assert.equal(contextIpv4('1.2.3.4'), contextIpv4('1.2.3.4'))
    assert.equal(contextIpv4('not an address'), undefined)
    assert.deepEqual(contextIpv4('4.3.2.1/24'), { value: 0x04030201, prefix: 24 })
  })
})
