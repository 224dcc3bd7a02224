/**
 * Segment creation under load: Pennon listening on 127.0.0.1 (random port) in a process
 * of its own, on a temporary SQLite file — or on a fresh PostgreSQL database created
 * beside BENCH_DATABASE_URL and dropped afterwards — with a segment limit high enough
 * never to be reached. autocannon posts a unique name per request (one IN constraint,
 * three values) over 10 connections for BENCH_SECONDS (default 10) after a 2 s warm-up.
 *   node bench/segment-create.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/segment-create.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { load, startProcess, withFreshPostgres } from './lib.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = 2
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const headers = { 'content-type': 'application/json', authorization: TOKEN }

let sequence = 0
const body = () =>
  JSON.stringify({
    name: `bench-${process.pid}-${++sequence}`,
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b', 'c'] }],
  })

async function run(label: string, env: Record<string, string>): Promise<void> {
  const server = await startProcess('src/main.ts', {
    ...env,
    INIT_ADMIN_API_TOKENS: TOKEN,
    SEGMENTS_LIMIT: '2000000000',
    LOG_LEVEL: 'info',
  })
  try {
    const url = `${server.url}/api/admin/segments`
    await load({ url, method: 'POST', headers, makeBody: body, seconds: WARMUP }, server.pid)
    const result = await load({ url, method: 'POST', headers, makeBody: body, seconds: SECONDS }, server.pid)
    const list = (await (await fetch(url, { headers: { authorization: TOKEN } })).json()) as { segments: unknown[] }
    console.log(
      `${label}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ` +
        `non-2xx ${result.non2xx}, errors ${result.errors}, server CPU ${result.cpuPercent.toFixed(0)}% ` +
        `(${list.segments.length} segments stored)`,
    )
    if (result.non2xx + result.errors > 0) process.exitCode = 1
  } finally {
    await server.stop()
  }
}

console.log(`POST /api/admin/segments: ${SECONDS} s after ${WARMUP} s warm-up, 10 connections, node ${process.version}`)
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-segments-'))
try {
  await run('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL)
  await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'segments', (url) => run('PostgreSQL', { DATABASE_URL: url }))
