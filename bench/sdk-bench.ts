/**
 * The SDK cases of `npm run bench` by themselves ((f), (f′): bench/client-features.ts; (g):
 * bench/frontend.ts), with the same data, load and ceilings: Pennon as `npm start` runs it on
 * SQLite (and on a fresh PostgreSQL database when BENCH_DATABASE_URL is set), seeded as the suite
 * seeds it (seed.ts, then sdk-data.ts), 10 connections, 2 s warm-up discarded, median of
 * BENCH_RUNS runs (default 3) of BENCH_SECONDS (default 10).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { load, median, peakRssMb, startProcess, warmCompileCache, type LoadOptions, type LoadResult, type Server, withFreshPostgres, printMarkdownTable } from './lib.ts'
import { seedBenchData } from './seed.ts'
import { recordSdkAnswers, sdkCases, sdkCeilings, seedSdkData, SDK_ALSO_COMPARED, SDK_CEILING_OF, type SdkAnswers } from './sdk-data.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = 2
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

interface Row extends LoadResult {
  label: string
  key: string
  peakRss: number
}

async function measure(label: string, key: string, options: Omit<LoadOptions, 'seconds'>, server: Server): Promise<Row> {
  await load({ ...options, seconds: WARMUP }, server.pid)
  const runs: LoadResult[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await load({ ...options, seconds: SECONDS }, server.pid))
  const pick = (f: (r: LoadResult) => number) => median(runs.map(f))
  const sum = (f: (r: LoadResult) => number) => runs.reduce((total, r) => total + f(r), 0)
  return {
    label,
    key,
    requestsPerSecond: pick((r) => r.requestsPerSecond),
    p50: pick((r) => r.p50),
    p99: pick((r) => r.p99),
    cpuPercent: pick((r) => r.cpuPercent),
    bytesPerSecond: pick((r) => r.bytesPerSecond),
    non2xx: sum((r) => r.non2xx),
    unexpected: sum((r) => r.unexpected),
    errors: sum((r) => r.errors),
    peakRss: peakRssMb(server.pid),
  }
}

async function benchPennon(keys: readonly string[], databaseName: string, env: Record<string, string>): Promise<{ rows: Row[]; answers: SdkAnswers }> {
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN, SEGMENTS_LIMIT: '2000000000', AUTH_FAILURES_PER_MINUTE: '0' })
  try {
    await seedBenchData(server.url, TOKEN, env)
    const tokens = await seedSdkData(server.url, TOKEN)
    const answers = await recordSdkAnswers(server.url, tokens)
    const rows: Row[] = []
    for (const { key, label, options } of sdkCases(server.url, tokens, answers)) {
      if (keys.includes(key)) rows.push(await measure(`${label} [${databaseName}]`, key, options, server))
    }
    return { rows, answers }
  } finally {
    await server.stop()
  }
}

async function benchCeilings(keys: readonly string[], answers: SdkAnswers): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-ceiling-'))
  const rows: Row[] = []
  try {
    const wanted = new Set(keys.flatMap((key) => [SDK_CEILING_OF[key], ...(SDK_ALSO_COMPARED[key] ?? [])]))
    for (const { key, mode, label, answer, expectedStatus } of sdkCeilings(answers)) {
      if (!wanted.has(key)) continue
      const file = join(dir, `${key}.json`)
      writeFileSync(file, JSON.stringify(answer))
      const server = await startProcess('bench/ceiling-server.ts', {}, [mode, file])
      try {
        rows.push(await measure(label, key, { url: server.url, expectedStatus }, server))
      } finally {
        await server.stop()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}

function printTable(rows: Row[], ceilings: Row[]): void {
  const header = ['case', 'req/s', 'p50 ms', 'p99 ms', 'CPU %', 'peak RSS MB', 'MB/s', 'unexpected status', 'of ceiling']
  const lines = [...rows, ...ceilings].map((r) => {
    const compared = [SDK_CEILING_OF[r.key], ...(SDK_ALSO_COMPARED[r.key] ?? [])].map((key) => ceilings.find((c) => c.key === key)).filter((c) => c !== undefined)
    return [
      r.label,
      r.requestsPerSecond.toFixed(0),
      r.p50.toFixed(1),
      r.p99.toFixed(1),
      r.cpuPercent.toFixed(0),
      r.peakRss.toFixed(0),
      (r.bytesPerSecond / 1e6).toFixed(0),
      String(r.unexpected + r.errors),
      compared.map((ceiling) => `${((r.requestsPerSecond / ceiling.requestsPerSecond) * 100).toFixed(0)}% of ${ceiling.key}`).join(', '),
    ]
  })
  printMarkdownTable(header, lines)
}

/** Runs the cases named (f, f304, g) on each database, then their ceilings, and prints one table. */
export async function runSdkBench(keys: readonly string[]): Promise<void> {
  console.log(`Pennon SDK benchmark (${keys.join(', ')}): ${RUNS} run(s) of ${SECONDS} s per case after ${WARMUP} s warm-up, 10 connections, node ${process.version}`)
  await warmCompileCache()
  const rows: Row[] = []
  const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-sdk-'))
  let answers: SdkAnswers
  try {
    const sqlite = await benchPennon(keys, 'SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
    rows.push(...sqlite.rows)
    answers = sqlite.answers
    if (process.env.BENCH_DATABASE_URL) {
      const postgres = await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'sdk', (url) => benchPennon(keys, 'PostgreSQL', { DATABASE_URL: url }))
      rows.push(...postgres.rows)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  printTable(rows, await benchCeilings(keys, answers))
  if (rows.some((row) => row.unexpected + row.errors > 0)) process.exitCode = 1
}
