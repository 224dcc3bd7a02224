/**
 * One read of a project holding 1,000,000 events (BENCH_EVENTS to change it): Pennon in a
 * process of its own on 127.0.0.1 (random port), seeded by SQL on a temporary SQLite file —
 * and on a fresh PostgreSQL database when BENCH_DATABASE_URL is set. Fetches
 * `GET /api/admin/events?project=million` once, reading as fast as it can, and prints the
 * time to the first body byte, the total time, the throughput, and the server's peak RSS
 * (VmHWM from /proc) beside its RSS before the read.
 *   node bench/events-project-million.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/events-project-million.ts
 */
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { cpuSeconds, peakRssMb, startProcess, warmCompileCache } from './lib.ts'
import { onBenchDatabases, seedEvents } from './event-data.ts'

const COUNT = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

function rssMb(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)?.[1]) / 1024
}

interface Read {
  status: number
  firstByteMs: number
  totalMs: number
  bytes: number
  head: string
  tail: string
}

/** Reads a response to its end without keeping it: counts bytes, keeps its first and last few. */
function readOnce(url: string): Promise<Read> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let firstByteMs = 0
    let bytes = 0
    let head = ''
    let tail = ''
    http
      .get(url, { headers: { authorization: TOKEN }, agent: false }, (response) => {
        response.on('data', (chunk: Buffer) => {
          if (bytes === 0) {
            firstByteMs = performance.now() - started
            head = chunk.subarray(0, 40).toString()
          }
          bytes += chunk.length
          tail = (tail + chunk.subarray(-40).toString()).slice(-40)
        })
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, firstByteMs, totalMs: performance.now() - started, bytes, head, tail }),
        )
        response.on('error', reject)
      })
      .on('error', reject)
  })
}

console.log(`GET /api/admin/events?project=million with ${COUNT.toLocaleString('en')} events in the project, node ${process.version}`)
await warmCompileCache()
await onBenchDatabases(async ({ label, env }) => {
  const seeding = performance.now()
  await seedEvents(env, [{ count: COUNT, project: 'million', flags: 1000 }])
  const seeded = ((performance.now() - seeding) / 1000).toFixed(1)
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN })
  try {
    // One small request first, so the RSS before the read includes a warmed-up server.
    await (await fetch(`${server.url}/api/admin/events?project=none`, { headers: { authorization: TOKEN } })).text()
    const rssBefore = rssMb(server.pid)
    const cpuBefore = cpuSeconds(server.pid)
    const read = await readOnce(`${server.url}/api/admin/events?project=million`)
    const cpu = cpuSeconds(server.pid) - cpuBefore
    const complete =
      read.status === 200 &&
      read.head.startsWith(`{"version":1,"events":[{"id":${COUNT},`) &&
      read.tail.endsWith(`],"totalEvents":${COUNT}}`)
    console.log(
      `${label}: first byte ${read.firstByteMs.toFixed(0)} ms, total ${(read.totalMs / 1000).toFixed(2)} s, ` +
        `${(read.bytes / 1e6).toFixed(0)} MB at ${(read.bytes / 1e6 / (read.totalMs / 1000)).toFixed(0)} MB/s, ` +
        `server peak RSS ${peakRssMb(server.pid).toFixed(0)} MB (${rssBefore.toFixed(0)} MB before the read), ` +
        `server CPU ${cpu.toFixed(2)} s, body ${complete ? 'complete' : `WRONG (status ${read.status}, ${read.head}…${read.tail})`} ` +
        `(seeded in ${seeded} s)`,
    )
    if (!complete) process.exitCode = 1
  } finally {
    await server.stop()
  }
})
