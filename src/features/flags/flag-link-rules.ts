/**
 * What a flag's link may say (body-rules.ts): a web address, http or https (one without a scheme
 * is taken as https, as the reference does), at most MAX_URL_LENGTH characters, without white space
 * or control characters; a title of at most MAX_TITLE_LENGTH. The address is kept as sent (trimmed,
 * the scheme added where missing), so an export brings back exactly what was stored.
 */
import { field, allOf, type BodyRules } from '../../http/body-rules.ts'
import { quote, validationFailed, type ErrorDetail } from '../../http/errors.ts'
import type { LinkText } from './flag-link-store.ts'

export const MAX_URL_LENGTH = 2048
export const MAX_TITLE_LENGTH = 1000
/** As the reference: a flag has at most 10 links. */
export const MAX_LINKS_PER_FLAG = 10

// A scheme (`mailto:`, `javascript:`), unlike a host and port (`localhost:3000`).
const SCHEME = /^[a-z][a-z0-9+.-]*:(?!\d)/i
// White space (a space, a line break, no-break spaces…) and control characters never belong in an address.
const UNFIT = /[\s\p{Cc}]/u

/** The address as stored: trimmed, `https://` before one without a scheme. */
const withScheme = (url: string): string => {
  const trimmed = url.trim()
  return SCHEME.test(trimmed) ? trimmed : `https://${trimmed}`
}

export function urlProblems(value: string, path: string): ErrorDetail[] {
  const fail = (rule: string): ErrorDetail[] => [{ path, message: `The \`${path}\` property must be ${rule}. You sent ${quote(value)}.` }]
  const url = withScheme(value)
  if (value.trim().length === 0) return fail('a web address (http or https), not empty')
  if (url.length > MAX_URL_LENGTH) return fail(`at most ${MAX_URL_LENGTH} characters long`)
  if (UNFIT.test(url)) return fail('a web address without white space or control characters')
  if (!/^https?:\/\//i.test(url)) return fail('an http or https address')
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return fail('a web address (http or https)')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return fail('an http or https address')
  if (parsed.hostname === '') return fail('a web address with a host')
  return []
}

export function titleProblems(value: string | null, path: string): ErrorDetail[] {
  if (value === null || value.length <= MAX_TITLE_LENGTH) return []
  return [{ path, message: `The \`${path}\` property must be at most ${MAX_TITLE_LENGTH} characters long. You sent ${quote(value)}.` }]
}

export const linkRules: BodyRules = allOf(field('url', urlProblems), field('title', titleProblems))

/** A link body checked (400 at `base`/url, `base`/title) and as stored; an empty title is none, as the reference imports it. */
export function storedLink(body: { url: string; title?: string | null | undefined }, base = '/body'): LinkText {
  const problems = [...urlProblems(body.url, `${base}/url`), ...titleProblems(body.title ?? null, `${base}/title`)]
  if (problems.length > 0) throw validationFailed(problems)
  return { url: withScheme(body.url), title: body.title ? body.title : null }
}
