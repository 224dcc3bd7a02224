/**
 * `npm run bench`: Pennon as a real listening server on SQLite (and on PostgreSQL when
 * BENCH_DATABASE_URL is set), seeded with 1,000 flags, 200 dependencies and 10,000
 * events, under autocannon load (10 connections, 2 s warm-up discarded, 10 s measured,
 * median of BENCH_RUNS runs, default 3), beside bare node:http ceilings. Then, on the same
 * server, the SDK cases (f), (f′), (g) and (g620) (sdk-data.ts: 3 strategies for each of the 1,000 flags,
 * a client and a frontend token; (g620): issue 35's shape, frontend-data.ts), each in turn with node:http replaying its answers
 * (sdk-bench.ts); by themselves: bench/client-features.ts, bench/frontend.ts.
 * Then (h) SDK metrics (bench/client-metrics.ts), (i) and (j) the playground (bench/playground.ts),
 * (k) and (l) sign-in and session reads (bench/sessions.ts), the 1,000,000-event project read, and one change fanned out to 10,000 streams, with a SIGKILL
 * under them (bench/streaming-fanout.ts --kill) (skip each with BENCH_METRICS=0, BENCH_PLAYGROUND=0,
 * BENCH_SESSIONS=0, BENCH_MILLION=0, BENCH_STREAMING=0), and (o) OpenFeature beside the frontend API (bench/openfeature.ts;
 * BENCH_OPENFEATURE=0).
 *   npm run bench
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import {
  measure,
  ROW_HEADER,
  rowCells,
  RUNS,
  SECONDS,
  startProcess,
  warmCompileCache,
  WARMUP_SECONDS,
  withFreshPostgres,
  printMarkdownTable,
  type Row,
} from './lib.ts'
import { seedBenchData, BATCH, FLAG_WITH_100_EVENTS, batchNotAskedBefore } from './seed.ts'
import { seedSdkDataWithShape } from './sdk-data.ts'
import { measureSdkCases, sharesText } from './sdk-bench.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

/** The reference server on this machine class, same data and load (requests/s). */
const REFERENCE: Record<string, number> = { a: 1000, 'a-new': 1000, b: 600, c: 650, d: 850, e: 410 }
/** The ceiling (a row key of benchCeilings) each case is compared with first; the SDK cases carry their own shares. */
const CEILING_OF: Record<string, string> = { a: 'post', 'a-new': 'post', b: 'cached', c: 'cached-c', d: 'cached', e: 'post' }

let uniqueSegment = 0
let uniqueBatch = 0
const json = { 'content-type': 'application/json', authorization: TOKEN }

/** The bodies of (b) and (c) as Pennon answered them: the ceilings answer the same bytes. */
interface Bodies {
  lastHundred: string
  project: string
}

async function benchPennon(databaseName: string, env: Record<string, string>): Promise<{ rows: Row[]; bodies: Bodies }> {
  const server = await startProcess('src/main.ts', {
    ...env,
    INIT_ADMIN_API_TOKENS: TOKEN,
    SEGMENTS_LIMIT: '2000000000',
    AUTH_FAILURES_PER_MINUTE: '0',
  })
  try {
    await seedBenchData(server.url, TOKEN, env)
    const read = async (path: string) => (await fetch(`${server.url}${path}`, { headers: { authorization: TOKEN } })).text()
    const bodies: Bodies = { lastHundred: await read('/api/admin/events'), project: await read('/api/admin/events?project=default') }
    const rows = [
      await measure(
        '(a) POST archive/validate, 10 names',
        'a',
        {
          url: `${server.url}/api/admin/projects/default/archive/validate`,
          method: 'POST',
          headers: json,
          body: JSON.stringify({ features: BATCH }),
        },
        server,
      ),
      await measure(
        '(a′) the same, with a batch not asked before',
        'a-new',
        {
          url: `${server.url}/api/admin/projects/default/archive/validate`,
          method: 'POST',
          headers: json,
          makeBody: () => JSON.stringify({ features: batchNotAskedBefore(++uniqueBatch) }),
        },
        server,
      ),
      await measure(
        '(b) GET /events (last 100)',
        'b',
        { url: `${server.url}/api/admin/events`, headers: { authorization: TOKEN } },
        server,
      ),
      await measure(
        '(c) GET /events?project=default (all 10,000)',
        'c',
        {
          url: `${server.url}/api/admin/events?project=default`,
          headers: { authorization: TOKEN },
        },
        server,
      ),
      await measure(
        `(d) GET /events/${FLAG_WITH_100_EVENTS} (100)`,
        'd',
        {
          url: `${server.url}/api/admin/events/${FLAG_WITH_100_EVENTS}`,
          headers: { authorization: TOKEN },
        },
        server,
      ),
      await measure(
        '(e) POST /segments (unique names)',
        'e',
        {
          url: `${server.url}/api/admin/segments`,
          method: 'POST',
          headers: json,
          makeBody: () =>
            JSON.stringify({
              name: `bench-${process.pid}-${++uniqueSegment}`,
              constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b', 'c'] }],
            }),
        },
        server,
      ),
    ]
    // The SDK cases last: their strategies and segments (3,600 writes, with their events) would change (a)–(e)'s data.
    for (const row of rows) row.label = `${row.label} [${databaseName}]`
    rows.push(...(await measureSdkCases(server, await seedSdkDataWithShape(server.url, TOKEN), ['f', 'f304', 'g', 'g620'], databaseName)))
    return { rows, bodies }
  } finally {
    await server.stop()
  }
}

async function benchCeilings(bodies: Bodies): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-ceiling-'))
  const lastHundred = join(dir, 'last-hundred.json')
  const project = join(dir, 'project.json')
  writeFileSync(lastHundred, bodies.lastHundred)
  writeFileSync(project, bodies.project)
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ features: BATCH }) } as const
  const rows: Row[] = []
  try {
    // [row key, ceiling-server.ts mode, its file, label, load options]
    for (const [key, mode, file, label, options] of [
      ['cached', 'cached', lastHundred, 'ceiling: node:http, cached string of (b)', {}],
      ['stringify', 'stringify', lastHundred, 'ceiling: node:http, JSON.stringify of (b) per request', {}],
      ['fastify', 'fastify', lastHundred, 'ceiling: bare Fastify, cached bytes of (b)', {}],
      ['cached-c', 'cached', project, 'ceiling: node:http, cached bytes of (c)', {}],
      ['post', 'post', undefined, 'ceiling: node:http, tiny JSON POST', post],
      ['fastify-post', 'fastify-post', undefined, 'ceiling: bare Fastify, validated JSON POST of (a)', post],
    ] as const) {
      const server = await startProcess('bench/ceiling-server.ts', {}, file ? [mode, file] : [mode])
      try {
        rows.push(await measure(label, key, { url: server.url, ...options }, server))
      } finally {
        await server.stop()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}

function printTable(rows: Row[], ceilings: Row[]): void {
  const ceiling = (mode: string) => ceilings.find((r) => r.key === mode)!.requestsPerSecond
  const header = [...ROW_HEADER, 'non-2xx', '× reference', 'of ceiling']
  const lines = [...rows, ...ceilings].map((r) => {
    const reference = REFERENCE[r.key]
    const ceilingMode = CEILING_OF[r.key]
    const isPost = ceilingMode === 'post'
    return [
      ...rowCells(r),
      // Answers not of the expected status: not 2xx, or for (f′) not 304.
      String(r.unexpected + r.errors),
      reference ? `${(r.requestsPerSecond / reference).toFixed(1)}×` : '',
      r.shares
        ? sharesText(r)
        : ceilingMode
          ? `${((r.requestsPerSecond / ceiling(ceilingMode)) * 100).toFixed(0)}% of ${ceilingMode}` +
            (isPost ? `, ${((r.requestsPerSecond / ceiling('fastify-post')) * 100).toFixed(0)}% of fastify-post` : '') +
            (r.key === 'b' || r.key === 'd'
              ? `, ${((r.requestsPerSecond / ceiling('fastify')) * 100).toFixed(0)}% of fastify, ${((r.requestsPerSecond / ceiling('stringify')) * 100).toFixed(0)}% of stringify`
              : '')
          : '',
    ]
  })
  printMarkdownTable(header, lines)
}

const rows: Row[] = []
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-'))
let bodies: Bodies | undefined
try {
  console.log(
    `Pennon benchmark: ${RUNS} run(s) of ${SECONDS} s per case after ${WARMUP_SECONDS} s warm-up, 10 connections, node ${process.version}`,
  )
  await warmCompileCache()
  const sqlite = await benchPennon('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
  rows.push(...sqlite.rows)
  bodies = sqlite.bodies
  if (process.env.BENCH_DATABASE_URL) {
    const postgres = await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'all', (url) =>
      benchPennon('PostgreSQL', { DATABASE_URL: url }),
    )
    rows.push(...postgres.rows)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
printTable(rows, await benchCeilings(bodies))

// (h): SDK metrics posts, each stored count checked afterwards (skip with BENCH_METRICS=0).
if (process.env.BENCH_METRICS !== '0') {
  console.log('\n(h) SDK metrics:')
  const result = spawnSync(process.execPath, ['bench/client-metrics.ts'], { stdio: 'inherit', env: process.env })
  if (result.status !== 0) process.exitCode = 1
}

// (i), (j): the playground on the SDK cases' data (skip with BENCH_PLAYGROUND=0).
if (process.env.BENCH_PLAYGROUND !== '0') {
  console.log('\n(i), (j) the playground:')
  const result = spawnSync(process.execPath, ['bench/playground.ts'], { stdio: 'inherit', env: process.env })
  if (result.status !== 0) process.exitCode = 1
}

// (k), (l): signing in, and a read with a session cookie beside one with a token (skip with BENCH_SESSIONS=0).
if (process.env.BENCH_SESSIONS !== '0') {
  console.log('\n(k), (l) people: sign-in and session reads:')
  const result = spawnSync(process.execPath, ['bench/sessions.ts'], { stdio: 'inherit', env: process.env })
  if (result.status !== 0) process.exitCode = 1
}

if (process.env.BENCH_MILLION !== '0') {
  console.log('\n1,000,000 events of one project, streamed:')
  const result = spawnSync(process.execPath, ['bench/events-project-million.ts'], { stdio: 'inherit', env: process.env })
  if (result.status !== 0) process.exitCode = 1
}

// (o): OpenFeature (OFREP) bulk and single-flag beside the frontend API (skip with BENCH_OPENFEATURE=0).
if (process.env.BENCH_OPENFEATURE !== '0') {
  console.log('\n(o) OpenFeature (OFREP) beside the frontend API:')
  const result = spawnSync(process.execPath, ['bench/openfeature.ts'], { stdio: 'inherit', env: process.env })
  if (result.status !== 0) process.exitCode = 1
}

// One change to 10,000 SSE streams, then the streams' server killed and restarted (skip with BENCH_STREAMING=0).
if (process.env.BENCH_STREAMING !== '0') {
  console.log('\nOne change fanned out to 10,000 streams:')
  const result = spawnSync(process.execPath, ['bench/streaming-fanout.ts', '--kill'], { stdio: 'inherit', env: process.env })
  if (result.status !== 0) process.exitCode = 1
}
