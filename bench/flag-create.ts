/**
 * Flag creation under load: Pennon listening on 127.0.0.1 (random port) in a process of its own,
 * on a temporary SQLite file — and, with BENCH_DATABASE_URL, on a fresh PostgreSQL database created
 * beside it and dropped afterwards. autocannon posts a unique name per request to
 * `POST /api/admin/projects/default/features` over 10 connections: a 2 s warm-up, then BENCH_RUNS
 * rounds (default 3) of BENCH_SECONDS (default 5). Each round's rate and the server's CPU per
 * create (what a write's round trips cost it).
 *   node bench/flag-create.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/flag-create.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { load, RUNS, startProcess, WARMUP_SECONDS, withFreshPostgres } from './lib.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
let sequence = 0

async function run(label: string, env: Record<string, string>): Promise<void> {
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN })
  try {
    const options = {
      url: `${server.url}/api/admin/projects/default/features`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json', authorization: TOKEN },
      makeBody: () => JSON.stringify({ name: `bench-${process.pid}-${++sequence}` }),
    }
    await load({ ...options, seconds: WARMUP_SECONDS }, server.pid)
    const rounds: string[] = []
    for (let round = 0; round < RUNS; round++) {
      const result = await load({ ...options, seconds: SECONDS }, server.pid)
      if (result.non2xx + result.errors > 0) process.exitCode = 1
      const cpuMs = (result.cpuPercent / 100 / result.requestsPerSecond) * 1000
      rounds.push(
        `${result.requestsPerSecond.toFixed(0)} req/s (p99 ${result.p99.toFixed(0)} ms, server CPU ${cpuMs.toFixed(2)} ms per create, non-2xx and errors ${result.non2xx + result.errors})`,
      )
    }
    console.log(`${label}: ${rounds.join('; ')}`)
  } finally {
    await server.stop()
  }
}

console.log(
  `POST /api/admin/projects/default/features: ${RUNS} rounds of ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, 10 connections, node ${process.version}`,
)
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-flags-'))
try {
  await run('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL)
  await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'flags', (url) => run('PostgreSQL', { DATABASE_URL: url }))
