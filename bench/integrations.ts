/**
 * Integrations under load: Pennon listening on 127.0.0.1 (a temporary SQLite file, or a fresh
 * PostgreSQL database beside BENCH_DATABASE_URL), five webhook integrations sending to a receiver
 * in a process of its own (bench/webhook-sink.ts). autocannon creates flags (unique names, 10
 * connections) for BENCH_SECONDS (default 10) after a 2 s warm-up:
 *   (w0) with no integration: flag creates per second;
 *   (r0, r5) paced at BENCH_RATE creates a second (default 200; the five then deliver 1,000 a
 *        second and keep up): how long a create takes, without and with the five delivering;
 *   (w5) with the five delivering meanwhile: creates per second (what delivery costs a write),
 *        then how fast they are delivered and how long after its change each arrived (p50, p99);
 *   (p)  the receiver refusing while 20,000 more flags are created (100,000 deliveries pending):
 *        the server's memory then, and how fast they all go once it takes them again.
 *   node bench/integrations.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/integrations.ts   (BENCH_SKIP_SQLITE=1: that one only)
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { cpuSeconds, load, peakRssMb, serverMemory, startProcess, withFreshPostgres } from './lib.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const PENDING_FLAGS = Number(process.env.BENCH_PENDING_FLAGS ?? 20_000)
const RATE = Number(process.env.BENCH_RATE ?? 200)
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const headers = { 'content-type': 'application/json', authorization: TOKEN }
let sequence = 0
const flagBody = () => JSON.stringify({ name: `bench-${process.pid}-${++sequence}` })

interface Stats {
  count: number
  distinct: number
  p50: number
  p99: number
  last: number
}

async function startSink() {
  const child = spawn(process.execPath, ['bench/webhook-sink.ts'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [first] = (await once(child.stdout, 'data')) as [Buffer]
  const url = `http://127.0.0.1:${Number(first.toString().trim())}`
  return {
    url,
    pid: child.pid!,
    stats: async () => (await (await fetch(`${url}/stats`)).json()) as Stats,
    answer: async (status: number) => void (await fetch(`${url}/status/${status}`, { method: 'PUT' })),
    reset: async () => void (await fetch(`${url}/stats`, { method: 'DELETE' })),
    stop: () => child.kill(),
  }
}

async function waitFor(check: () => Promise<boolean>, seconds: number): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}

async function run(label: string, env: Record<string, string>): Promise<void> {
  const sink = await startSink()
  const server = await startProcess('src/main.ts', {
    ...env,
    INIT_ADMIN_API_TOKENS: TOKEN,
    INTEGRATIONS_ALLOWED_HOSTS: '127.0.0.1',
    INTEGRATIONS_RETRY_MAX_SECONDS: '1',
    AUTH_FAILURES_PER_MINUTE: '0',
    // For the memory read while deliveries are pending (serverMemory).
    NODE_OPTIONS: '--inspect=127.0.0.1:0',
  })
  try {
    const url = `${server.url}/api/admin/projects/default/features`
    const writes = (seconds: number, rate?: number) => load({ url, method: 'POST', headers, makeBody: flagBody, seconds, rate }, server.pid)
    await writes(2)
    const w0 = await writes(SECONDS)
    console.log(`  (w0) measured: ${w0.requestsPerSecond.toFixed(0)} req/s`)
    const r0 = await writes(SECONDS, RATE)

    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${server.url}/api/admin/addons`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          provider: 'webhook',
          enabled: true,
          parameters: { url: `${sink.url}/hook-${i}` },
          events: ['feature-created'],
        }),
      })
      if (response.status !== 201) throw new Error(`addon: ${response.status} ${await response.text()}`)
    }
    const r5 = await writes(SECONDS, RATE)
    const paced = Math.round(r5.requestsPerSecond * SECONDS) * 5
    await waitFor(async () => (await sink.stats()).distinct >= paced * 0.99, 60)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const pacedDelivered = await sink.stats()
    await sink.reset()
    const started = Date.now()
    const sinkCpu = cpuSeconds(sink.pid)
    const w5 = await writes(SECONDS)
    const sinkPercent = ((cpuSeconds(sink.pid) - sinkCpu) / SECONDS) * 100
    const expected = Math.round(w5.requestsPerSecond * SECONDS) * 5
    await waitFor(async () => (await sink.stats()).distinct >= expected * 0.99, 120)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const delivered = await sink.stats()
    console.log(`  (w5) measured: ${w5.requestsPerSecond.toFixed(0)} req/s; ${delivered.distinct} of ${expected} delivered`)
    const rate = delivered.distinct / ((delivered.last - started) / 1000)

    await sink.answer(503)
    const before = delivered.distinct
    for (let created = 0; created < PENDING_FLAGS; ) {
      const batch = Array.from({ length: Math.min(50, PENDING_FLAGS - created) }, () =>
        fetch(url, { method: 'POST', headers, body: flagBody() }).then((r) => r.arrayBuffer()),
      )
      await Promise.all(batch)
      created += batch.length
    }
    const pendingMemory = await serverMemory(server)
    console.log(`  (p) ${PENDING_FLAGS} flags created with the receiver refusing; draining`)
    await sink.answer(200)
    const drainStart = Date.now()
    const drained = await waitFor(async () => (await sink.stats()).distinct >= before + PENDING_FLAGS * 5, 300)
    const after = await sink.stats()
    const drainRate = (after.distinct - before) / ((after.last - drainStart) / 1000)

    console.log(`${label}:`)
    console.log(`  (w0) flag creates, no integration: ${w0.requestsPerSecond.toFixed(0)} req/s, p99 ${w0.p99.toFixed(1)} ms`)
    console.log(
      `  (w5) with five webhooks delivering: ${w5.requestsPerSecond.toFixed(0)} req/s, p99 ${w5.p99.toFixed(1)} ms ` +
        `(server CPU ${w0.cpuPercent.toFixed(0)}% → ${w5.cpuPercent.toFixed(0)}%, the receiver's ${sinkPercent.toFixed(0)}%) ` +
        `(${((1 - w5.requestsPerSecond / w0.requestsPerSecond) * 100).toFixed(0)}% fewer); ` +
        `${delivered.distinct} delivered at ${rate.toFixed(0)}/s, change to receipt p50 ${delivered.p50} ms, p99 ${delivered.p99} ms`,
    )
    console.log(
      `  (r) paced at ${RATE} creates/s: p50 ${r0.p50} ms, p99 ${r0.p99} ms without; with five delivering p50 ${r5.p50} ms, ` +
        `p99 ${r5.p99} ms, server CPU ${r0.cpuPercent.toFixed(0)}% → ${r5.cpuPercent.toFixed(0)}%; ` +
        `${pacedDelivered.distinct} of ${paced} delivered, change to receipt p50 ${pacedDelivered.p50} ms, p99 ${pacedDelivered.p99} ms`,
    )
    console.log(
      `  (p) ${PENDING_FLAGS * 5} deliveries pending: server RSS ${pendingMemory.rssMb.toFixed(0)} MB (V8 heap ${pendingMemory.heapMb.toFixed(0)} MB); ` +
        `${drained ? 'all' : 'NOT all'} delivered in ${((after.last - drainStart) / 1000).toFixed(1)} s (${drainRate.toFixed(0)}/s); ` +
        `peak RSS of the run ${peakRssMb(server.pid).toFixed(0)} MB; repeats received ${after.count - after.distinct}`,
    )
    if (!drained || w0.non2xx + w5.non2xx + r0.non2xx + r5.non2xx > 0) process.exitCode = 1
  } finally {
    await server.stop()
    sink.stop()
  }
}

console.log(`integrations: ${SECONDS} s of flag creates after a 2 s warm-up, 10 connections, node ${process.version}`)
const dir = mkdtempSync(join(tmpdir(), 'pennon-integrations-'))
try {
  if (process.env.BENCH_SKIP_SQLITE !== '1') await run('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL)
  await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'integrations', (databaseUrl) => run('PostgreSQL', { DATABASE_URL: databaseUrl }))
