/**
 * Semantic versions as the Node SDK reads them for SEMVER_* constraints: it uses the `semver`
 * package in strict (non-loose) mode, so this follows that package's parser and ordering.
 */

/** A parsed version. Build metadata is dropped: it never takes part in ordering. */
export interface SemVer {
  major: number
  minor: number
  patch: number
  /** Dot-separated pre-release identifiers, as written. Empty for a release. */
  prerelease: string[]
}

// The `semver` package's FULL pattern: optional `v`, no leading zeros in numeric identifiers.
const NUMERIC = '0|[1-9]\\d*'
const PRERELEASE_ID = `(?:\\d*[a-zA-Z-][a-zA-Z0-9-]*|${NUMERIC})`
const FULL = new RegExp(
  `^v?(${NUMERIC})\\.(${NUMERIC})\\.(${NUMERIC})` +
    `(?:-(${PRERELEASE_ID}(?:\\.${PRERELEASE_ID})*))?` +
    '(?:\\+[a-zA-Z0-9-]+(?:\\.[a-zA-Z0-9-]+)*)?$',
)
const MAX_LENGTH = 256
const DIGITS = /^[0-9]+$/

/**
 * Parses like `new SemVer(text)` of the `semver` package: at most 256 characters, surrounding
 * whitespace trimmed, an optional leading `v`, numbers no larger than MAX_SAFE_INTEGER.
 * Undefined where that constructor would throw.
 */
export function parseSemver(text: string): SemVer | undefined {
  if (text.length > MAX_LENGTH) return undefined
  const match = FULL.exec(text.trim())
  if (match === null) return undefined
  const major = Number(match[1])
  const minor = Number(match[2])
  const patch = Number(match[3])
  if (major > Number.MAX_SAFE_INTEGER || minor > Number.MAX_SAFE_INTEGER || patch > Number.MAX_SAFE_INTEGER) {
    return undefined
  }
  return { major, minor, patch, prerelease: match[4] === undefined ? [] : match[4].split('.') }
}

/**
 * Orders two versions as `semver.compare`: main version numerically, then a release above any
 * pre-release, then pre-release identifiers left to right (numeric ones numerically and below
 * alphanumeric ones, which compare as strings; fewer identifiers sort first).
 */
export function compareSemver(a: SemVer, b: SemVer): number {
  if (a.major !== b.major) return a.major < b.major ? -1 : 1
  if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1
  if (a.patch !== b.patch) return a.patch < b.patch ? -1 : 1
  const left = a.prerelease
  const right = b.prerelease
  if (left.length === 0 && right.length === 0) return 0
  if (left.length === 0) return 1
  if (right.length === 0) return -1
  for (let i = 0; ; i++) {
    const x = left[i]
    const y = right[i]
    if (x === undefined && y === undefined) return 0
    if (y === undefined) return 1
    if (x === undefined) return -1
    if (x !== y) return compareIdentifiers(x, y)
  }
}

// As the package does: two numeric identifiers compare as numbers (and may come out equal when
// both exceed 2^53, which then ends the comparison), a numeric one sorts before any other.
function compareIdentifiers(x: string, y: string): number {
  const xNumeric = DIGITS.test(x)
  const yNumeric = DIGITS.test(y)
  if (xNumeric && yNumeric) {
    const a = Number(x)
    const b = Number(y)
    return a === b ? 0 : a < b ? -1 : 1
  }
  if (xNumeric) return -1
  if (yNumeric) return 1
  return x < y ? -1 : 1
}
