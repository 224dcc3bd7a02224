import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  checkConstraint,
  checkConstraints,
  isFiniteNumberText,
  isIsoDateText,
  isStrictSemver,
  normalizeConstraint,
  OPERATORS,
  type ConstraintInput,
} from './constraints.ts'
import { MAX_PROGRAM_SIZE, regexProblem } from '../evaluation/regex.ts'

const at = '/body/constraints/0'

describe('numbers (NUM_*)', () => {
  test('accepts an optional sign, digits with an optional fraction and an optional exponent', () => {
    for (const text of ['0', '42', '-1.5', '+5', '1e3', '1E-3', '2.5e+10', '.5', '5.', '-.5', '007']) {
      assert.equal(isFiniteNumberText(text), true, text)
    }
  })
  test('refuses everything else, and numbers too large to be finite', () => {
    for (const text of [
      '',
      ' ',
      ' 1',
      '1 ',
      '0x10',
      '0b1',
      'Infinity',
      '-Infinity',
      'NaN',
      '1,5',
      '.',
      '+',
      '-',
      'e3',
      '1e',
      '1e+',
      '1.2.3',
      '1_000',
      '١',
      '1e999',
    ]) {
      assert.equal(isFiniteNumberText(text), false, JSON.stringify(text))
    }
  })
})

describe('dates (DATE_*)', () => {
  test('accepts calendar dates and date-times with or without seconds, fraction and offset', () => {
    for (const text of [
      '2024-01-01',
      '2024-02-29',
      '2000-02-29',
      '2024-12-31T23:59',
      '2024-12-31T23:59:59',
      '2024-12-31T23:59:59.999Z',
      '2024-12-31T23:59:59.123456+02:00',
      '2024-06-01T00:00:00-11:30',
      '2024-06-01T00:00Z',
    ]) {
      assert.equal(isIsoDateText(text), true, text)
      assert.ok(!Number.isNaN(Date.parse(text)), `JavaScript can evaluate ${text}`)
    }
  })
  test('refuses dates that do not exist and other formats', () => {
    for (const text of [
      '',
      '2023-02-29',
      '1900-02-29',
      '2024-02-30',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '2024-1-1',
      '24-01-01',
      '2024/01/01',
      '2024-01-01T24:00',
      '2024-01-01T12:60',
      '2024-01-01T12:00:60',
      '2024-01-01T12',
      '2024-01-01 12:00:00',
      '2024-01-01T12:00:00+0200',
      '2024-01-01T12:00:00+24:00',
      '2024-01-01T12:00:00.Z',
      '1700000000000',
      'tomorrow',
      '2024-01-01Z',
    ]) {
      assert.equal(isIsoDateText(text), false, JSON.stringify(text))
    }
  })
})

describe('semantic versions (SEMVER_*)', () => {
  test('accepts strict MAJOR.MINOR.PATCH with pre-release and build', () => {
    for (const text of [
      '0.0.0',
      '1.2.3',
      '10.20.30',
      '1.2.3-beta.1',
      '1.0.0-0.3.7',
      '1.0.0-x-y-z.--',
      '1.0.0+20130313144700',
      '1.0.0-beta+exp.sha.5114f85',
    ]) {
      assert.equal(isStrictSemver(text), true, text)
    }
  })
  test('refuses loose forms', () => {
    for (const text of [
      '',
      '1',
      '1.2',
      'v1.2.3',
      '=1.2.3',
      '01.2.3',
      '1.02.3',
      '1.2.03',
      '1.2.3-01',
      '1.2.3-',
      '1.2.3+',
      '1.2.3-beta..1',
      ' 1.2.3',
      '1.2.3 ',
      '1.2.3.4',
      '9007199254740992.0.0',
    ]) {
      assert.equal(isStrictSemver(text), false, JSON.stringify(text))
    }
  })
})

describe('regular expressions (REGEX)', () => {
  test('takes what RE2 (re2js, as the SDKs) takes, and says why a pattern is refused', () => {
    assert.equal(regexProblem('^user-[0-9]+$', false), undefined)
    assert.equal(regexProblem('\\p{L}+', false), undefined)
    assert.equal(regexProblem('^[[:alpha:]]+$', false), undefined)
    assert.equal(regexProblem('a{', false), undefined, 'RE2 reads a lone brace as itself')
    assert.equal(regexProblem('(?i)abc', false), undefined)
    assert.equal(regexProblem('((', false), 'missing closing ): `((`')
    assert.equal(regexProblem('\\q', false), 'invalid escape sequence: `\\q`')
    assert.equal(regexProblem('[b-a]', false), 'invalid character class range: `b-a`')
    assert.equal(regexProblem('(?<=a)b', false), 'invalid named capture: `(?<=a)b`')
    assert.equal(regexProblem('(a)\\1', false), 'invalid escape sequence: `\\1`')
    assert.equal(regexProblem('x{1001}', false), 'invalid repeat count: `{1001}`')
  })

  test('refuses a pattern whose compiled program is over MAX_PROGRAM_SIZE', () => {
    assert.equal(regexProblem('a{1000}b{1000}c{1000}d{1000}', false), undefined)
    assert.equal(
      regexProblem('a{1000}b{1000}c{1000}d{1000}e{1000}', false),
      `the pattern is too large: its compiled program has 5002 instructions, at most ${MAX_PROGRAM_SIZE} are allowed`,
    )
  })
})

describe('checkConstraint', () => {
  test('every operator with a good value passes', () => {
    for (const operator of OPERATORS) {
      const constraint: ConstraintInput = operator.startsWith('NUM')
        ? { contextName: 'n', operator, value: '1.5' }
        : operator.startsWith('DATE')
          ? { contextName: 'currentTime', operator, value: '2024-01-01T00:00:00Z' }
          : operator.startsWith('SEMVER')
            ? { contextName: 'appVersion', operator, value: '1.2.3' }
            : operator === 'REGEX'
              ? { contextName: 'userId', operator, value: '^a.*$' }
              : operator === 'IN_CIDR'
                ? { contextName: 'remoteAddress', operator, values: ['10.0.0.0/8', '::1'] }
                : { contextName: 'userId', operator, values: ['a'] }
      assert.deepEqual(checkConstraint(constraint, at), [], operator)
    }
  })

  test('list operators need at least one value; a single value is not enough', () => {
    const missing =
      '`/body/constraints/0/values` property is required for the STR_CONTAINS operator: it needs at least one value. It was not present on the data you sent.'
    assert.deepEqual(checkConstraint({ contextName: 'c', operator: 'STR_CONTAINS', value: 'x' }, at), [
      { path: `${at}/values`, message: `The ${missing}` },
    ])
    assert.deepEqual(checkConstraint({ contextName: 'c', operator: 'IN', values: [] }, at), [
      {
        path: `${at}/values`,
        message: 'The `/body/constraints/0/values` property must hold at least one value for the IN operator. You sent [].',
      },
    ])
  })

  test('single-value operators need value; values are not enough', () => {
    assert.deepEqual(checkConstraint({ contextName: 'c', operator: 'SEMVER_EQ', values: ['1.2.3'] }, at), [
      {
        path: `${at}/value`,
        message:
          'The `/body/constraints/0/value` property is required for the SEMVER_EQ operator. It was not present on the data you sent.',
      },
    ])
  })

  test('a bad value names the operator, says what is expected and quotes what was sent', () => {
    assert.deepEqual(checkConstraint({ contextName: 'c', operator: 'NUM_GT', value: '0x10' }, '/body/constraints/3'), [
      {
        path: '/body/constraints/3/value',
        message:
          'The `/body/constraints/3/value` property must be a finite number (optional sign, digits with an optional fraction, optional exponent, e.g. -1.5 or 1e3) for the NUM_GT operator. You sent "0x10".',
      },
    ])
    const [date] = checkConstraint({ contextName: 'c', operator: 'DATE_BEFORE', value: '2023-02-29' }, at)
    assert.match(date!.message, /an ISO-8601 date or date-time that exists .* for the DATE_BEFORE operator\. You sent "2023-02-29"\.$/)
    const [semver] = checkConstraint({ contextName: 'c', operator: 'SEMVER_LT', value: 'v1.2.3' }, at)
    assert.match(semver!.message, /strict semantic version .* for the SEMVER_LT operator\. You sent "v1\.2\.3"\.$/)
  })

  test('REGEX must compile and may not be inverted; both problems are reported', () => {
    assert.deepEqual(checkConstraint({ contextName: 'c', operator: 'REGEX', value: '((', inverted: true }, at), [
      {
        path: `${at}/value`,
        message:
          'The `/body/constraints/0/value` property must be a regular expression that compiles (missing closing ): `((`). You sent "((".',
      },
      {
        path: `${at}/inverted`,
        message: 'The `/body/constraints/0/inverted` property must not be true: a REGEX constraint cannot be inverted. You sent true.',
      },
    ])
    assert.deepEqual(checkConstraint({ contextName: 'c', operator: 'REGEX', value: 'a', inverted: false }, at), [])
  })

  test('long values are quoted cut at 100 characters', () => {
    const [detail] = checkConstraint({ contextName: 'c', operator: 'NUM_EQ', value: 'x'.repeat(500) }, at)
    assert.ok(detail!.message.endsWith(`You sent "${'x'.repeat(99)}….`))
  })

  test('an operator the schema did not filter is reported, not trusted', () => {
    const [detail] = checkConstraint({ contextName: 'c', operator: 'LIKE' as never }, at)
    assert.equal(detail!.path, `${at}/operator`)
    assert.match(detail!.message, /must be one of "NOT_IN", "IN", .*"REGEX", "IN_CIDR"\. You sent "LIKE"\.$/)
  })

  test('IN_CIDR takes IPv4 and IPv6 addresses and CIDR ranges, each checked', () => {
    assert.deepEqual(
      checkConstraint({ contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['192.168.0.1', '10.0.0.0/8', '2001:db8::/32'] }, at),
      [],
    )
    assert.deepEqual(
      checkConstraint({ contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8', 'intranet', '300.1.1.1'] }, at),
      [
        {
          path: `${at}/values/1`,
          message:
            'The `/body/constraints/0/values/1` property must be an IPv4 or IPv6 address or a CIDR range (e.g. 10.0.0.0/8) for the IN_CIDR operator. You sent "intranet".',
        },
        {
          path: `${at}/values/2`,
          message:
            'The `/body/constraints/0/values/2` property must be an IPv4 or IPv6 address or a CIDR range (e.g. 10.0.0.0/8) for the IN_CIDR operator. You sent "300.1.1.1".',
        },
      ],
    )
  })
})

describe('checkConstraints', () => {
  test('reports every violation of every constraint, in order', () => {
    const details = checkConstraints(
      [
        { contextName: 'a', operator: 'IN', values: ['x'] },
        { contextName: 'b', operator: 'NUM_EQ', value: 'one' },
        { contextName: 'c', operator: 'IN' },
        { contextName: 'd', operator: 'DATE_AFTER' },
      ],
      { valuesLimit: 1000 },
    )
    assert.deepEqual(
      details.map((d) => d.path),
      ['/body/constraints/1/value', '/body/constraints/2/values', '/body/constraints/3/value'],
    )
  })

  test('values are summed over all constraints; the limit itself is allowed', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `v${i}`)
    const constraints: ConstraintInput[] = [
      { contextName: 'a', operator: 'IN', values: ten },
      { contextName: 'b', operator: 'NUM_EQ', value: '1', values: ten.slice(0, 5) },
    ]
    assert.deepEqual(checkConstraints(constraints, { valuesLimit: 15 }), [])
    assert.deepEqual(checkConstraints(constraints, { valuesLimit: 14 }), [
      {
        path: '/body/constraints',
        message:
          'The `/body/constraints` property holds 15 values in all; a segment may hold at most 14. You sent 15 values across 2 constraints.',
      },
    ])
  })

  test('an empty list is fine', () => {
    assert.deepEqual(checkConstraints([], { valuesLimit: 1 }), [])
  })
})

describe('normalizeConstraint', () => {
  test('values default to [], optional keys only when sent, one key order', () => {
    assert.deepEqual(Object.entries(normalizeConstraint({ value: '1', operator: 'NUM_EQ', contextName: 'n' })), [
      ['contextName', 'n'],
      ['operator', 'NUM_EQ'],
      ['values', []],
      ['value', '1'],
    ])
    assert.deepEqual(normalizeConstraint({ contextName: 'u', operator: 'IN', values: ['a'], inverted: false, caseInsensitive: true }), {
      contextName: 'u',
      operator: 'IN',
      caseInsensitive: true,
      inverted: false,
      values: ['a'],
    })
  })
})
