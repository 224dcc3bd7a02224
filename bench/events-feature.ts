/**
 * `GET /api/admin/events/:featureName` under load: Pennon in a process of its own on
 * 127.0.0.1 (random port), seeded by SQL on a temporary SQLite file — and on a fresh
 * PostgreSQL database when BENCH_DATABASE_URL is set — with 100,000 events over 1,000
 * flags (100 each: answers of ~45 KB, sent whole) and 20,000 events of one more flag
 * (~9 MB, streamed). autocannon, 10 connections, BENCH_SECONDS (default 10) per case
 * after a 2 s warm-up; the small case asks for a different flag on every request.
 *   node bench/events-feature.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/events-feature.ts
 */
import { randomBytes } from 'node:crypto'
import autocannon from 'autocannon'
import { cpuSeconds, load, peakRssMb, startProcess } from './lib.ts'
import { onBenchDatabases, seedEvents } from './event-data.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = 2
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const headers = { authorization: TOKEN }

/** autocannon over `/api/admin/events/flag-<n>`, n drawn at random from 0…999 for each request. */
async function loadAnyFlag(baseUrl: string, seconds: number, pid: number) {
  const cpuBefore = cpuSeconds(pid)
  const started = performance.now()
  const result = await autocannon({
    url: baseUrl,
    headers,
    connections: 10,
    duration: seconds,
    requests: [{ setupRequest: (request: any) => ({ ...request, path: `/api/admin/events/flag-${Math.floor(Math.random() * 1000)}` }) }],
  } as autocannon.Options)
  const cpu = ((cpuSeconds(pid) - cpuBefore) / ((performance.now() - started) / 1000)) * 100
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerSecond: result.throughput.average,
    bad: result.non2xx + result.errors + result.timeouts,
    cpu,
  }
}

console.log(`GET /api/admin/events/:featureName: ${SECONDS} s per case after ${WARMUP} s warm-up, 10 connections, node ${process.version}`)
await onBenchDatabases(async ({ label, env }) => {
  await seedEvents(env, [
    { count: 100_000, project: 'default', flags: 1000 },
    { count: 20_000, project: 'hot', flags: 1, flagPrefix: 'hot-flag-' },
  ])
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN })
  try {
    const hotUrl = `${server.url}/api/admin/events/hot-flag-0`
    const hot = (await (await fetch(hotUrl, { headers })).json()) as { totalEvents: number }

    await loadAnyFlag(server.url, WARMUP, server.pid)
    const small = await loadAnyFlag(server.url, SECONDS, server.pid)
    console.log(
      `${label}, any of 1,000 flags (100 events each): ${small.requestsPerSecond.toFixed(0)} req/s, p50 ${small.p50.toFixed(1)} ms, ` +
        `p99 ${small.p99.toFixed(1)} ms, ${(small.bytesPerSecond / 1e6).toFixed(1)} MB/s, non-2xx/errors ${small.bad}, server CPU ${small.cpu.toFixed(0)}%`,
    )

    await load({ url: hotUrl, headers, seconds: WARMUP }, server.pid)
    const large = await load({ url: hotUrl, headers, seconds: SECONDS }, server.pid)
    console.log(
      `${label}, one flag with ${hot.totalEvents.toLocaleString('en')} events (streamed): ${large.requestsPerSecond.toFixed(1)} req/s, ` +
        `p50 ${large.p50.toFixed(0)} ms, p99 ${large.p99.toFixed(0)} ms, ${(large.bytesPerSecond / 1e6).toFixed(0)} MB/s, ` +
        `non-2xx/errors ${large.non2xx + large.errors}, server CPU ${large.cpuPercent.toFixed(0)}%, peak RSS ${peakRssMb(server.pid).toFixed(0)} MB`,
    )
    if (small.bad + large.non2xx + large.errors > 0) process.exitCode = 1
  } finally {
    await server.stop()
  }
})
