/**
 * Segment creation under load: Pennon listening on 127.0.0.1 (random port) in a process
 * of its own, on a temporary SQLite file — or on a fresh PostgreSQL database created
 * beside BENCH_DATABASE_URL and dropped afterwards — with a segment limit high enough
 * never to be reached. autocannon posts a unique name per request (one IN constraint,
 * three values) over 10 connections for BENCH_SECONDS (default 10) after a 2 s warm-up. On
 * PostgreSQL also two instances on one database, 5 connections each at once, as a deployment of
 * two behind a load balancer writes (each instance batches its own creates; the batches of both
 * take turns on the segment count's row). Then, when Unleash 8.2 is installed in .unleash-server/
 * (as `npm run test:reference` installs it), the same load on it, on a scratch database of the same
 * PostgreSQL, so that the ratio is measured side by side on this host at this hour.
 *   node bench/segment-create.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/segment-create.ts
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { load, startProcess, withFreshPostgres, type LoadResult } from './lib.ts'
import { startUnleash, UNLEASH_DIR } from '../test/unleash/unleash-server.ts'

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

async function run(label: string, env: Record<string, string>): Promise<number> {
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
    return result.requestsPerSecond
  } finally {
    await server.stop()
  }
}

/** Two instances on one database, loaded at once. */
async function runTwoInstances(label: string, env: Record<string, string>): Promise<number> {
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
    return rate
  } finally {
    await Promise.all([first.stop(), second.stop()])
  }
}

/** The same load on Unleash 8.2 (its segment limit raised as Pennon's is); undefined when it is not installed. */
async function runUnleash(): Promise<number | undefined> {
  if (!existsSync(join(UNLEASH_DIR, 'dist', 'server.js'))) {
    console.log('Unleash 8.2: not installed in .unleash-server/ (npm run test:reference installs it): no side-by-side figure')
    return undefined
  }
  const unleash = await startUnleash({ UNLEASH_SEGMENTS_LIMIT: '2000000000' })
  try {
    const options = {
      url: `${unleash.url}/api/admin/segments`,
      method: 'POST' as const,
      headers: { ...headers, authorization: unleash.token },
      makeBody: body,
    }
    await load({ ...options, seconds: WARMUP }, unleash.pid)
    const result: LoadResult = await load({ ...options, seconds: SECONDS }, unleash.pid)
    console.log(
      `Unleash 8.2 on PostgreSQL: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ` +
        `non-2xx ${result.non2xx}, errors ${result.errors}, its CPU ${result.cpuPercent.toFixed(0)}%`,
    )
    return result.non2xx + result.errors > 0 ? undefined : result.requestsPerSecond
  } finally {
    await unleash.stop()
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
if (process.env.BENCH_DATABASE_URL) {
  const [one, two] = await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'segments', async (url) => [
    await run('PostgreSQL', { DATABASE_URL: url }),
    await runTwoInstances('PostgreSQL', { DATABASE_URL: url }),
  ])
  const unleash = await runUnleash()
  if (unleash !== undefined)
    console.log(`× Unleash 8.2: one instance ${(one / unleash).toFixed(1)}×, two instances at once ${(two / unleash).toFixed(1)}×`)
}
