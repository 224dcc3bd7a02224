import assert from 'node:assert/strict'
import { test } from 'node:test'
import { addressKey } from './client-address.ts'

test('IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64, anything else as sent', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7')
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7')
  assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  assert.equal(addressKey('2001:0db8:0001:0002:ffff::1'), '2001:db8:1:2::/64')
  assert.equal(addressKey('::1'), '::/64')
  assert.equal(addressKey('not:an address'), 'not:an address')
})
