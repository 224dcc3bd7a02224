/**
 * Pennon's memory under the SDK load: one server (as `npm start` runs it, on a fresh SQLite file,
 * or a fresh PostgreSQL database beside BENCH_DATABASE_URL) with `npm run bench`'s data (seed.ts,
 * then the SDK cases' sdk-data.ts:
 * 1,000 flags × 3 strategies, and issue 35's shape), loaded in turn by (f) the client answer, (f′)
 * its 304, (g) and (g620) the frontend answer for random contexts, and (h) SDK metrics, each for
 * BENCH_SECONDS (default 10) over 10 connections. After each case: the peak RSS so far (VmHWM)
 * and the RSS now, read from /proc, of the server as `npm start` runs it. Only after the last
 * case is the inspector switched on (SIGUSR1): attached from the start, it added 0–5 MB to the
 * peaks. Through it then, after a full collection, the RSS, the V8 heap and the memory outside it
 * (Buffers' bytes), and a heap snapshot's largest kinds of object (self size, by constructor), so
 * the retained structures have names.
 *   node bench/sdk-memory.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/sdk-memory.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import {
  heapSnapshot,
  type Inspector,
  inspectorOf,
  load,
  peakRssMb,
  SECONDS,
  startProcess,
  warmCompileCache,
  withFreshPostgres,
} from './lib.ts'
import { seedBenchData } from './seed.ts'
import { clientHeaders, recordSdkAnswers, sdkCases, seedSdkDataWithShape } from './sdk-data.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const MB = 1024 * 1024

async function memoryAfterCollection(session: Inspector) {
  await session.call('HeapProfiler.collectGarbage')
  const usage = await session.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })
  const memory = JSON.parse(usage.result.value) as NodeJS.MemoryUsage
  return { rss: memory.rss / MB, heap: memory.heapUsed / MB, external: memory.external / MB }
}

const rssMb = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)?.[1] ?? Number.NaN) / 1024

/** Switches the server's inspector on (it was started with `--inspect-port`) and attaches to it. */
async function inspectorSwitchedOn(server: Awaited<ReturnType<typeof startProcess>>): Promise<Inspector> {
  process.kill(server.pid, 'SIGUSR1')
  for (let waited = 0; !server.output().includes('Debugger listening on'); waited += 50) {
    if (waited > 10_000) throw new Error('the inspector did not start')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return inspectorOf(server)
}

/** The snapshot's objects grouped by constructor (or kind), largest self size first. */
async function largestKinds(session: Inspector, top: number): Promise<string[]> {
  const snapshot = await heapSnapshot(session)
  const fields = snapshot.snapshot.meta.node_fields
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field))
  const types = snapshot.snapshot.meta.node_types[0]
  const kinds = new Map<string, { size: number; count: number }>()
  const strings: { size: number; text: string }[] = []
  let total = 0
  for (let at = 0; at < snapshot.nodes.length; at += fields.length) {
    const type = types[snapshot.nodes[at + typeAt!]!]!
    const name = type === 'object' || type === 'native' ? snapshot.strings[snapshot.nodes[at + nameAt!]!]! : `(${type})`
    const size = snapshot.nodes[at + sizeAt!]!
    if (type === 'string' && size > 64 * 1024) strings.push({ size, text: snapshot.strings[snapshot.nodes[at + nameAt!]!]! })
    total += size
    const kind = kinds.get(name) ?? { size: 0, count: 0 }
    kind.size += size
    kind.count++
    kinds.set(name, kind)
  }
  return [
    `heap snapshot: ${(total / MB).toFixed(1)} MB in all; largest kinds by self size:`,
    ...[...kinds]
      .sort((a, b) => b[1].size - a[1].size)
      .slice(0, top)
      .map(([name, kind]) => `  ${(kind.size / MB).toFixed(2).padStart(6)} MB  ${String(kind.count).padStart(8)}  ${name.slice(0, 80)}`),
    'strings over 64 KB:',
    ...strings
      .sort((a, b) => b.size - a.size)
      .slice(0, top)
      .map(({ size, text }) => `  ${(size / MB).toFixed(2).padStart(6)} MB  ${JSON.stringify(text.slice(0, 90))}`),
  ]
}

/** An SDK's metrics bucket for the first 50 flags of the client answer. */
function metricsBody(flagNames: readonly string[]): string {
  const toggles = Object.fromEntries(flagNames.slice(0, 50).map((name, i) => [name, { yes: (i % 5) + 1, no: i % 3, variants: {} }]))
  const now = new Date().toISOString()
  return JSON.stringify({ appName: 'memory-bench', instanceId: 'memory-bench-1', bucket: { start: now, stop: now, toggles } })
}

async function bench(label: string, env: Record<string, string>): Promise<void> {
  const serverEnv = { ...env, INIT_ADMIN_API_TOKENS: TOKEN, SEGMENTS_LIMIT: '2000000000', AUTH_FAILURES_PER_MINUTE: '0' }
  const seeder = await startProcess('src/main.ts', serverEnv)
  // As `npm run bench` seeds: its flags first (seed.ts), the SDK cases' strategies on them next.
  await seedBenchData(seeder.url, TOKEN, env)
  const tokens = await seedSdkDataWithShape(seeder.url, TOKEN)
  await seeder.stop()
  const server = await startProcess('src/main.ts', { ...serverEnv, NODE_OPTIONS: '--inspect-port=127.0.0.1:0' })
  let session: Inspector | undefined
  try {
    const lines: string[] = []
    const report = (what: string) => {
      lines.push(`| ${what} | ${peakRssMb(server.pid).toFixed(0)} | ${rssMb(server.pid).toFixed(0)} |`)
    }
    report('started')
    const answers = await recordSdkAnswers(server.url, tokens)
    const flagNames = (JSON.parse(answers.features.body) as { features: { name: string }[] }).features.map((flag) => flag.name)
    for (const sdkCase of sdkCases(server.url, tokens, answers)) {
      const result = await load({ ...sdkCase.options, seconds: SECONDS }, server.pid)
      report(`after ${sdkCase.label}: ${result.requestsPerSecond.toFixed(0)} req/s`)
    }
    const metrics = await load(
      {
        url: `${server.url}/api/client/metrics`,
        method: 'POST',
        headers: { ...clientHeaders(tokens.client), 'content-type': 'application/json' },
        body: metricsBody(flagNames),
        expectedStatus: 202,
        seconds: SECONDS,
      },
      server.pid,
    )
    report(`after (h) POST /api/client/metrics, 50 flags: ${metrics.requestsPerSecond.toFixed(0)} req/s`)
    console.log(`\n${label}\n`)
    console.log('| when | peak RSS MB | RSS MB |')
    console.log('|---|---|---|')
    for (const line of lines) console.log(line)
    session = await inspectorSwitchedOn(server)
    const memory = await memoryAfterCollection(session)
    console.log(
      `\nthen, the inspector switched on, after a full collection: RSS ${memory.rss.toFixed(0)} MB, ` +
        `V8 heap ${memory.heap.toFixed(1)} MB, outside the heap ${memory.external.toFixed(1)} MB`,
    )
    console.log(`\n${(await largestKinds(session, 15)).join('\n')}`)
  } finally {
    session?.close()
    await server.stop()
  }
}

await warmCompileCache()
const dir = mkdtempSync(join(tmpdir(), 'pennon-memory-'))
try {
  await bench('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL) {
  await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'memory', (url) => bench('PostgreSQL', { DATABASE_URL: url }))
}
