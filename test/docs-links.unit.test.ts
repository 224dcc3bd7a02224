/**
 * The documentation's relative links: every link and image in README.md and docs/*.md that points
 * into the repository names a file that exists and, after a `#`, a heading of that file, by
 * GitHub's anchor rules (text lower-cased, punctuation dropped, spaces to `-`, `-1`, `-2`… for
 * repeated headings). Links inside code are not links.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOCS = join(ROOT, 'docs')
const PAGES = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name)),
]

/** The lines of a page, those of fenced code blocks (and their fences) blanked, so line numbers stay. */
function outsideCode(markdown: string): string[] {
  let fence: string | undefined
  return markdown.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined && marker !== undefined) {
      fence = marker
      return ''
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      return ''
    }
    return line
  })
}

/** GitHub's anchor for a heading's text: as rendered, lower-cased, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '')
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

const anchorsOf = new Map<string, Set<string>>()
function anchors(file: string): Set<string> {
  let found = anchorsOf.get(file)
  if (found !== undefined) return found
  found = new Set()
  const seen = new Map<string, number>()
  for (const line of outsideCode(readFileSync(file, 'utf8'))) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)
    if (heading !== undefined && heading !== null) {
      const base = slug(heading[1]!)
      const count = seen.get(base) ?? 0
      seen.set(base, count + 1)
      found.add(count === 0 ? base : `${base}-${count}`)
    }
    for (const html of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(html[1]!)
  }
  anchorsOf.set(file, found)
  return found
}

/** Every link and image target of a page (a link's text may wrap onto the next lines), with its line. */
function links(file: string): { line: number; target: string }[] {
  const text = outsideCode(readFileSync(file, 'utf8'))
    .join('\n')
    // inline code spans (never across a blank line), their line breaks kept
    .replace(/(`+)(?:(?!\n[ \t]*\n)[\s\S])*?\1/g, (span) => span.replace(/[^\n]/g, ''))
  return [...text.matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((link) => ({
    line: text.slice(0, link.index).split('\n').length,
    target: link[1]!,
  }))
}

test('GitHub anchors, as the links expect them', () => {
  assert.equal(slug('AUTH_TYPE=none'), 'auth_typenone')
  assert.equal(slug('Streaming: `GET /api/client/streaming`'), 'streaming-get-apiclientstreaming')
  assert.equal(slug("Streams and Edge's token validation"), 'streams-and-edges-token-validation')
  assert.equal(slug('Locked out?'), 'locked-out')
  assert.equal(slug('0. Common rules'), '0-common-rules')
  assert.equal(slug('(i), (j) The playground'), 'i-j-the-playground')
})

test('every relative link in README.md and docs/*.md reaches an existing file and heading', () => {
  const broken: string[] = []
  for (const page of PAGES) {
    for (const { line, target } of links(page)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
      const [path = '', anchor] = target.split('#', 2) as [string, string | undefined]
      const file = path === '' ? page : join(dirname(page), decodeURI(path))
      const where = `${relative(ROOT, page)}:${line} → ${target}`
      if (!existsSync(file)) {
        broken.push(`${where}: no such file`)
        continue
      }
      if (anchor === undefined || anchor === '') continue
      if (statSync(file).isDirectory() || !file.endsWith('.md')) {
        broken.push(`${where}: an anchor into a file that is not Markdown`)
        continue
      }
      if (!anchors(file).has(decodeURIComponent(anchor))) broken.push(`${where}: ${relative(ROOT, file)} has no heading with this anchor`)
    }
  }
  assert.deepEqual(broken, [])
})

test('every console screenshot is shown on the console page', () => {
  const shown = new Set(links(join(DOCS, 'console.md')).map(({ target }) => target))
  const missing = readdirSync(join(DOCS, 'console')).filter((name) => name.endsWith('.png') && !shown.has(`console/${name}`))
  assert.deepEqual(missing, [])
})
