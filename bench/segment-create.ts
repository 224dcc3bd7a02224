/**
 * Segment creation under load: Pennon listening on 127.0.0.1 (random port) in a process
 * of its own, on a temporary SQLite file — or on a fresh PostgreSQL database created
 * beside BENCH_DATABASE_URL and dropped afterwards — with a segment limit high enough
 * never to be reached. autocannon posts a unique name per request (one IN constraint,
 * three values) over 10 connections for BENCH_SECONDS (default 10) after a 2 s warm-up. On
 * PostgreSQL also two instances on one database, 5 connections each at once, as a deployment of
 * two behind a load balancer writes (each instance batches its own creates; the two share the
 * database's log flushes and the segment count's reservation).
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

/** Two instances on one database, loaded at once. */
async function runTwoInstances(label: string, env: Record<string, string>): Promise<void> {
  const serverEnv = { ...env, INIT_ADMIN_API_TOKENS: TOKEN, SEGMENTS_LIMIT: '2000000000', LOG_LEVEL: 'info' }
  const first = await startProcess('src/main.ts', serverEnv)
  const second = await startProcess('src/main.ts', serverEnv).catch(async (error) => {
    await first.stop()
    throw error
  })
  try {
    const both = [first, second].map((server) => ({ server, url: `${server.url}/api/admin/segments` }))
    const loadBoth = (seconds: number) =>
      Promise.all(
        both.map(({ server, url }) => load({ url, method: 'POST', headers, makeBody: body, seconds, connections: 5 }, server.pid)),
      )
    await loadBoth(WARMUP)
    const before = await storedCount(both[0]!.url)
    const results = await loadBoth(SECONDS)
    const stored = (await storedCount(both[0]!.url)) - before
    const rate = results.reduce((sum, result) => sum + result.requestsPerSecond, 0)
    const failed = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0)
    console.log(
      `${label}, two instances at once: ${rate.toFixed(0)} req/s in all (${results.map((result) => result.requestsPerSecond.toFixed(0)).join(' + ')}), ` +
        `p99 ${results.map((result) => result.p99.toFixed(1)).join(' and ')} ms, non-2xx and errors ${failed}, ` +
        `server CPU ${results.map((result) => result.cpuPercent.toFixed(0)).join('% and ')}% (${stored} segments stored)`,
    )
    if (failed > 0) process.exitCode = 1
  } finally {
    await Promise.all([first.stop(), second.stop()])
  }
}

async function storedCount(url: string): Promise<number> {
  return ((await (await fetch(url, { headers: { authorization: TOKEN } })).json()) as { segments: unknown[] }).segments.length
}

console.log(`POST /api/admin/segments: ${SECONDS} s after ${WARMUP} s warm-up, 10 connections, node ${process.version}`)
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-segments-'))
try {
  await run('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL)
  await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'segments', async (url) => {
    await run('PostgreSQL', { DATABASE_URL: url })
    await runTwoInstances('PostgreSQL', { DATABASE_URL: url })
  })
