/**
 * Shared pieces of the benchmark scripts: start Pennon (or a ceiling server) as a
 * real listening child process on 127.0.0.1, read its CPU time and peak RSS from
 * /proc, and run autocannon against it for a bounded time.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import pg from 'pg'

export interface Server {
  url: string
  pid: number
  child: ChildProcess
  output(): string
  stop(): Promise<void>
}

/**
 * Node flags Pennon runs with: those of `npm start` (package.json), read from there so the two
 * never differ. No Maglev (V8's middle compiler): its compilations on V8's worker threads left
 * ~15 MB in their malloc arenas, and the cases measured are no slower without it. The compile
 * cache (src/compile-cache.mjs: a start after the first loads no type stripper); a smaller young
 * generation, and an old generation that grows by 30% rather than up to 4× between full
 * collections, keep the peak RSS of long streamed reads down (docs/performance.md). Relative
 * paths in them are relative to the repository's root, where tests and benchmarks run.
 */
export const PENNON_NODE_FLAGS: readonly string[] = startScript().flags

/**
 * The environment `npm start` sets before `node` (package.json): MALLOC_ARENA_MAX=2, so that
 * glibc's malloc keeps two arenas rather than one per thread that ever allocated (V8's
 * collector and compiler threads each kept freed memory in their own: 6–8 MB of the peak under
 * the SDK load, docs/performance.md).
 */
export const PENNON_NODE_ENV: Readonly<Record<string, string>> = startScript().env

function startScript(): { env: Record<string, string>; flags: string[] } {
  const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
  const words = scripts.start.split(' ')
  const at = words.indexOf('node')
  const settings = words.slice(0, at).map((word) => word.split('='))
  if (at < 0 || settings.some((setting) => setting.length !== 2) || words.at(-1) !== 'src/main.ts')
    throw new Error(`unexpected start script: ${scripts.start}`)
  return { env: Object.fromEntries(settings), flags: words.slice(at + 1, -1) }
}

/** Spawns `node <script>` and waits for it to print the address it listens on. */
export function startProcess(script: string, env: Record<string, string>, args: string[] = []): Promise<Server> {
  const pennon = script === 'src/main.ts'
  const child = spawn(process.execPath, [...(pennon ? PENNON_NODE_FLAGS : []), script, ...args], {
    env: { ...process.env, ...(pennon ? PENNON_NODE_ENV : {}), HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: nobody would stop a server whose start was given up on.
      child.kill('SIGKILL')
      reject(new Error(`${script} did not start: ${output}`))
    }, 30_000)
    let started = false
    const onData = (chunk: Buffer) => {
      // Output keeps being collected after start-up: tests read what the server said while running.
      output += chunk
      if (started) return
      const match = output.match(/listening at (http:\/\/127\.0\.0\.1:\d+)/i)
      if (!match) return
      started = true
      clearTimeout(timer)
      resolve({
        url: match[1]!,
        pid: child.pid!,
        child,
        output: () => output,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done()
            child.once('exit', () => done())
            child.kill('SIGTERM')
          }),
      })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk) => (output += chunk))
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)))
  })
}

/**
 * Starts Pennon once and stops it, so the starts measured next find its modules in Node's
 * compile cache, as every start of a server after its first does (the first also loads the
 * type stripper, ~18 MB more for that process's life).
 */
export async function warmCompileCache(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-warm-'))
  try {
    await (await startProcess('src/main.ts', { DATABASE_FILE: join(dir, 'pennon.sqlite') })).stop()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A DevTools protocol session with a server started with `NODE_OPTIONS=--inspect=127.0.0.1:0`. */
export async function inspectorOf(server: Server) {
  const url = server.output().match(/Debugger listening on (ws:\/\/\S+)/)![1]!
  const socket = new WebSocket(url)
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  let id = 0
  // Every message (answers and events such as heap snapshot chunks) goes to each listener.
  const listeners = new Set<(message: any) => void>()
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data))
    for (const listener of listeners) listener(message)
  }
  const call = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      const mine = ++id
      const listener = (message: any) => {
        if (message.id !== mine) return
        listeners.delete(listener)
        resolve(message.result)
      }
      listeners.add(listener)
      socket.send(JSON.stringify({ id: mine, method, params }))
    })
  return { call, listeners, close: () => socket.close() }
}
export type Inspector = Awaited<ReturnType<typeof inspectorOf>>

/** A heap snapshot of the inspected process, parsed: its nodes as flat numbers, named by `meta`. */
export async function heapSnapshot(session: Inspector) {
  let text = ''
  const collect = (message: any) => {
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk') text += message.params.chunk
  }
  session.listeners.add(collect)
  await session.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
  session.listeners.delete(collect)
  return JSON.parse(text) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }
    nodes: number[]
    strings: string[]
  }
}

/** The server's V8 heap after a full collection (through its inspector), and its RSS then. */
export async function serverMemory(server: Server): Promise<{ rssMb: number; heapMb: number }> {
  const session = await inspectorOf(server)
  try {
    await session.call('HeapProfiler.collectGarbage')
    const heap = await session.call('Runtime.getHeapUsage')
    const rssKb = Number(readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)![1])
    return { rssMb: rssKb / 1024, heapMb: heap.usedSize / 1024 / 1024 }
  } finally {
    session.close()
  }
}

/** Peak resident set size of a process so far, in MB (Linux VmHWM). */
export function peakRssMb(pid: number): number {
  const kb = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/)?.[1] ?? Number.NaN)
  return kb / 1024
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime) are the 12th and 13th after the command name.
  return (Number(fields[11]) + Number(fields[12])) / 100
}

export interface LoadOptions {
  url: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  /** Builds each request's body anew (unique names). */
  makeBody?: () => string
  /** Builds each request's path anew (a query that varies: the frontend API's context). */
  makePath?: () => string
  /** The status every answer must have (304 for a conditional GET); by default any 2xx. */
  expectedStatus?: number
  seconds: number
  connections?: number
  /** Requests per second in all, when the load is paced rather than as fast as the server answers. */
  rate?: number
}

export interface LoadResult {
  requestsPerSecond: number
  p50: number
  p99: number
  non2xx: number
  /** Answers whose status is not the expected one (`expectedStatus`; by default, not 2xx). */
  unexpected: number
  errors: number
  cpuPercent: number
  bytesPerSecond: number
}

/** Runs autocannon for a bounded time and reports throughput, latency and the server's CPU use meanwhile. */
export async function load(options: LoadOptions, serverPid: number): Promise<LoadResult> {
  const cpuBefore = cpuSeconds(serverPid)
  const started = process.hrtime.bigint()
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 10,
    duration: options.seconds,
    ...(options.rate ? { overallRate: options.rate } : {}),
    requests:
      options.makeBody || options.makePath
        ? [
            {
              setupRequest: (request: any) => ({
                ...request,
                ...(options.makeBody ? { body: options.makeBody() } : {}),
                ...(options.makePath ? { path: options.makePath() } : {}),
              }),
            },
          ]
        : undefined,
  } as autocannon.Options)
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = cpuSeconds(serverPid) - cpuBefore
  const statuses = Object.entries(result.statusCodeStats ?? {}) as [string, { count: number }][]
  const expected = options.expectedStatus
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    unexpected:
      expected === undefined
        ? result.non2xx
        : statuses.reduce((sum, [code, { count }]) => (code === String(expected) ? sum : sum + count), 0),
    errors: result.errors + result.timeouts,
    cpuPercent: (cpu / elapsed) * 100,
    bytesPerSecond: result.throughput.average,
  }
}

/** BENCH_RUNS runs (default 3) of BENCH_SECONDS (default 10) after a 2 s warm-up: the suite's load per case. */
export const RUNS = Number(process.env.BENCH_RUNS ?? 3)
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
export const WARMUP_SECONDS = 2

/** One case's figures: the median of its runs (unexpected answers and errors summed). */
export interface Row extends LoadResult {
  label: string
  key: string
  peakRss: number
  /** For a case measured in rounds with its ceilings: the median of the rounds' ratios to each. */
  shares?: { key: string; share: number }[]
}

export function summarize(label: string, key: string, runs: readonly LoadResult[], serverPid: number): Row {
  const pick = (f: (r: LoadResult) => number) => median(runs.map(f))
  const sum = (f: (r: LoadResult) => number) => runs.reduce((total, r) => total + f(r), 0)
  return {
    label,
    key,
    requestsPerSecond: pick((r) => r.requestsPerSecond),
    p50: pick((r) => r.p50),
    p99: pick((r) => r.p99),
    cpuPercent: pick((r) => r.cpuPercent),
    bytesPerSecond: pick((r) => r.bytesPerSecond),
    non2xx: sum((r) => r.non2xx),
    unexpected: sum((r) => r.unexpected),
    errors: sum((r) => r.errors),
    peakRss: peakRssMb(serverPid),
  }
}

/** The first cells of a row in every table: case, req/s, p50 ms, p99 ms, CPU %, peak RSS MB. */
export const ROW_HEADER = ['case', 'req/s', 'p50 ms', 'p99 ms', 'CPU %', 'peak RSS MB']
export function rowCells(r: Row): string[] {
  return [r.label, r.requestsPerSecond.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), r.cpuPercent.toFixed(0), r.peakRss.toFixed(0)]
}

/** A warm-up, then RUNS runs of SECONDS: one row. */
export async function measure(label: string, key: string, options: Omit<LoadOptions, 'seconds'>, server: { pid: number }): Promise<Row> {
  await load({ ...options, seconds: WARMUP_SECONDS }, server.pid)
  const runs: LoadResult[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await load({ ...options, seconds: SECONDS }, server.pid))
  return summarize(label, key, runs, server.pid)
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/**
 * Runs `use` on a PostgreSQL database of its own (`pennon_bench_<purpose>_<pid>`), made beside
 * `baseUrl`'s database and dropped afterwards, whatever happens.
 */
export async function withFreshPostgres<T>(baseUrl: string, purpose: string, use: (url: string) => Promise<T>): Promise<T> {
  const name = `pennon_bench_${purpose}_${process.pid}`
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.query(`create database ${name}`)
    const url = new URL(baseUrl)
    url.pathname = `/${name}`
    return await use(url.toString())
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
  }
}

/** Prints a Markdown table, each column as wide as its widest cell. */
export function printMarkdownTable(header: readonly string[], lines: readonly string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const format = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  console.log(format(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const line of lines) console.log(format(line))
}
