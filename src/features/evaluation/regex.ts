/**
 * REGEX constraints as the SDKs evaluate them: RE2 syntax and meaning, through re2js, the
 * package unleash-client itself compiles them with, so the same strings match. RE2 never
 * backtracks: a match costs time linear in the value, times the size of the pattern's compiled
 * program. That bound is what makes REGEX safe on values a frontend token sends; the frontend
 * API spends at most a fixed amount of that work per request (MAX_REGEX_WORK).
 */
import { RE2JS } from 're2js'

/** Largest compiled program a pattern may have (re2js's programSize()); a literal of 1,000 characters is about 1,000. */
export const MAX_PROGRAM_SIZE = 5_000

/**
 * Most REGEX work one evaluation may cost: the sum, over the distinct REGEX constraints, of the
 * length of the value matched times the pattern's program size. On this work re2js's slowest
 * patterns (Unicode classes under case folding, past its DFA) take about 30 ns per unit, so 1,000,000 is some 30 ms;
 * real values (ids, emails, versions) cost a few thousand.
 */
export const MAX_REGEX_WORK = 1_000_000

export interface CompiledRegex {
  /** Whether the pattern matches anywhere in `value` (the SDK's `matcher(value).find()`). */
  test(value: string): boolean
  programSize(): number
}

/** The compiled pattern, or undefined where re2js refuses it (the SDK then evaluates the constraint as false). */
export function compileRegex(pattern: string, caseInsensitive: boolean): CompiledRegex | undefined {
  try {
    return RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0)
  } catch {
    return undefined
  }
}

/** Why the admin API refuses a pattern — re2js's own reason, or its size — or undefined when it is accepted. */
export function regexProblem(pattern: string, caseInsensitive: boolean): string | undefined {
  let compiled: CompiledRegex
  try {
    compiled = RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0)
  } catch (error) {
    // "error parsing regexp: missing closing ): `((`" → "missing closing ): `((`"
    return (error as Error).message.replace(/^error parsing regexp: /, '')
  }
  const size = compiled.programSize()
  if (size > MAX_PROGRAM_SIZE)
    return `the pattern is too large: its compiled program has ${size} instructions, at most ${MAX_PROGRAM_SIZE} are allowed`
  return undefined
}
