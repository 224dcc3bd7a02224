/**
 * The SDK cases (f), (f′) and (g), each measured beside its ceilings: `npm run bench` runs them
 * after its other cases, and bench/client-features.ts and bench/frontend.ts by themselves — on
 * the same data, with the same load: Pennon as `npm start` runs it on SQLite (and on a fresh
 * PostgreSQL database when BENCH_DATABASE_URL is set), seeded as the suite seeds it (seed.ts,
 * then sdk-data.ts), 10 connections.
 *
 * A case and its ceilings (bare node:http, and for (f′) a bare Fastify app, replaying the
 * answers this Pennon gave, to the very requests the case sends) take turns: after a 2 s warm-up
 * of each, BENCH_RUNS rounds (default 3) of BENCH_SECONDS each (default 10), the case then each
 * ceiling. The host's speed moves by tens of percent from one minute to the next on a shared
 * machine; taking turns, the case and its ceilings meet the same speeds, and each share is the
 * median of the rounds' shares.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import {
  load,
  median,
  printMarkdownTable,
  ROW_HEADER,
  rowCells,
  RUNS,
  SECONDS,
  startProcess,
  summarize,
  warmCompileCache,
  WARMUP_SECONDS,
  withFreshPostgres,
  type LoadResult,
  type Row,
  type Server,
} from './lib.ts'
import { seedBenchData } from './seed.ts'
import {
  recordSdkAnswers,
  sdkCases,
  sdkCeilings,
  seedSdkDataWithShape,
  SDK_ALSO_COMPARED,
  SDK_CEILING_OF,
  type SdkTokens,
} from './sdk-data.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

/**
 * Measures the cases named (f, f304, g) against a seeded Pennon (`tokens`: sdk-data.ts's), each
 * in rounds with its ceilings. Returns each case's row (with its shares), then its ceilings' rows.
 */
export async function measureSdkCases(server: Server, tokens: SdkTokens, keys: readonly string[], databaseName: string): Promise<Row[]> {
  const answers = await recordSdkAnswers(server.url, tokens)
  const ceilings = sdkCeilings(answers)
  const dir = mkdtempSync(join(tmpdir(), 'pennon-ceiling-'))
  const rows: Row[] = []
  try {
    for (const { key, label, options } of sdkCases(server.url, tokens, answers)) {
      if (!keys.includes(key)) continue
      const beside = [SDK_CEILING_OF[key]!, ...(SDK_ALSO_COMPARED[key] ?? [])].map(
        (ceilingKey) => ceilings.find((c) => c.key === ceilingKey)!,
      )
      const started: Server[] = []
      try {
        for (const ceiling of beside) {
          const file = join(dir, `${ceiling.key}.json`)
          writeFileSync(file, JSON.stringify(ceiling.answer))
          started.push(await startProcess('bench/ceiling-server.ts', {}, [ceiling.mode, file]))
        }
        // The same requests, path and query included, sent to each ceiling.
        const toCeiling = (ceilingServer: Server) => ({ ...options, url: options.url.replace(server.url, ceilingServer.url) })
        await load({ ...options, seconds: WARMUP_SECONDS }, server.pid)
        for (const ceilingServer of started) await load({ ...toCeiling(ceilingServer), seconds: WARMUP_SECONDS }, ceilingServer.pid)
        const runs: LoadResult[] = []
        const ceilingRuns: LoadResult[][] = beside.map(() => [])
        for (let round = 0; round < RUNS; round++) {
          runs.push(await load({ ...options, seconds: SECONDS }, server.pid))
          for (const [i, ceilingServer] of started.entries())
            ceilingRuns[i]!.push(await load({ ...toCeiling(ceilingServer), seconds: SECONDS }, ceilingServer.pid))
        }
        const row = summarize(`${label} [${databaseName}]`, key, runs, server.pid)
        row.shares = beside.map((ceiling, i) => ({
          key: ceiling.key,
          share: median(runs.map((run, round) => run.requestsPerSecond / ceilingRuns[i]![round]!.requestsPerSecond)),
        }))
        rows.push(
          row,
          ...beside.map((ceiling, i) =>
            summarize(`${ceiling.label}, in turn with ${key} [${databaseName}]`, ceiling.key, ceilingRuns[i]!, started[i]!.pid),
          ),
        )
      } finally {
        for (const ceilingServer of started) await ceilingServer.stop()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}

/** "52% of replay-f304, 61% of fastify-f304" */
export function sharesText(row: Row): string {
  return (row.shares ?? []).map(({ key, share }) => `${(share * 100).toFixed(0)}% of ${key}`).join(', ')
}

async function benchPennon(keys: readonly string[], databaseName: string, env: Record<string, string>): Promise<Row[]> {
  const server = await startProcess('src/main.ts', {
    ...env,
    INIT_ADMIN_API_TOKENS: TOKEN,
    SEGMENTS_LIMIT: '2000000000',
    AUTH_FAILURES_PER_MINUTE: '0',
  })
  try {
    await seedBenchData(server.url, TOKEN, env)
    return await measureSdkCases(server, await seedSdkDataWithShape(server.url, TOKEN), keys, databaseName)
  } finally {
    await server.stop()
  }
}

function printTable(rows: Row[]): void {
  const header = [...ROW_HEADER, 'MB/s', 'unexpected status', 'of ceiling (median of the rounds)']
  printMarkdownTable(
    header,
    rows.map((r) => [...rowCells(r), (r.bytesPerSecond / 1e6).toFixed(0), String(r.unexpected + r.errors), sharesText(r)]),
  )
}

/** Runs the cases named (f, f304, g) on each database, with their ceilings, and prints one table. */
export async function runSdkBench(keys: readonly string[]): Promise<void> {
  console.log(
    `Pennon SDK benchmark (${keys.join(', ')}): ${WARMUP_SECONDS} s warm-up, then ${RUNS} round(s) of ${SECONDS} s per case and per ceiling in turn, 10 connections, node ${process.version}`,
  )
  await warmCompileCache()
  const rows: Row[] = []
  const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-sdk-'))
  try {
    rows.push(...(await benchPennon(keys, 'SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })))
    if (process.env.BENCH_DATABASE_URL) {
      rows.push(
        ...(await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'sdk', (url) =>
          benchPennon(keys, 'PostgreSQL', { DATABASE_URL: url }),
        )),
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  printTable(rows)
  if (rows.some((row) => row.unexpected + row.errors > 0)) process.exitCode = 1
}
