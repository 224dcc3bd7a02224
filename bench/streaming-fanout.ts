/**
 * One change, fanned out to BENCH_STREAMS (default 10,000) `/api/client/streaming` connections of a
 * client token: Pennon as `npm start` runs it (plus `--inspect` on a free port, to read its V8 heap
 * after a full collection), 20 flags with a strategy each, and two load-generator processes
 * (bench/sse-clients.ts) holding the streams over node:http. Once every stream has its
 * `unleash-connected` hydration, one flag is switched through the admin API and the time until
 * each stream reads the `unleash-updated` carrying it is measured (from the admin request's start),
 * with the server's CPU time meanwhile and its memory per idle stream (RSS and V8 heap after
 * connecting minus before, both after a full collection).
 *
 * On SQLite; then, with BENCH_DATABASE_URL, two instances on a fresh PostgreSQL database: the
 * streams on B, the change made through A.
 *
 * `--kill`: afterwards, the flag is switched back and the streams' server is killed (SIGKILL) at
 * once, then started again on the same database and port; the generators reconnect as the Node
 * SDK does (Last-Event-ID, its backoff) and the time until every stream is back and holds the
 * state the server names is measured (docs/reliability.md).
 *   node bench/streaming-fanout.ts [--kill]
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/streaming-fanout.ts
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  cpuSeconds,
  printMarkdownTable,
  serverMemory as memory,
  startProcess,
  warmCompileCache,
  withFreshPostgres,
  type Server,
} from './lib.ts'
import type { FromClients, ToClients } from './sse-clients.ts'

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000)
const GENERATORS = 2
const KILL = process.argv.includes('--kill')
const FLAGS = 20
const TARGET = 'fanout-target'
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

// Each process holds a socket per stream: the server all of them, each generator its share.
const neededFiles = STREAMS + 1024
const limits = readFileSync('/proc/self/limits', 'utf8')
const [softFiles, hardFiles] = limits
  .match(/Max open files\s+(\S+)\s+(\S+)/)!
  .slice(1)
  .map((v) => (v === 'unlimited' ? Infinity : Number(v)))
if (softFiles! < neededFiles) {
  if (hardFiles! < neededFiles || process.env.BENCH_RAISED_FILES)
    throw new Error(`${STREAMS} streams need ${neededFiles} open files; the hard limit is ${hardFiles} (raise it, or set BENCH_STREAMS)`)
  // Node cannot raise its own limit: the script runs again under a shell that does (children inherit it).
  const result = spawnSync(
    'sh',
    [
      '-c',
      `ulimit -n ${hardFiles === Infinity ? neededFiles : hardFiles} && exec "$@"`,
      'sh',
      process.execPath,
      ...process.execArgv,
      ...process.argv.slice(1),
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_RAISED_FILES: '1' },
    },
  )
  process.exit(result.status ?? 1)
}

const now = () => performance.timeOrigin + performance.now()

async function send(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  const text = await response.text()
  return text === '' ? undefined : JSON.parse(text)
}

/** 20 flags in `default`, each with a strategy in `development`, half on; a client token of `development`. */
async function seed(base: string): Promise<string> {
  for (let i = 0; i < FLAGS; i++) {
    const name = i === 0 ? TARGET : `fanout-${i}`
    const place = `/api/admin/projects/default/features/${name}/environments/development`
    await send(base, 'POST', '/api/admin/projects/default/features', { name })
    await send(base, 'POST', `${place}/strategies`, {
      name: 'flexibleRollout',
      constraints: [],
      parameters: { rollout: String(5 * i), stickiness: 'default', groupId: name },
    })
    if (i % 2 === 1) await send(base, 'POST', `${place}/on`)
  }
  return (
    await send(base, 'POST', '/api/admin/api-tokens', { tokenName: 'fanout', type: 'client', environment: 'development', projects: ['*'] })
  ).secret
}

const toggle = (base: string, on: boolean) =>
  send(base, 'POST', `/api/admin/projects/default/features/${TARGET}/environments/development/${on ? 'on' : 'off'}`)

/** Opens and closes a few hundred streams, so code compiled on first use is not counted per stream. */
async function warmStreams(base: string, token: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    await new Promise<void>((resolve, reject) => {
      const req = request(`${base}/api/client/streaming`, { agent: false, headers: { authorization: token } }, (response) => {
        response.once('data', () => {
          req.destroy()
          resolve()
        })
      })
      req.on('error', reject)
      req.end()
    })
  }
}

interface Generator {
  child: ChildProcess
  next<T extends FromClients['type']>(type: T): Promise<Extract<FromClients, { type: T }>>
  tell(message: ToClients): void
}

function generator(): Generator {
  const child = spawn(process.execPath, ['bench/sse-clients.ts'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const inbox: FromClients[] = []
  const waiting: ((m: FromClients) => void)[] = []
  child.on('message', (message: FromClients) => {
    const waiter = waiting.shift()
    if (waiter) waiter(message)
    else inbox.push(message)
  })
  return {
    child,
    next: (type) =>
      new Promise((resolve, reject) => {
        const take = (message: FromClients) =>
          message.type === type ? resolve(message as any) : reject(new Error(`expected ${type}, got ${message.type}`))
        if (inbox.length > 0) take(inbox.shift()!)
        else waiting.push(take)
      }),
    tell: (message) => child.send(message),
  }
}

const all = <T extends FromClients['type']>(generators: Generator[], type: T) => Promise.all(generators.map((g) => g.next(type)))
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const ms = (value: number) => `${value.toFixed(0)} ms`

interface Instances {
  /** Holds the streams (and is killed with --kill). */
  streams: Server
  /** Takes the admin API's change (the same server on SQLite). */
  admin: Server
  /** Starts the streams' server again, on the same database and port. */
  restart(port: string): Promise<Server>
}

async function runCase(label: string, instances: Instances, rows: string[][], killRows: string[][]): Promise<void> {
  let { streams, admin } = instances
  const clientToken = await seed(admin.url)
  await warmStreams(streams.url, clientToken)
  const before = await memory(streams)
  const generators = Array.from({ length: GENERATORS }, generator)
  try {
    // Connect and hydrate every stream.
    const connectCpu = cpuSeconds(streams.pid)
    const connectStart = now()
    for (const [i, g] of generators.entries())
      g.tell({
        type: 'open',
        url: streams.url,
        token: clientToken,
        count: Math.floor(STREAMS / GENERATORS) + (i < STREAMS % GENERATORS ? 1 : 0),
        concurrency: 50,
        reconnect: KILL,
      })
    const opened = await all(generators, 'opened')
    const connectSeconds = (now() - connectStart) / 1000
    const connectCpuSeconds = cpuSeconds(streams.pid) - connectCpu
    const connected = opened.reduce((sum, o) => sum + o.connected, 0)
    console.log(
      `[${label}] ${connected} of ${STREAMS} streams hydrated in ${connectSeconds.toFixed(1)} s (server CPU ${connectCpuSeconds.toFixed(1)} s); statuses ${JSON.stringify(opened.map((o) => o.statuses))}`,
    )
    await sleep(2000)
    const after = await memory(streams)

    // One change, through the admin API.
    for (const g of generators) g.tell({ type: 'watch', flag: TARGET, enabled: true, report: true })
    await all(generators, 'watching')
    const cpuBefore = cpuSeconds(streams.pid)
    const adminCpuBefore = cpuSeconds(admin.pid)
    const started = now()
    await toggle(admin.url, true)
    const answered = now() - started
    const arrivals = await all(generators, 'arrivals')
    const cpu = cpuSeconds(streams.pid) - cpuBefore
    const adminCpu = admin === streams ? 0 : cpuSeconds(admin.pid) - adminCpuBefore
    const delays = arrivals.flatMap((a) => a.times.map((t) => t - started)).sort((a, b) => a - b)
    const got = delays.length
    rows.push([
      label,
      `${got} of ${STREAMS}`,
      ms(delays[0]!),
      ms(percentile(delays, 50)),
      ms(percentile(delays, 99)),
      ms(delays.at(-1)!),
      ms(answered),
      `${(((after.rssMb - before.rssMb) * 1024 * 1024) / STREAMS / 1024).toFixed(1)} KB`,
      `${(((after.heapMb - before.heapMb) * 1024 * 1024) / STREAMS / 1024).toFixed(1)} KB`,
      `${(cpu * 1000).toFixed(0)} ms${admin === streams ? '' : ` (A: ${(adminCpu * 1000).toFixed(0)} ms)`}`,
      `${connectSeconds.toFixed(1)} s, ${((connectCpuSeconds / connected) * 1e6).toFixed(0)} µs CPU each`,
    ])
    console.log(
      `[${label}] change: ${got} of ${STREAMS} in first ${ms(delays[0]!)}, p50 ${ms(percentile(delays, 50))}, p99 ${ms(percentile(delays, 99))}, max ${ms(delays.at(-1)!)}; ` +
        `generators' CPU ${arrivals.map((a) => a.cpuMs.toFixed(0)).join(' + ')} ms; RSS ${before.rssMb.toFixed(0)} → ${after.rssMb.toFixed(0)} MB, heap ${before.heapMb.toFixed(0)} → ${after.heapMb.toFixed(0)} MB; server CPU ${(cpu * 1000).toFixed(0)} ms`,
    )

    if (!KILL) return
    // Switch back and kill the streams' server at once: some streams get the change first, some not.
    for (const g of generators) g.tell({ type: 'watch', flag: TARGET, enabled: false, report: false })
    await all(generators, 'watching')
    await toggle(admin.url, false)
    const killed = now()
    const port = new URL(streams.url).port
    const dead = new Promise((resolve) => streams.child.once('exit', resolve))
    streams.child.kill('SIGKILL')
    await dead
    const restarted = await instances.restart(port)
    const listening = now()
    if (admin === streams) admin = restarted
    streams = restarted
    const delta = await fetch(`${streams.url}/api/client/delta`, { headers: { authorization: clientToken } })
    const hash = delta.headers.get('etag')!.slice(1, -1)
    for (const g of generators) g.tell({ type: 'settle', hash, flag: TARGET, enabled: false, timeoutMs: 120_000 })
    const settled = await all(generators, 'settled')
    const back = settled.flatMap((s) => s.times).sort((a, b) => a - b)
    const sum = (f: (s: (typeof settled)[number]) => number) => settled.reduce((total, s) => total + f(s), 0)
    killRows.push([
      label,
      `${back.length} of ${STREAMS}`,
      `${((listening - killed) / 1000).toFixed(1)} s`,
      `${((percentile(back, 50) - killed) / 1000).toFixed(1)} s`,
      `${((back.at(-1)! - killed) / 1000).toFixed(1)} s`,
      `${sum((s) => s.hadChangeBeforeKill)}`,
      `${sum((s) => s.hydrated)} / ${sum((s) => s.resumed)}`,
      `${sum((s) => s.attempts) - STREAMS}`,
    ])
    console.log(
      `[${label}] killed: ${back.length} of ${STREAMS} back and right ${((back.at(-1)! - killed) / 1000).toFixed(1)} s after the kill ` +
        `(listening after ${((listening - killed) / 1000).toFixed(1)} s); statuses ${JSON.stringify(settled.map((s) => s.statuses))}`,
    )
  } finally {
    for (const g of generators) if (g.child.connected) g.tell({ type: 'close' })
    await Promise.all(
      generators.map((g) => (g.child.exitCode === null ? new Promise((resolve) => g.child.once('exit', resolve)) : undefined)),
    )
    await streams.stop()
    if (admin !== streams) await admin.stop()
  }
}

const pennonEnv = {
  INIT_ADMIN_API_TOKENS: TOKEN,
  STREAMING_MAX_CONNECTIONS: String(STREAMS + 1000),
  // Every stream is the one client token's.
  STREAMING_MAX_CONNECTIONS_PER_TOKEN: String(STREAMS + 1000),
  // BENCH_NODE_OPTIONS: more for the servers (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  NODE_OPTIONS: `--inspect=127.0.0.1:0 ${process.env.BENCH_NODE_OPTIONS ?? ''}`.trim(),
}
const rows: string[][] = []
const killRows: string[][] = []
console.log(
  `Streaming fan-out: ${STREAMS} streams, ${GENERATORS} generator processes, node ${process.version}, ${new Date().toISOString()}`,
)
await warmCompileCache()
const dir = mkdtempSync(join(tmpdir(), 'pennon-fanout-'))
try {
  const sqliteEnv = { ...pennonEnv, DATABASE_FILE: join(dir, 'pennon.sqlite') }
  const server = await startProcess('src/main.ts', sqliteEnv)
  await runCase(
    'SQLite, one instance',
    { streams: server, admin: server, restart: (port) => startProcess('src/main.ts', { ...sqliteEnv, PORT: port }) },
    rows,
    killRows,
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL) {
  await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'fanout', async (url) => {
    const env = { ...pennonEnv, DATABASE_URL: url }
    const a = await startProcess('src/main.ts', env)
    const b = await startProcess('src/main.ts', env)
    await runCase(
      'PostgreSQL, streams on B, change through A',
      { streams: b, admin: a, restart: (port) => startProcess('src/main.ts', { ...env, PORT: port }) },
      rows,
      killRows,
    )
  })
}
console.log()
printMarkdownTable(
  [
    'case',
    'got the change',
    'first',
    'p50',
    'p99',
    'max',
    'admin answer',
    'RSS per stream',
    'heap per stream',
    'server CPU for the change',
    'connecting all',
  ],
  rows,
)
if (killRows.length > 0) {
  console.log()
  printMarkdownTable(
    [
      'case (SIGKILL, restart)',
      'back and right',
      'listening again',
      'p50 back',
      'all back',
      'had the change before the kill',
      'hydrated / resumed',
      'reconnection attempts',
    ],
    killRows,
  )
}
