import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { compareSemver, parseSemver } from './semver.ts'

describe('parseSemver', () => {
  test('reads major.minor.patch, pre-release identifiers, and drops build metadata', () => {
    assert.deepEqual(parseSemver('1.2.3'), { major: 1, minor: 2, patch: 3, prerelease: [] })
    assert.deepEqual(parseSemver('1.2.3-alpha.1+build.7'), { major: 1, minor: 2, patch: 3, prerelease: ['alpha', '1'] })
    assert.deepEqual(parseSemver('0.0.0-0a.-x'), { major: 0, minor: 0, patch: 0, prerelease: ['0a', '-x'] })
  })

  test('accepts a leading v and surrounding whitespace, as the semver package does', () => {
    assert.deepEqual(parseSemver('v2.0.0'), { major: 2, minor: 0, patch: 0, prerelease: [] })
    assert.deepEqual(parseSemver(' 2.0.0\n'), { major: 2, minor: 0, patch: 0, prerelease: [] })
  })

  test('refuses loose forms, leading zeros, unsafe numbers and texts over 256 characters', () => {
    for (const text of ['', '1.2', '1.2.3.4', '=1.2.3', 'V1.2.3', '01.2.3', '1.2.3-01', '1.2.3-', '1.2.3+', '1.2.3-a..b', 'not a semver', '9007199254740992.0.0']) {
      assert.equal(parseSemver(text), undefined, text)
    }
    assert.notEqual(parseSemver('9007199254740991.0.0'), undefined)
    assert.equal(parseSemver(`1.2.3-${'a'.repeat(251)}`), undefined)
    assert.notEqual(parseSemver(`1.2.3-${'a'.repeat(250)}`), undefined)
  })
})

describe('compareSemver', () => {
  const compare = (a: string, b: string) => compareSemver(parseSemver(a)!, parseSemver(b)!)

  test('orders main versions numerically', () => {
    assert.equal(compare('1.2.10', '1.2.9'), 1)
    assert.equal(compare('1.10.0', '2.0.0'), -1)
    assert.equal(compare('1.2.3', 'v1.2.3'), 0)
  })

  test('puts a pre-release below its release and compares identifiers left to right', () => {
    assert.equal(compare('2.0.0-rc', '2.0.0'), -1)
    assert.equal(compare('2.0.0-alpha', '2.0.0-alpha.1'), -1)
    assert.equal(compare('2.0.0-alpha.1', '2.0.0-alpha.3'), -1)
    assert.equal(compare('2.0.0-alpha.10', '2.0.0-alpha.9'), 1)
    assert.equal(compare('2.0.0-beta.1', '2.0.0-alpha.1'), 1)
    assert.equal(compare('2.0.0-1', '2.0.0-alpha'), -1)
    assert.equal(compare('2.0.0-alpha.beta', '2.0.0-alpha.1'), 1)
  })

  test('ignores build metadata', () => {
    assert.equal(compare('1.0.0+a', '1.0.0+b'), 0)
  })

  test('compares numeric identifiers as numbers even past 2^53, as the package does', () => {
    assert.equal(compare('1.0.0-9007199254740993.5', '1.0.0-9007199254740992.1'), 0)
  })
})
