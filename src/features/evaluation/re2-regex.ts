/**
 * REGEX constraints use RE2 syntax and semantics: the Node SDK compiles them with RE2JS and
 * looks for a match anywhere in the value. JavaScript regexes differ in syntax (`(?i)` flags,
 * `[[:alpha:]]`, `\Q…\E`, literal `{`, lookarounds and backreferences, which RE2 refuses) and
 * in meaning (`.`, `\s`, `\b`, `^`/`$` with `(?m)`). This translates an RE2 pattern into a
 * `u`-mode RegExp that matches the same strings, and refuses what RE2JS refuses.
 *
 * Known gaps: RE2's size and nesting limits are not checked; Unicode tables are V8's, not
 * RE2JS's (scripts or characters added in one Unicode version and not the other); a negated
 * Unicode class inside brackets (`[\P{Lu}x]`) under case-insensitive matching is not folded
 * before negation as RE2 does.
 */
import {
  type Cursor,
  fail,
  literalText,
  next,
  parseBracketClass,
  parseEscape,
  parsePerlGroup,
  parseUnicodeGroup,
  rangesText,
} from './re2-classes.ts'

const FOLD_CASE = 1
const MULTI_LINE = 2
const DOT_NEW_LINE = 4
const UNGREEDY = 8
const ALL_FLAGS = 15
const FLAG_BITS: Record<string, number> = { i: FOLD_CASE, m: MULTI_LINE, s: DOT_NEW_LINE, U: UNGREEDY }
const MAX_REPEAT = 1000

type AtomKind = 'atom' | 'assertion' | 'repeated' | 'bar'

/** One open group: the JS text of its atoms (`|` included), and the flags to restore at `)`. */
interface Group {
  atoms: string[]
  kinds: AtomKind[]
  /** Largest product of `{n,m}` counts nested in each atom (RE2 refuses more than 1000). */
  repeatWeights: number[]
  outerFlags: number
}

interface Translation extends Cursor {
  flags: number
  /** Case folding of the whole RegExp (its `i` flag); atoms folded otherwise are wrapped. */
  readonly baseFold: boolean
  readonly groups: Group[]
  readonly groupNames: Set<string>
  lastWasRepeat: boolean
}

/**
 * The RegExp for an RE2 `pattern`, or undefined where RE2JS would refuse it.
 * `caseInsensitive` is the constraint's flag (RE2JS prefixes the pattern with `(?i)`).
 */
export function compileRe2(pattern: string, caseInsensitive: boolean): RegExp | undefined {
  try {
    return new RegExp(translate(pattern, caseInsensitive), caseInsensitive ? 'iu' : 'u')
  } catch {
    return undefined
  }
}

function translate(pattern: string, caseInsensitive: boolean): string {
  const flags = caseInsensitive ? FOLD_CASE : 0
  const state: Translation = {
    pattern,
    pos: 0,
    flags,
    baseFold: caseInsensitive,
    groups: [newGroup(flags)],
    groupNames: new Set(),
    lastWasRepeat: false,
  }
  while (state.pos < pattern.length) {
    const wasRepeat = step(state)
    state.lastWasRepeat = wasRepeat
  }
  if (state.groups.length !== 1) fail('missing closing )')
  return state.groups[0].atoms.join('')
}

function newGroup(outerFlags: number): Group {
  return { atoms: [], kinds: [], repeatWeights: [], outerFlags }
}

/** Translates the token at the cursor; true when it was a repetition operator. */
function step(state: Translation): boolean {
  const { pattern } = state
  const multiLine = (state.flags & MULTI_LINE) !== 0
  switch (pattern[state.pos]) {
    case '(':
      if (pattern.startsWith('(?', state.pos)) parseGroupFlags(state)
      else {
        state.pos++
        state.groups.push(newGroup(state.flags))
      }
      return false
    case '|':
      state.pos++
      push(state, '|', 'bar')
      return false
    case ')': {
      state.pos++
      const group = state.groups.pop()
      if (group === undefined || state.groups.length === 0) fail('unexpected )')
      state.flags = group.outerFlags
      push(state, `(?:${group.atoms.join('')})`, 'atom', Math.max(1, ...group.repeatWeights))
      return false
    }
    case '^':
      state.pos++
      push(state, multiLine ? '(?<=^|\\n)' : '^', 'assertion')
      return false
    case '$':
      state.pos++
      push(state, multiLine ? '(?=\\n|$)' : '$', 'assertion')
      return false
    case '.':
      state.pos++
      push(state, (state.flags & DOT_NEW_LINE) !== 0 ? '[^]' : '[^\\n]', 'atom')
      return false
    case '[':
      pushFolded(state, parseBracketClass(state, (state.flags & FOLD_CASE) !== 0))
      return false
    case '*':
    case '+':
    case '?':
      state.pos++
      repeat(state, pattern[state.pos - 1], 0, 0)
      return true
    case '{': {
      const counts = parseRepeatCounts(state)
      if (counts === undefined) {
        state.pos++
        pushLiteral(state, 0x7b)
        return false
      }
      const [min, max] = counts
      repeat(state, max === min ? `{${min}}` : max === -1 ? `{${min},}` : `{${min},${max}}`, min, max)
      return true
    }
    case '\\':
      parseBackslash(state)
      return false
    default:
      pushLiteral(state, next(state))
      return false
  }
}

function push(state: Translation, text: string, kind: AtomKind, repeatWeight = 1): void {
  const group = state.groups[state.groups.length - 1]
  group.atoms.push(text)
  group.kinds.push(kind)
  group.repeatWeights.push(repeatWeight)
}

// Case folding is per atom in RE2 (flags may change mid-pattern), so an atom whose folding
// differs from the RegExp's `i` flag gets a modifier group of its own.
function pushFolded(state: Translation, text: string): void {
  const fold = (state.flags & FOLD_CASE) !== 0
  push(state, fold === state.baseFold ? text : `(?${fold ? '' : '-'}i:${text})`, 'atom')
}

// A literal as a one-character class when it gets a `(?i:…)` group: V8 (Node 24) does not
// fold a bare literal such as ſ or K (U+212A) with its ASCII partner inside a modifier group.
function pushLiteral(state: Translation, code: number): void {
  const wrapped = ((state.flags & FOLD_CASE) !== 0) !== state.baseFold
  pushFolded(state, wrapped ? `[${literalText(code)}]` : literalText(code))
}

/**
 * Applies `*`, `+`, `?` or `{n,m}` (`min`/`max` only matter for the latter) to the last atom,
 * with RE2's rules: an atom is required, repetitions do not stack (`a**`), a trailing `?`
 * makes it lazy, `(?U)` swaps greedy and lazy, nested counts multiply to at most 1000.
 */
function repeat(state: Translation, operator: string, min: number, max: number): void {
  let lazy = false
  if (state.pattern[state.pos] === '?') {
    state.pos++
    lazy = true
  }
  if (state.lastWasRepeat) fail('invalid nested repetition operator')
  const group = state.groups[state.groups.length - 1]
  const last = group.atoms.length - 1
  if (last < 0 || group.kinds[last] === 'bar') fail('missing argument to repetition operator')
  if (operator.startsWith('{')) {
    const count = max === 0 ? 0 : max === -1 ? min : max
    const weight = count === 0 ? 1 : count * group.repeatWeights[last]
    if ((min >= 2 || max >= 2) && weight > MAX_REPEAT) fail('invalid repeat count')
    group.repeatWeights[last] = weight
  }
  const kind = group.kinds[last]
  const atom = kind === 'assertion' || kind === 'repeated' ? `(?:${group.atoms[last]})` : group.atoms[last]
  const nonGreedy = lazy !== ((state.flags & UNGREEDY) !== 0)
  group.atoms[last] = `${atom}${operator}${nonGreedy ? '?' : ''}`
  group.kinds[last] = 'repeated'
}

/** `{n}`, `{n,}`, `{n,m}` at the cursor as [min, max] (max -1: unbounded); undefined if it is a literal `{`. */
function parseRepeatCounts(state: Translation): [number, number] | undefined {
  const { pattern } = state
  let pos = state.pos + 1
  const readNumber = (): number => {
    const start = pos
    while (pos < pattern.length && pattern[pos] >= '0' && pattern[pos] <= '9') pos++
    const digits = pattern.slice(start, pos)
    if (digits.length === 0 || (digits.length > 1 && digits[0] === '0')) return -1
    return digits.length > 8 ? -2 : Number(digits)
  }
  const min = readNumber()
  if (min === -1 || pos >= pattern.length) return undefined
  let max = min
  if (pattern[pos] === ',') {
    pos++
    if (pos >= pattern.length) return undefined
    if (pattern[pos] === '}') max = -1
    else if ((max = readNumber()) === -1) return undefined
  }
  if (pattern[pos] !== '}') return undefined
  state.pos = pos + 1
  if (min < 0 || min > MAX_REPEAT || max === -2 || max > MAX_REPEAT || (max >= 0 && min > max)) fail('invalid repeat count')
  return [min, max]
}

/** `(?flags)`, `(?flags:…)`, `(?P<name>…)` or `(?<name>…)`; anything else (lookarounds, `(?#`) is refused. */
function parseGroupFlags(state: Translation): void {
  const rest = state.pattern.slice(state.pos)
  if (rest.startsWith('(?P<') || rest.startsWith('(?<')) {
    const begin = rest[2] === 'P' ? 4 : 3
    const end = rest.indexOf('>')
    const name = end < 0 ? '' : rest.slice(begin, end)
    if (!/^[A-Za-z0-9_]+$/.test(name)) fail('invalid named capture')
    if (state.groupNames.has(name)) fail('duplicate capture group name')
    state.groupNames.add(name)
    state.pos += end + 1
    state.groups.push(newGroup(state.flags))
    return
  }
  state.pos += 2
  let flags = state.flags
  let negated = false
  let sawFlag = false
  while (state.pos < state.pattern.length) {
    const char = state.pattern[state.pos++]
    if (Object.hasOwn(FLAG_BITS, char)) {
      flags |= FLAG_BITS[char]
      sawFlag = true
    } else if (char === '-' && !negated) {
      // As RE2 does: flip, set the bits named after the `-`, flip back.
      negated = true
      flags = ~flags
      sawFlag = false
    } else if ((char === ':' || char === ')') && (!negated || sawFlag)) {
      if (char === ':') state.groups.push(newGroup(state.flags))
      state.flags = (negated ? ~flags : flags) & ALL_FLAGS
      return
    } else {
      break
    }
  }
  fail('invalid or unsupported Perl syntax')
}

function parseBackslash(state: Translation): void {
  const letter = state.pattern[state.pos + 1]
  // RE2's \b is ASCII-only; JS's widens under `i`+`u`, so it is kept out of case folding.
  const unfolded = (text: string) => (state.baseFold ? `(?-i:${text})` : text)
  switch (letter) {
    case 'A':
    case 'z':
      state.pos += 2
      push(state, letter === 'A' ? '^' : '$', 'assertion')
      return
    case 'b':
    case 'B':
      state.pos += 2
      push(state, unfolded(`\\${letter}`), 'assertion')
      return
    case 'C':
      fail('invalid escape sequence')
    case 'Q': {
      state.pos += 2
      const end = state.pattern.indexOf('\\E', state.pos)
      const stop = end < 0 ? state.pattern.length : end
      while (state.pos < stop) pushLiteral(state, next(state))
      if (end >= 0) state.pos += 2
      return
    }
  }
  const unicode = parseUnicodeGroup(state)
  if (unicode !== undefined) {
    // `[^\p{…}]` rather than `\P{…}`: JS then folds before negating, as RE2 does.
    pushFolded(state, unicode.negated ? `[^${unicode.property}]` : unicode.property)
    return
  }
  const perl = parsePerlGroup(state)
  if (perl !== undefined) {
    pushFolded(state, `[${perl.negated ? '^' : ''}${rangesText(perl.ranges)}]`)
    return
  }
  pushLiteral(state, parseEscape(state))
}
