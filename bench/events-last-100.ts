/**
 * `GET /api/admin/events` (the last 100 events and the count of all) under load: Pennon
 * in a process of its own on 127.0.0.1 (random port), 100,000 events seeded by SQL on a
 * temporary SQLite file — and on a fresh PostgreSQL database when BENCH_DATABASE_URL is
 * set. autocannon, 10 connections, BENCH_SECONDS (default 10) after a 2 s warm-up.
 *   node bench/events-last-100.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/events-last-100.ts
 */
import { randomBytes } from 'node:crypto'
import { load, peakRssMb, startProcess } from './lib.ts'
import { onBenchDatabases, seedEvents } from './event-data.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = 2
const EVENTS = 100_000
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

console.log(
  `GET /api/admin/events with ${EVENTS.toLocaleString('en')} events: ${SECONDS} s after ${WARMUP} s warm-up, 10 connections, node ${process.version}`,
)
await onBenchDatabases(async ({ label, env }) => {
  await seedEvents(env, [{ count: EVENTS, project: 'default', flags: 1000 }])
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN })
  try {
    const url = `${server.url}/api/admin/events`
    const headers = { authorization: TOKEN }
    const sample = (await (await fetch(url, { headers })).json()) as { events: unknown[]; totalEvents: number }
    await load({ url, headers, seconds: WARMUP }, server.pid)
    const result = await load({ url, headers, seconds: SECONDS }, server.pid)
    console.log(
      `${label}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ` +
        `${(result.bytesPerSecond / 1e6).toFixed(1)} MB/s, non-2xx ${result.non2xx}, errors ${result.errors}, ` +
        `server CPU ${result.cpuPercent.toFixed(0)}%, peak RSS ${peakRssMb(server.pid).toFixed(0)} MB ` +
        `(${sample.events.length} events of ${sample.totalEvents} per answer)`,
    )
    if (result.non2xx + result.errors > 0) process.exitCode = 1
  } finally {
    await server.stop()
  }
})
