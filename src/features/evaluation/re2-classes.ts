/**
 * Escapes and character classes of RE2 syntax (as parsed by RE2JS, the engine of the Node SDK),
 * turned into JavaScript `u`-mode regex text. Used by re2-regex.ts; every function throws a
 * SyntaxError where RE2JS reports a syntax error.
 */

/** Position in a pattern being parsed. */
export interface Cursor {
  readonly pattern: string
  pos: number
}

export type Ranges = Array<[number, number]>

const MAX_CODE_POINT = 0x10ffff

export function fail(message: string): never {
  throw new SyntaxError(message)
}

/** Reads one code point and moves past it. */
export function next(cursor: Cursor): number {
  const code = cursor.pattern.codePointAt(cursor.pos)
  if (code === undefined) fail('unexpected end of pattern')
  cursor.pos += code > 0xffff ? 2 : 1
  return code
}

/** A code point as JS regex text that means that character alone, in and out of classes. */
export function literalText(code: number): string {
  const isAlphanumeric = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
  return isAlphanumeric ? String.fromCharCode(code) : `\\u{${code.toString(16)}}`
}

function isOctal(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '7'
}

function hexValue(char: string | undefined): number {
  return char !== undefined && /^[0-9a-fA-F]$/.test(char) ? Number.parseInt(char, 16) : -1
}

/**
 * A backslash escape that stands for one character (the cursor is on the backslash): octal
 * (`\0`, `\012`; a lone `\1`..`\9` would be a backreference, refused), `\xHH`, `\x{H…}`,
 * `\a \f \n \r \t \v`, or a backslash before ASCII punctuation. Anything else is an error.
 */
export function parseEscape(cursor: Cursor): number {
  cursor.pos++
  if (cursor.pos >= cursor.pattern.length) fail('trailing backslash at end of expression')
  const { pattern } = cursor
  const code = next(cursor)
  const char = String.fromCodePoint(code)
  if ((char >= '1' && char <= '7' && isOctal(pattern[cursor.pos])) || char === '0') {
    let value = code - 48
    for (let digits = 1; digits < 3 && isOctal(pattern[cursor.pos]); digits++) value = value * 8 + pattern.charCodeAt(cursor.pos++) - 48
    return value
  }
  if (char === 'x') {
    if (pattern[cursor.pos] === '{') {
      cursor.pos++
      let value = 0
      let digits = 0
      for (;;) {
        const c = pattern[cursor.pos++]
        if (c === undefined) fail('invalid escape sequence')
        if (c === '}') break
        const digit = hexValue(c)
        if (digit < 0) fail('invalid escape sequence')
        value = value * 16 + digit
        if (value > MAX_CODE_POINT) fail('invalid escape sequence')
        digits++
      }
      if (digits === 0) fail('invalid escape sequence')
      return value
    }
    const high = hexValue(pattern[cursor.pos++])
    const low = hexValue(pattern[cursor.pos++])
    if (high < 0 || low < 0) fail('invalid escape sequence')
    return high * 16 + low
  }
  const control: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 }
  if (Object.hasOwn(control, char)) return control[char]
  if (code <= 0x7f && !/[0-9A-Za-z]/.test(char)) return code
  return fail('invalid escape sequence')
}

// RE2's ASCII groups: Perl classes (note \s has no \v) and POSIX bracket names.
const PERL_GROUPS: Record<string, Ranges> = {
  d: [[0x30, 0x39]],
  s: [[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]],
  w: [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]],
}
const POSIX_GROUPS: Record<string, Ranges> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x00, 0x7f]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
  cntrl: [[0x00, 0x1f], [0x7f, 0x7f]],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x09, 0x0d], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  word: [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]],
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
}

/** `\d \D \s \S \w \W` at the cursor: the positive group's ranges and whether it is negated. */
export function parsePerlGroup(cursor: Cursor): { ranges: Ranges; negated: boolean } | undefined {
  const { pattern, pos } = cursor
  const letter = pattern[pos + 1]
  if (pattern[pos] !== '\\' || letter === undefined || !/^[dswDSW]$/.test(letter)) return undefined
  cursor.pos += 2
  const lower = letter.toLowerCase()
  return { ranges: PERL_GROUPS[lower], negated: letter !== lower }
}

/** Ranges as the inside of a JS class. */
export function rangesText(ranges: Ranges): string {
  return ranges.map(([low, high]) => (low === high ? literalText(low) : `${literalText(low)}-${literalText(high)}`)).join('')
}

/**
 * A negated ASCII group. RE2 case-folds a group before negating it, so under case-insensitive
 * matching `[^[:upper:]]`-like groups also leave out a-z, ſ (U+017F) and K (U+212A).
 */
function complementOfFolded(ranges: Ranges, foldCase: boolean): Ranges {
  const members = new Set<number>()
  for (const [low, high] of ranges) for (let code = low; code <= high; code++) members.add(code)
  if (foldCase) {
    for (const code of [...members]) {
      const char = String.fromCharCode(code)
      for (const other of [char.toLowerCase(), char.toUpperCase()]) members.add(other.charCodeAt(0))
    }
    if (members.has(0x73)) members.add(0x17f)
    if (members.has(0x6b)) members.add(0x212a)
  }
  const complement: Ranges = []
  let start = 0
  for (const code of [...members].sort((a, b) => a - b)) {
    if (code > start) complement.push([start, code - 1])
    start = code + 1
  }
  complement.push([start, MAX_CODE_POINT])
  return complement
}

// RE2JS's Unicode names that are not scripts. Scripts are checked by V8 (`Script=`); their
// 4-letter short aliases (`Latn`), which RE2JS does not know, are refused, except for the
// scripts whose real name has four letters.
const PROPERTY_NAMES = new Set(
  ('C Cc Cf Cn Co Cs L LC Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs ' +
    'ASCII_Hex_Digit Alphabetic Dash Emoji Emoji_Component Emoji_Modifier Emoji_Modifier_Base Emoji_Presentation ' +
    'Extended_Pictographic Hex_Digit Lowercase Math Quotation_Mark Terminal_Punctuation Uppercase White_Space Any Assigned').split(' '),
)
const RENAMED: Record<string, string> = { Ascii: 'ASCII', Lc: 'LC' }
const FOUR_LETTER_SCRIPTS = new Set(['Ahom', 'Cham', 'Kawi', 'Lisu', 'Modi', 'Newa', 'Thai', 'Toto'])

function propertyText(name: string): string {
  if (Object.hasOwn(RENAMED, name)) return `\\p{${RENAMED[name]}}`
  if (PROPERTY_NAMES.has(name)) return `\\p{${name}}`
  if (!/^[A-Z][A-Za-z_]*$/.test(name) || (/^[A-Z][a-z]{3}$/.test(name) && !FOUR_LETTER_SCRIPTS.has(name))) {
    fail('invalid character class range')
  }
  return `\\p{Script=${name}}`
}

/**
 * `\pL`, `\p{Greek}`, `\PL`, `\p{^Greek}` at the cursor: the JS property escape (always the
 * positive `\p{…}`) and whether it is negated; undefined when the cursor is elsewhere.
 */
export function parseUnicodeGroup(cursor: Cursor): { property: string; negated: boolean } | undefined {
  const { pattern } = cursor
  if (pattern[cursor.pos] !== '\\' || (pattern[cursor.pos + 1] !== 'p' && pattern[cursor.pos + 1] !== 'P')) return undefined
  let negated = pattern[cursor.pos + 1] === 'P'
  cursor.pos += 2
  if (cursor.pos >= pattern.length) fail('invalid character class range')
  let name: string
  if (pattern[cursor.pos] !== '{') {
    name = String.fromCodePoint(next(cursor))
  } else {
    const end = pattern.indexOf('}', cursor.pos)
    if (end < 0) fail('invalid character class range')
    name = pattern.slice(cursor.pos + 1, end)
    cursor.pos = end + 1
  }
  if (name.startsWith('^')) {
    negated = !negated
    name = name.slice(1)
  }
  return { property: propertyText(name), negated }
}

/**
 * A bracket class at the cursor (on the `[`), as JS class text. RE2 rules: `]` first is a
 * literal, `-` is literal where it cannot form a range, `[:name:]` and `[:^name:]` are POSIX
 * groups, Perl and Unicode groups may appear inside, and ranges must not run backwards.
 */
export function parseBracketClass(cursor: Cursor, foldCase: boolean): string {
  const { pattern } = cursor
  cursor.pos++
  const negated = pattern[cursor.pos] === '^'
  if (negated) cursor.pos++
  const items: string[] = []
  const addRanges = (ranges: Ranges) => items.push(rangesText(ranges))
  let first = true
  while (cursor.pos >= pattern.length || pattern[cursor.pos] !== ']' || first) {
    first = false
    if (pattern.startsWith('[:', cursor.pos)) {
      const end = pattern.indexOf(':]', cursor.pos)
      if (end >= 0) {
        const name = pattern.slice(cursor.pos + 2, end)
        const positive = name.startsWith('^') ? name.slice(1) : name
        if (!Object.hasOwn(POSIX_GROUPS, positive)) fail('invalid character class range')
        addRanges(name === positive ? POSIX_GROUPS[positive] : complementOfFolded(POSIX_GROUPS[positive], foldCase))
        cursor.pos = end + 2
        continue
      }
    }
    const unicode = parseUnicodeGroup(cursor)
    if (unicode !== undefined) {
      items.push(unicode.negated ? unicode.property.replace('\\p', '\\P') : unicode.property)
      continue
    }
    const perl = parsePerlGroup(cursor)
    if (perl !== undefined) {
      addRanges(perl.negated ? complementOfFolded(perl.ranges, foldCase) : perl.ranges)
      continue
    }
    const low = classChar(cursor)
    let high = low
    if (pattern[cursor.pos] === '-' && cursor.pos + 1 < pattern.length && pattern[cursor.pos + 1] !== ']') {
      cursor.pos++
      high = classChar(cursor)
      if (high < low) fail('invalid character class range')
    }
    addRanges([[low, high]])
  }
  cursor.pos++
  return `[${negated ? '^' : ''}${items.join('')}]`
}

function classChar(cursor: Cursor): number {
  if (cursor.pos >= cursor.pattern.length) fail('missing closing ]')
  return cursor.pattern[cursor.pos] === '\\' ? parseEscape(cursor) : next(cursor)
}
