/**
 * The playground on the SDK cases' data (seed.ts, then sdk-data.ts in `development` and
 * `production`: 1,000 flags × 3 strategies in each):
 *   (i) POST /api/admin/playground, every flag of `development` for one random context per
 *       request, under autocannon load (10 connections, 2 s warm-up, BENCH_RUNS × BENCH_SECONDS);
 *   (j) POST /api/admin/playground/advanced, 1,000 flags × 100 contexts (100 userIds) × 2
 *       environments: 200,000 evaluations per request, asked one at a time (a warm-up, then
 *       BENCH_RUNS requests): time, server CPU, answer size and peak RSS.
 * (j) is past the reference's 15,000 evaluations, so the server runs with PLAYGROUND_MAX_EVALUATIONS
 * and PLAYGROUND_MAX_ANSWER_MB raised, as an operator who wants such answers would.
 *   node bench/playground.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/playground.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import {
  cpuSeconds,
  measure,
  median,
  peakRssMb,
  printMarkdownTable,
  ROW_HEADER,
  rowCells,
  RUNS,
  SECONDS,
  startProcess,
  warmCompileCache,
  WARMUP_SECONDS,
  withFreshPostgres,
  type Row,
  type Server,
} from './lib.ts'
import { seedBenchData } from './seed.ts'
import { FLAGS, playgroundLoad, seedSdkData } from './sdk-data.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const ENVIRONMENTS = ['development', 'production']
const CONTEXTS = 100
const json = { 'content-type': 'application/json', authorization: TOKEN }

interface AdvancedFigures {
  label: string
  seconds: number
  cpuSeconds: number
  megabytes: number
  evaluations: number
  peakRss: number
}

/** (j): one request at a time, so each figure is one answer's. */
async function measureAdvanced(server: Server, databaseName: string): Promise<AdvancedFigures> {
  const userIds = Array.from({ length: CONTEXTS }, (_, k) => `user-${k * 37}`).join(',')
  const body = JSON.stringify({
    environments: ENVIRONMENTS,
    projects: ['default'],
    context: { appName: 'web', userId: userIds, properties: { region: 'eu-west', plan: 'pro' } },
  })
  const ask = async () => {
    const cpu = cpuSeconds(server.pid)
    const started = process.hrtime.bigint()
    const response = await fetch(`${server.url}/api/admin/playground/advanced`, { method: 'POST', headers: json, body })
    const answer = await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`advanced playground: ${response.status} ${Buffer.from(answer).toString().slice(0, 300)}`)
    const parsed = JSON.parse(Buffer.from(answer).toString()) as { features: Array<{ environments: Record<string, unknown[]> }> }
    const evaluations = parsed.features.reduce(
      (sum, feature) => sum + Object.values(feature.environments).reduce((n, list) => n + list.length, 0),
      0,
    )
    return {
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
      cpuSeconds: cpuSeconds(server.pid) - cpu,
      megabytes: answer.byteLength / 1e6,
      evaluations,
    }
  }
  await ask()
  const runs: Array<Awaited<ReturnType<typeof ask>>> = []
  for (let k = 0; k < RUNS; k++) runs.push(await ask())
  const pick = (f: (r: (typeof runs)[number]) => number) => median(runs.map(f))
  return {
    label: `(j) POST /playground/advanced, ${FLAGS} flags × ${CONTEXTS} contexts × ${ENVIRONMENTS.length} environments [${databaseName}]`,
    seconds: pick((r) => r.seconds),
    cpuSeconds: pick((r) => r.cpuSeconds),
    megabytes: pick((r) => r.megabytes),
    evaluations: runs[0]!.evaluations,
    peakRss: peakRssMb(server.pid),
  }
}

async function benchPennon(databaseName: string, env: Record<string, string>): Promise<{ row: Row; advanced: AdvancedFigures }> {
  const server = await startProcess('src/main.ts', {
    ...env,
    INIT_ADMIN_API_TOKENS: TOKEN,
    SEGMENTS_LIMIT: '2000000000',
    AUTH_FAILURES_PER_MINUTE: '0',
    PLAYGROUND_MAX_EVALUATIONS: String(FLAGS * CONTEXTS * ENVIRONMENTS.length),
    PLAYGROUND_MAX_ANSWER_MB: '1024',
  })
  try {
    await seedBenchData(server.url, TOKEN, env)
    await seedSdkData(server.url, TOKEN, ENVIRONMENTS)
    const row = await measure(
      `(i) POST /playground, ${FLAGS} flags, random context [${databaseName}]`,
      'i',
      playgroundLoad(server.url, TOKEN),
      server,
    )
    return { row, advanced: await measureAdvanced(server, databaseName) }
  } finally {
    await server.stop()
  }
}

console.log(
  `Pennon playground benchmark: (i) ${WARMUP_SECONDS} s warm-up, ${RUNS} run(s) of ${SECONDS} s, 10 connections; (j) ${RUNS} request(s) after one; node ${process.version}`,
)
await warmCompileCache()
const results: Array<{ row: Row; advanced: AdvancedFigures }> = []
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-playground-'))
try {
  results.push(await benchPennon('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') }))
  if (process.env.BENCH_DATABASE_URL) {
    results.push(
      await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'playground', (url) => benchPennon('PostgreSQL', { DATABASE_URL: url })),
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
printMarkdownTable(
  [...ROW_HEADER, 'MB/s', 'unexpected status'],
  results.map(({ row }) => [...rowCells(row), (row.bytesPerSecond / 1e6).toFixed(1), String(row.unexpected + row.errors)]),
)
console.log()
printMarkdownTable(
  ['case', 'evaluations', 's per answer', 'server CPU s', 'µs CPU per evaluation', 'answer MB', 'peak RSS MB'],
  results.map(({ advanced: a }) => [
    a.label,
    String(a.evaluations),
    a.seconds.toFixed(2),
    a.cpuSeconds.toFixed(2),
    ((a.cpuSeconds / a.evaluations) * 1e6).toFixed(1),
    a.megabytes.toFixed(0),
    a.peakRss.toFixed(0),
  ]),
)
if (results.some(({ row, advanced }) => row.unexpected + row.errors > 0 || advanced.evaluations !== FLAGS * CONTEXTS * ENVIRONMENTS.length))
  process.exitCode = 1
