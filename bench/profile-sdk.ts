/**
 * Profiles one SDK case of `npm run bench` ((f), (f′) or (g)), the playground's (i), or OpenFeature's bulk (ob) or single flag (o1,
 * bench/openfeature.ts), as bench/profile.ts profiles the
 * others: Pennon under `node --cpu-prof` on a fresh SQLite file (or the empty PostgreSQL database
 * at PROFILE_DATABASE_URL), seeded as the suite seeds it (seed.ts, then sdk-data.ts) by a server
 * that is not profiled, loaded for PROFILE_SECONDS (default 8) after a 2 s warm-up. Only the
 * samples taken during the measured load count (start-up and warm-up left out). Prints the
 * functions with the most samples of their own, and the share of each source file and package.
 * With PROFILE_RATE, the load is that many requests a second rather than as many as the server
 * takes, so that two cases compare at the same load; each function's time is also given in CPU µs
 * per request.
 *   node bench/profile-sdk.ts g          # f | f304 | g | g620 | i | ob | o1  (g620: issue 35's shape, bench/frontend-data.ts)
 *   PROFILE_RATE=1000 node bench/profile-sdk.ts ob
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes, randomInt } from 'node:crypto'
import { load, startProcess } from './lib.ts'
import { flagName, seedBenchData } from './seed.ts'
import { FLAGS, playgroundLoad, randomOpenFeatureBody, recordSdkAnswers, sdkCases, seedSdkDataWithShape } from './sdk-data.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const which = process.argv[2] ?? 'g'
const dir = mkdtempSync(join(tmpdir(), 'pennon-profile-'))
const env: Record<string, string> = process.env.PROFILE_DATABASE_URL
  ? { DATABASE_URL: process.env.PROFILE_DATABASE_URL }
  : { DATABASE_FILE: join(dir, 'pennon.sqlite') }
const serverEnv = { ...env, INIT_ADMIN_API_TOKENS: TOKEN, SEGMENTS_LIMIT: '2000000000', AUTH_FAILURES_PER_MINUTE: '0' }
const seeder = await startProcess('src/main.ts', serverEnv)
await seedBenchData(seeder.url, TOKEN, env)
const tokens = await seedSdkDataWithShape(seeder.url, TOKEN)
await seeder.stop()
const server = await startProcess('src/main.ts', { ...serverEnv, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` })
const answers = await recordSdkAnswers(server.url, tokens)
const ofrepBulk = {
  url: `${server.url}/ofrep/v1/evaluate/flags`,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json', authorization: tokens.frontend },
  makeBody: randomOpenFeatureBody,
  expectedStatus: 200,
}
// (o1): one random flag, as bench/openfeature.ts asks for it.
const ofrepOne = {
  ...ofrepBulk,
  makePath: () => `/ofrep/v1/evaluate/flags/${flagName(randomInt(FLAGS))}`,
}
const options =
  which === 'i'
    ? playgroundLoad(server.url, TOKEN)
    : which === 'ob'
      ? ofrepBulk
      : which === 'o1'
        ? ofrepOne
        : sdkCases(server.url, tokens, answers).find((c) => c.key === which)?.options
if (!options) throw new Error(`unknown case ${which}: f, f304, g, g620, i, ob or o1`)
await load({ ...options, seconds: 2 }, server.pid)
// The profile's sample times are CLOCK_MONOTONIC microseconds, as process.hrtime here.
const loadStarted = Number(process.hrtime.bigint() / 1000n)
const rate = process.env.PROFILE_RATE ? Number(process.env.PROFILE_RATE) : undefined
const result = await load({ ...options, seconds: Number(process.env.PROFILE_SECONDS ?? 8), rate }, server.pid)
const requests = result.requestsPerSecond * Number(process.env.PROFILE_SECONDS ?? 8)
await server.stop() // the profile is written at exit
console.log(
  `(${which}) ${result.requestsPerSecond.toFixed(0)} req/s, server CPU ${result.cpuPercent.toFixed(0)}%, unexpected status ${result.unexpected}; profile in ${dir}`,
)

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
  nodes: ProfileNode[]
  samples: number[]
  startTime: number
  timeDeltas: number[]
}
const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
const parents = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
const where = (url: string) => url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')
const self = new Map<string, number>()
const selfMicros = new Map<string, number>()
const inclusive = new Map<string, number>()
let busy = 0
let busyMicros = 0
let at = profile.startTime
profile.samples.forEach((id, index) => {
  at += profile.timeDeltas[index]!
  if (at < loadStarted) return
  const frame = nodes.get(id)!.callFrame
  if (frame.functionName === '(idle)') return
  busy++
  busyMicros += profile.timeDeltas[index]!
  const name = `${frame.functionName || '(anonymous)'} ${where(frame.url)}:${frame.lineNumber + 1}`
  self.set(name, (self.get(name) ?? 0) + 1)
  selfMicros.set(name, (selfMicros.get(name) ?? 0) + profile.timeDeltas[index]!)
  const seen = new Set<string>()
  for (let node: number | undefined = id; node !== undefined; node = parents.get(node)) {
    const url = nodes.get(node)!.callFrame.url
    const key = url.includes('node_modules/')
      ? where(url).split('/')[0]!
      : url.includes('/src/')
        ? where(url)
        : url.startsWith('node:')
          ? url
          : undefined
    if (key && !seen.has(key)) {
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + 1)
    }
  }
})
const top = (counts: Map<string, number>, n: number) =>
  [...counts]
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(
      ([name, count]) =>
        `${((count / busy) * 100).toFixed(1).padStart(5)}%  ${rate === undefined || counts !== self ? '' : `${((selfMicros.get(name) ?? 0) / requests).toFixed(1).padStart(6)} µs  `}${name}`,
    )
    .join('\n')
console.log(
  `\nself time (share of ${busy} busy samples during the load; native work shows under the JS function that called it):\n${top(self, 25)}`,
)
if (rate !== undefined) console.log(`\nbusy: ${(busyMicros / requests).toFixed(0)} µs of the profiled thread per request`)
console.log(`\ninclusive, by source file, package and Node module:\n${top(inclusive, 25)}`)
