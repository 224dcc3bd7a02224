/**
 * Profiles one benchmark case: Pennon under `node --cpu-prof` on a fresh SQLite file (or the
 * PostgreSQL database at PROFILE_DATABASE_URL, which must be empty), seeded as `npm run bench`
 * seeds (by a server that is not profiled), loaded for PROFILE_SECONDS (default 8) after a 2 s
 * warm-up. Prints the throughput, then the functions with the most CPU samples of their own and the share of each source file and
 * package (inclusive). The .cpuprofile stays in the printed folder (open it in Chrome DevTools).
 *   node bench/profile.ts b          # a | a-new | b | c | d | e, as in npm run bench
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { load, startProcess, type LoadOptions } from './lib.ts'
import { seedBenchData, BATCH, FLAG_WITH_100_EVENTS, batchNotAskedBefore } from './seed.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const which = process.argv[2] ?? 'b'
const dir = mkdtempSync(join(tmpdir(), 'pennon-profile-'))
const env: Record<string, string> = process.env.PROFILE_DATABASE_URL
  ? { DATABASE_URL: process.env.PROFILE_DATABASE_URL }
  : { DATABASE_FILE: join(dir, 'pennon.sqlite') }
const serverEnv = { ...env, INIT_ADMIN_API_TOKENS: TOKEN, SEGMENTS_LIMIT: '2000000000', AUTH_FAILURES_PER_MINUTE: '0' }
// Seeded by a server of its own, so the profile holds only the start-up and the load.
const seeder = await startProcess('src/main.ts', serverEnv)
await seedBenchData(seeder.url, TOKEN, env)
await seeder.stop()
const server = await startProcess('src/main.ts', { ...serverEnv, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` })
const json = { 'content-type': 'application/json', authorization: TOKEN }
let unique = 0
const cases: Record<string, Omit<LoadOptions, 'seconds'>> = {
  a: {
    url: `${server.url}/api/admin/projects/default/archive/validate`,
    method: 'POST',
    headers: json,
    body: JSON.stringify({ features: BATCH }),
  },
  'a-new': {
    url: `${server.url}/api/admin/projects/default/archive/validate`,
    method: 'POST',
    headers: json,
    makeBody: () => JSON.stringify({ features: batchNotAskedBefore(++unique) }),
  },
  b: { url: `${server.url}/api/admin/events`, headers: { authorization: TOKEN } },
  c: { url: `${server.url}/api/admin/events?project=default`, headers: { authorization: TOKEN } },
  d: { url: `${server.url}/api/admin/events/${FLAG_WITH_100_EVENTS}`, headers: { authorization: TOKEN } },
  e: {
    url: `${server.url}/api/admin/segments`,
    method: 'POST',
    headers: json,
    makeBody: () =>
      JSON.stringify({
        name: `profile-${process.pid}-${++unique}`,
        constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b', 'c'] }],
      }),
  },
}
const options = cases[which]
if (!options) throw new Error(`unknown case ${which}: a, a-new, b, c, d or e`)
await load({ ...options, seconds: 2 }, server.pid)
const result = await load({ ...options, seconds: Number(process.env.PROFILE_SECONDS ?? 8) }, server.pid)
await server.stop() // the profile is written at exit
console.log(
  `(${which}) ${result.requestsPerSecond.toFixed(0)} req/s, server CPU ${result.cpuPercent.toFixed(0)}%, non-2xx ${result.non2xx}; profile in ${dir}`,
)

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[]; samples: number[] }
const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
const parents = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
const where = (url: string) => url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')
const self = new Map<string, number>()
const inclusive = new Map<string, number>()
let busy = 0
for (const id of profile.samples) {
  const frame = nodes.get(id)!.callFrame
  if (frame.functionName === '(idle)') continue
  busy++
  const name = `${frame.functionName || '(anonymous)'} ${where(frame.url)}:${frame.lineNumber + 1}`
  self.set(name, (self.get(name) ?? 0) + 1)
  const seen = new Set<string>()
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const url = nodes.get(at)!.callFrame.url
    const key = url.includes('node_modules/') ? where(url).split('/')[0]! : url.includes('/src/') ? where(url) : undefined
    if (key && !seen.has(key)) {
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + 1)
    }
  }
}
const top = (counts: Map<string, number>, n: number) =>
  [...counts]
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(([name, count]) => `${((count / busy) * 100).toFixed(1).padStart(5)}%  ${name}`)
    .join('\n')
console.log(`\nself time (share of ${busy} busy samples; native work shows under the JS function that called it):\n${top(self, 25)}`)
console.log(`\ninclusive, by source file and package:\n${top(inclusive, 20)}`)
