import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { allOf, compileConstraint } from './constraint-evaluation.ts'
import { contextValue } from './context.ts'
import type { ConstraintDefinition, EvaluationContext } from './types.ts'

function check(constraint: Partial<ConstraintDefinition> & { operator: string }, context: EvaluationContext): boolean {
  return compileConstraint({ contextName: 'field', ...constraint })(context)
}
const field = (value: string | null | undefined): EvaluationContext => ({ properties: { field: value } })

describe('context fields', () => {
  test('an own field wins over properties; null and missing fall through; values become strings', () => {
    assert.equal(contextValue({ userId: 'u', properties: { userId: 'p' } }, 'userId'), 'u')
    assert.equal(contextValue({ properties: { userId: 'p' } }, 'userId'), 'p')
    assert.equal(contextValue({ properties: { n: 5 } }, 'n'), '5')
    assert.equal(contextValue({ properties: { n: null } }, 'n'), undefined)
    assert.equal(contextValue({}, 'constructor'), undefined)
    assert.equal(contextValue({ properties: {} }, 'toString'), undefined)
  })
})

describe('IN and NOT_IN', () => {
  test('values are trimmed and empty ones dropped; the context value is not trimmed', () => {
    assert.equal(check({ operator: 'IN', values: [' a ', ''] }, field('a')), true)
    assert.equal(check({ operator: 'IN', values: ['a'] }, field(' a')), false)
    assert.equal(check({ operator: 'IN', values: ['', null] }, field('')), false)
  })

  test('caseInsensitive is ignored, as in the SDK', () => {
    assert.equal(check({ operator: 'IN', values: ['a'], caseInsensitive: true }, field('A')), false)
  })

  test('a missing value is not in the list; NOT_IN of it holds', () => {
    assert.equal(check({ operator: 'IN', values: ['a'] }, {}), false)
    assert.equal(check({ operator: 'NOT_IN', values: ['a'] }, {}), true)
    assert.equal(check({ operator: 'NOT_IN', values: [] }, field('a')), true)
  })
})

describe('STR_*', () => {
  test('starts, ends, contains any value', () => {
    assert.equal(check({ operator: 'STR_STARTS_WITH', values: ['x', 'ab'] }, field('abc')), true)
    assert.equal(check({ operator: 'STR_ENDS_WITH', values: ['bc'] }, field('abc')), true)
    assert.equal(check({ operator: 'STR_CONTAINS', values: ['d'] }, field('abc')), false)
  })

  test('caseInsensitive lower-cases both sides', () => {
    assert.equal(check({ operator: 'STR_CONTAINS', values: ['B'] }, field('abc')), false)
    assert.equal(check({ operator: 'STR_CONTAINS', values: ['B'], caseInsensitive: true }, field('aBc')), true)
  })

  test('a missing value fails, and inverted turns that into a pass', () => {
    assert.equal(check({ operator: 'STR_CONTAINS', values: ['a'] }, {}), false)
    assert.equal(check({ operator: 'STR_CONTAINS', values: ['a'], inverted: true }, {}), true)
  })
})

describe('NUM_*', () => {
  test('compares as JS numbers, as Number() reads them', () => {
    assert.equal(check({ operator: 'NUM_EQ', value: '16' }, field('0x10')), true)
    assert.equal(check({ operator: 'NUM_EQ', value: '0' }, field('')), true)
    assert.equal(check({ operator: 'NUM_GT', value: '1e3' }, field(' 1001 ')), true)
    assert.equal(check({ operator: 'NUM_GTE', value: '5' }, field('5')), true)
    assert.equal(check({ operator: 'NUM_LT', value: '5' }, field('5')), false)
    assert.equal(check({ operator: 'NUM_LTE', value: '5.0' }, field('5')), true)
  })

  test('NaN on either side is false', () => {
    assert.equal(check({ operator: 'NUM_EQ', value: 'x' }, field('1')), false)
    assert.equal(check({ operator: 'NUM_LT', value: '10' }, field('ten')), false)
    assert.equal(check({ operator: 'NUM_LT', value: '10' }, {}), false)
  })
})

describe('DATE_*', () => {
  test('compare currentTime, whatever contextName says', () => {
    const constraint = { contextName: 'anything', value: '2024-01-01T00:00:00.000Z' }
    assert.equal(check({ ...constraint, operator: 'DATE_AFTER' }, { currentTime: '2024-01-01T00:00:00.001Z' }), true)
    assert.equal(check({ ...constraint, operator: 'DATE_AFTER' }, { currentTime: new Date('2024-01-01T00:00:00.000Z') }), false)
    assert.equal(check({ ...constraint, operator: 'DATE_BEFORE' }, { currentTime: '2023-12-31' }), true)
  })

  test('currentTime defaults to now; unparseable dates are false', () => {
    assert.equal(check({ operator: 'DATE_AFTER', value: '2000-01-01' }, {}), true)
    assert.equal(check({ operator: 'DATE_BEFORE', value: '2000-01-01' }, {}), false)
    assert.equal(check({ operator: 'DATE_AFTER', value: 'soon' }, {}), false)
    assert.equal(check({ operator: 'DATE_BEFORE', value: '2999-01-01' }, { currentTime: 'garbage' }), false)
  })
})

describe('SEMVER_*', () => {
  test('compares versions with pre-release ordering', () => {
    assert.equal(check({ operator: 'SEMVER_EQ', value: '1.2.2' }, field('1.2.2')), true)
    assert.equal(check({ operator: 'SEMVER_GT', value: '2.0.0-alpha' }, field('2.0.0-alpha.1')), true)
    assert.equal(check({ operator: 'SEMVER_LT', value: '2.0.0-alpha.1' }, field('1.9.1-beta.1')), true)
    assert.equal(check({ operator: 'SEMVER_GTE', value: '1.2.2' }, field('1.2.1')), false)
    assert.equal(check({ operator: 'SEMVER_LTE', value: '1.2.2' }, field('1.2.2+build')), true)
  })

  test('a leading v is refused in the context value but accepted in the constraint value', () => {
    assert.equal(check({ operator: 'SEMVER_EQ', value: '2.0.0' }, field('v2.0.0')), false)
    assert.equal(check({ operator: 'SEMVER_EQ', value: 'v2.0.0' }, field('2.0.0')), true)
    assert.equal(check({ operator: 'SEMVER_EQ', value: '2.0.0' }, field(' 2.0.0')), true)
  })

  test('an invalid version on either side is false', () => {
    assert.equal(check({ operator: 'SEMVER_EQ', value: '1.2' }, field('1.2.0')), false)
    assert.equal(check({ operator: 'SEMVER_GT', value: '1.0.0' }, field('not a semver')), false)
  })
})

describe('REGEX', () => {
  test('matches anywhere in the value, with caseInsensitive', () => {
    assert.equal(check({ operator: 'REGEX', value: 'b+' }, field('abbc')), true)
    assert.equal(check({ operator: 'REGEX', value: '^abc$' }, field('ABC')), false)
    assert.equal(check({ operator: 'REGEX', value: '^abc$', caseInsensitive: true }, field('ABC')), true)
  })

  test('an invalid pattern is false (and inverted, true)', () => {
    assert.equal(check({ operator: 'REGEX', value: '(regex' }, field('(regex')), false)
    assert.equal(check({ operator: 'REGEX', value: '(regex', inverted: true }, field('(regex')), true)
    assert.equal(check({ operator: 'REGEX' }, field('x')), false)
  })
})

describe('IN_CIDR', () => {
  const remote = (remoteAddress: string): EvaluationContext => ({ remoteAddress })
  const constraint = { contextName: 'remoteAddress', operator: 'IN_CIDR' }

  test('exact addresses and ranges of the same family; invalid entries are skipped', () => {
    assert.equal(check({ ...constraint, values: ['127.0.0.1'] }, remote('127.0.0.1')), true)
    assert.equal(check({ ...constraint, values: ['127.invalid', ' 192.168.1.0/24 '] }, remote('192.168.1.42')), true)
    assert.equal(check({ ...constraint, values: ['bad::cidr', '2001:db8::/32'] }, remote('2001:db8::abcd')), true)
    assert.equal(check({ ...constraint, values: ['::ffff:10.0.0.0/104'] }, remote('10.1.2.3')), false)
    assert.equal(check({ ...constraint, values: ['10.1.2.3/32'] }, remote('10.1.2.3/24')), true)
  })

  test('a missing or malformed address is false', () => {
    assert.equal(check({ ...constraint, values: ['0.0.0.0/0'] }, {}), false)
    assert.equal(check({ ...constraint, values: ['0.0.0.0/0'] }, remote('localhost')), false)
  })
})

describe('operators and lists', () => {
  test('an unknown operator is false, even inverted', () => {
    assert.equal(check({ operator: 'NOT_A_VALID_OPERATOR', values: ['a'] }, field('a')), false)
    assert.equal(check({ operator: 'NOT_A_VALID_OPERATOR', inverted: true }, field('a')), false)
  })

  test('inverted negates the operator', () => {
    assert.equal(check({ operator: 'IN', values: ['a'], inverted: true }, field('a')), false)
  })

  test('a null constraint is false; all constraints must hold; none is true', () => {
    assert.equal(compileConstraint(null)({}), false)
    const yes = compileConstraint({ contextName: 'field', operator: 'NOT_IN', values: [] })
    const no = compileConstraint({ contextName: 'field', operator: 'IN', values: [] })
    assert.equal(allOf([])({}), true)
    assert.equal(allOf([yes, yes])({}), true)
    assert.equal(allOf([yes, no])({}), false)
  })
})
