import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEvaluator } from './evaluate.ts'
import { compileRegex } from './regex.ts'

// Expectations are RE2's answers, as unleash-client gets them (RE2JS.compile(pattern, flags).matcher(value).find()):
// these check that Pennon asks re2js the same question, with the caseInsensitive flag.
function matches(pattern: string, value: string, caseInsensitive = false): boolean {
  const regex = compileRegex(pattern, caseInsensitive)
  assert.ok(regex, `${pattern} should compile`)
  return regex.test(value)
}

describe('compileRegex', () => {
  test('finds a match anywhere, like RE2JS find()', () => {
    assert.equal(matches('cat', 'concatenate'), true)
    assert.equal(matches('^cat$', 'Cat'), false)
  })

  test('inline flags apply from where they stand to the end of their group', () => {
    assert.equal(matches('^(?i)abc$', 'AbC'), true)
    assert.equal(matches('a(?i)b|c', 'C'), true)
    assert.equal(matches('(a(?i)b)c', 'aBc'), true)
    assert.equal(matches('(a(?i)b)c', 'aBC'), false)
    assert.equal(matches('(?i:a)b', 'AB'), false)
    assert.equal(matches('^abc$', 'ABC', true), true)
    assert.equal(matches('^a(?-i)bc$', 'ABC', true), false)
    assert.equal(matches('^a(?-i)bc$', 'Abc', true), true)
  })

  test('(?m) anchors at line ends on \\n only; (?s) lets . match \\n', () => {
    assert.equal(matches('(?m)^foo$', 'x\nfoo\ny'), true)
    assert.equal(matches('^foo$', 'x\nfoo\ny'), false)
    assert.equal(matches('(?m)^foo$', 'x\rfoo\ry'), false)
    assert.equal(matches('^a.b$', 'a\nb'), false)
    assert.equal(matches('^(?s)a.b$', 'a\nb'), true)
    assert.equal(matches('^a.b$', 'a\rb'), true)
    assert.equal(matches('(?m)$^', '😀'), false)
  })

  test('(?U) swaps greedy and lazy repetition', () => {
    assert.equal(matches('^(?U)a+$', 'aaa'), true)
    assert.equal(matches('^(?U)(a+)(a*)$', 'aaa'), true)
  })

  test('Perl and POSIX classes are ASCII, with RE2 \\s (no \\v)', () => {
    assert.equal(matches('^[[:alpha:]]+$', 'AlphaBeta'), true)
    assert.equal(matches('^[[:alpha:]]+$', 'Alpha1'), false)
    assert.equal(matches('^[[:^digit:]x]+$', 'ab'), true)
    assert.equal(matches('\\s', '\v'), false)
    assert.equal(matches('\\s', '\u00a0'), false)
    assert.equal(matches('\\w', 'é'), false)
    assert.equal(matches('\\d', '٣'), false)
  })

  test('\\b stays ASCII under case folding', () => {
    assert.equal(matches('\\bcat\\b', 'a cat b'), true)
    assert.equal(matches('\\bcat\\b', 'concatenate'), false)
    assert.equal(matches('a\\b', 'a\u017f', true), true)
  })

  test('case folding covers ſ and K (U+212A), also for negated groups and inline (?i)', () => {
    assert.equal(matches('k', '\u212a', true), true)
    assert.equal(matches('(?i)\u212a', 'k'), true)
    assert.equal(matches('(?i)\u017f', 's'), true)
    assert.equal(matches('^[[:^upper:]]$', 'a', true), false)
    assert.equal(matches('^[[:^upper:]]$', '\u212a', true), false)
    assert.equal(matches('^\\W$', '\u212a', true), false)
    assert.equal(matches('^\\P{Lu}$', 'a', true), false)
  })

  test('literal braces, \\Q…\\E, octal and hex escapes, escaped punctuation', () => {
    assert.equal(matches('^a{,2}$', 'a{,2}'), true)
    assert.equal(matches('^a{2$', 'a{2'), true)
    assert.equal(matches('^\\Q.*+\\E$', '.*+'), true)
    assert.equal(matches('^\\101\\x42\\x{43}$', 'ABC'), true)
    assert.equal(matches('^\\_\\-\\ $', '_- '), true)
    assert.equal(matches('^[]a]+$', ']a]'), true)
    assert.equal(matches('^[a-]+$', '-a'), true)
  })

  test('Unicode classes by category and script', () => {
    assert.equal(matches('^\\p{Greek}+$', 'αβ'), true)
    assert.equal(matches('^\\pL+$', 'été'), true)
    assert.equal(matches('^\\p{^L}$', '1'), true)
    assert.equal(matches('^.$', '😀'), true)
  })

  test('refuses what RE2 refuses', () => {
    for (const pattern of [
      '(regex',
      'a)',
      '[a',
      '^(?=a)b$',
      '(?!a)',
      '(?<=a)b',
      '^(a)\\1$',
      '\\8',
      'a**',
      'a{2}{3}',
      '*a',
      'a|*',
      'a{1001}',
      'a{3,2}',
      '(a{40}){30}',
      '[[:foo:]]',
      '[z-a]',
      '[\\b]',
      '\\Z',
      '\\C',
      '\\e',
      '\\p{Latn}',
      '\\p{Letter}',
      '(?P<a>x)(?P<a>y)',
      '(?P<>x)',
      '(?#comment)',
      '(?i-)',
      '\\x{110000}',
      'a\\',
    ]) {
      assert.equal(compileRegex(pattern, false), undefined, pattern)
    }
  })

  test('accepts RE2 forms that JS alone would not', () => {
    for (const pattern of ['(?P<name>a)', '(?<name>a)', '(?)', '^*', 'x{1000}', '(a{40}){25}', '(?i)', '\\pN', '[\\d-z]', '\\0', '\\012']) {
      assert.notEqual(compileRegex(pattern, false), undefined, pattern)
    }
  })
})

// Patterns that make a backtracking engine take exponential (or high polynomial) time. RE2 never
// backtracks, so each completes on a 100 KB value; a backtracking translation of the first would
// still be running (30 characters took 20 s). No time is asserted: finishing is the proof.
const CATASTROPHIC: Array<[pattern: string, value: string, expected: boolean]> = [
  ['(a+)+$', `${'a'.repeat(100_000)}!`, false],
  ['(a+)+!$', `${'a'.repeat(100_000)}!`, true],
  ['^(a+)+$', `${'a'.repeat(100_000)}!`, false],
  ['(a|aa)+$', `${'a'.repeat(100_000)}!`, false],
  ['^(a|aa)+$', `${'a'.repeat(100_000)}!`, false],
  ['^(.*a){20}$', `${'a'.repeat(100_000)}!`, false],
  ['(.*a){20}', `${'a'.repeat(100_000)}!`, true],
  ['^((a*)*)*b$', 'a'.repeat(100_000), false],
  ['^(x+x+)+y$', 'x'.repeat(100_000), false],
  ['^(\\w+\\s?)+$', `${'word '.repeat(20_000)}!`, false],
  ['^[a-z]{1,1000}!$', 'a'.repeat(100_000), false],
  ['(?i)^(a|b)*a(a|b){500}$', `${'ab'.repeat(50_000)}c`, false],
]

describe('REGEX in linear time', () => {
  test("catastrophic patterns finish on 100 KB values with RE2's answer", () => {
    for (const [pattern, value, expected] of CATASTROPHIC) assert.equal(matches(pattern, value), expected, pattern)
  })

  test("regexWork: each field's value length times the program sizes of the distinct REGEX constraints on it", () => {
    const regex = (contextName: string, value: string) => ({ contextName, operator: 'REGEX', value })
    const size = (pattern: string) => compileRegex(pattern, false)!.programSize()
    const evaluator = createEvaluator({
      features: [
        {
          name: 'a',
          enabled: true,
          strategies: [{ name: 'default', constraints: [regex('email', '@example\\.com$'), regex('userId', '^u[0-9]+$')] }],
        },
        // The same constraint again is evaluated once per context: it weighs once.
        { name: 'b', enabled: true, strategies: [{ name: 'default', constraints: [regex('email', '@example\\.com$')] }] },
        { name: 'c', enabled: true, strategies: [{ name: 'default', segments: [1] }] },
      ],
      segments: [{ id: 1, constraints: [regex('email', '^admin@')] }],
    })
    const context = { userId: 'u123', properties: { email: 'someone@example.com' } }
    assert.equal(evaluator.regexWork(context), 19 * (size('@example\\.com$') + size('^admin@')) + 4 * size('^u[0-9]+$'))
    assert.equal(evaluator.regexWork({}), 0)
  })
})
