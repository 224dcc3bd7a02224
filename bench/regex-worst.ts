/**
 * The worst REGEX evaluation a frontend token can ask for. First, in this process, each of the
 * patterns that make backtracking engines explode (and those that defeat re2js's DFA) matched
 * once against values of 10,000 characters (the longest the frontend API takes) and 100 KB:
 * time, program size, and nanoseconds per unit of work (value length × program size, the unit
 * MAX_REGEX_WORK counts). Then a real Pennon server with the slowest of them as a constraint,
 * asked by a frontend token with the longest value the work limit lets through, and once more
 * past it (a 400): the server's CPU per request and the slowest answer.
 *   node bench/regex-worst.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { compileRegex, MAX_REGEX_WORK } from '../src/features/evaluation/regex.ts'
import { cpuSeconds, median, printMarkdownTable, startProcess, warmCompileCache } from './lib.ts'

const a = (n: number) => 'a'.repeat(n)
// a and b at random (a fixed sequence): the DFA of `(a|b)*a(a|b){500}` then meets ever new states.
let seed = 1
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16
const ab = (n: number) => Array.from({ length: n }, () => (random() & 1 ? 'a' : 'b')).join('')
const ACCENTED = 'éèêëàâäôöüûçñÉÈÀ'
const letters = (n: number) => Array.from({ length: n }, () => ACCENTED[random() % ACCENTED.length]).join('')
// [pattern, value of n characters]: each value is the one that makes its pattern work hardest.
const CASES: Array<[string, (n: number) => string]> = [
  ['(a+)+$', (n) => `${a(n - 1)}!`],
  ['(a|aa)+$', (n) => `${a(n - 1)}!`],
  ['(.*a){20}', (n) => `${a(n - 1)}!`],
  ['^(.*a){20}$', (n) => `${a(n - 1)}!`],
  ['(x+x+)+y', (n) => 'x'.repeat(n)],
  ['(?i)(\\w+\\s?)+$', (n) => `${'word '.repeat(n / 5 - 1)}word!`],
  ['[a-z]{1,1000}!', (n) => `${a(n - 1)}!`],
  ['(?s).{0,1000}\\z', ab],
  ['(?i)\\p{L}{1,1000}\\d', letters],
  ['(a|b)*a(a|b){500}$', (n) => `${ab(n - 1)}c`],
  ['(?i)[ab]*a[ab]{1000}c', (n) => `${ab(n - 1)}c`],
]

function timeMatch(pattern: string, value: string): { ms: number; size: number } {
  const regex = compileRegex(pattern, false)
  if (regex === undefined) throw new Error(`${pattern} does not compile`)
  regex.test(value.slice(0, 100)) // compiled and warm
  const started = process.hrtime.bigint()
  regex.test(value)
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, size: regex.programSize() }
}

const rows: string[][] = []
let worst = { pattern: '', nsPerUnit: 0 }
for (const [pattern, valueFor] of CASES) {
  const short = timeMatch(pattern, valueFor(10_000))
  const long = timeMatch(pattern, valueFor(100_000))
  const nsPerUnit = (long.ms * 1e6) / (100_000 * long.size)
  if (nsPerUnit > worst.nsPerUnit) worst = { pattern, nsPerUnit }
  rows.push([`\`${pattern}\``, String(long.size), short.ms.toFixed(1), long.ms.toFixed(1), nsPerUnit.toFixed(1)])
}
console.log(`REGEX, one match each (re2js test(), as evaluation runs it); node ${process.version}`)
printMarkdownTable(['pattern', 'program size', 'ms on 10,000 chars', 'ms on 100 KB', 'ns per unit of work'], rows)
console.log(
  `worst: \`${worst.pattern}\`, ${worst.nsPerUnit.toFixed(1)} ns per unit: MAX_REGEX_WORK (${MAX_REGEX_WORK}) ≈ ${((worst.nsPerUnit * MAX_REGEX_WORK) / 1e6).toFixed(0)} ms\n`,
)

// The same worst pattern as a constraint of a real server, asked through the frontend API with a
// new value each time (so what re2js's DFA learnt from one request does not help the next).
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const dir = mkdtempSync(join(tmpdir(), 'pennon-regex-worst-'))
try {
  await warmCompileCache()
  const server = await startProcess('src/main.ts', { DATABASE_FILE: join(dir, 'pennon.sqlite'), INIT_ADMIN_API_TOKENS: TOKEN })
  try {
    const admin = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}/api/admin${path}`, {
        method,
        headers: { authorization: TOKEN, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await response.text()
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
      return text === '' ? undefined : JSON.parse(text)
    }
    await admin('POST', '/projects/default/features', { name: 'worst-regex' })
    const place = '/projects/default/features/worst-regex/environments/development'
    await admin('POST', `${place}/strategies`, {
      name: 'default',
      constraints: [{ contextName: 'email', operator: 'REGEX', value: worst.pattern }],
    })
    await admin('POST', `${place}/on`)
    const { secret } = (await admin('POST', '/api-tokens', { tokenName: 'web', type: 'frontend', environment: 'development' })) as {
      secret: string
    }
    const size = compileRegex(worst.pattern, false)!.programSize()
    const valueFor = CASES.find(([pattern]) => pattern === worst.pattern)![1]

    const ask = async (length: number) => {
      const started = performance.now()
      const response = await fetch(`${server.url}/api/frontend`, {
        method: 'POST',
        headers: { authorization: secret, 'content-type': 'application/json' },
        body: JSON.stringify({ context: { properties: { email: valueFor(length) } } }),
      })
      await response.arrayBuffer()
      return { status: response.status, ms: performance.now() - started }
    }
    const serverRows: string[][] = []
    for (const length of [Math.floor(MAX_REGEX_WORK / size), 10_000]) {
      await ask(length)
      const times: number[] = []
      const cpuBefore = cpuSeconds(server.pid)
      let status = 0
      for (let i = 0; i < 50; i++) {
        const answer = await ask(length)
        times.push(answer.ms)
        status = answer.status
      }
      const cpuMs = ((cpuSeconds(server.pid) - cpuBefore) * 1000) / 50
      serverRows.push([
        String(length),
        String(length * size),
        String(status),
        cpuMs.toFixed(1),
        median(times).toFixed(1),
        Math.max(...times).toFixed(1),
      ])
    }
    console.log(
      `POST /api/frontend with a frontend token, REGEX \`${worst.pattern}\` (program size ${size}) on the value; 50 requests each`,
    )
    printMarkdownTable(['value length', 'REGEX work', 'status', 'server CPU ms per request', 'median ms', 'slowest ms'], serverRows)
  } finally {
    await server.stop()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
