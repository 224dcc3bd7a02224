/**
 * (h) SDK metrics under load: Pennon listening on 127.0.0.1 (random port) in a process of its own,
 * on a temporary SQLite file — and on a fresh PostgreSQL database created beside
 * BENCH_DATABASE_URL — with 50 flags. autocannon posts the same 50-flag bucket (the body
 * unleash-client sends, with variants on some flags) to POST /api/client/metrics with a client
 * token over 10 connections: a 2 s warm-up under another application name, then exactly
 * BENCH_METRICS_REQUESTS (default 60,000) requests, so that every request sent is answered.
 * The same bytes are posted to a bare node:http server that reads and parses them (the ceiling).
 * Then Pennon is stopped (SIGTERM: closing writes what it holds) and the stored counts of the
 * measured application are read from the database: they must equal the acknowledged requests ×
 * the bucket's counts, flag by flag and variant by variant, or the script fails.
 *   node bench/client-metrics.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/client-metrics.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { DatabaseSync } from 'node:sqlite'
import autocannon from 'autocannon'
import pg from 'pg'
import { cpuSeconds, peakRssMb, startProcess, withFreshPostgres } from './lib.ts'

const REQUESTS = Number(process.env.BENCH_METRICS_REQUESTS ?? 60_000)
const WARMUP_SECONDS = 2
const CONNECTIONS = 10
const FLAGS = 50
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const flagName = (i: number) => `metrics-flag-${String(i).padStart(2, '0')}`

/** The bucket an SDK sends after an interval: every flag counted, every tenth with variants. */
function bucketFor(appName: string): { body: string; yes: Map<string, number>; no: Map<string, number>; variants: Map<string, number> } {
  const yes = new Map<string, number>()
  const no = new Map<string, number>()
  const variants = new Map<string, number>()
  const toggles: Record<string, { yes: number; no: number; variants: Record<string, number> }> = {}
  for (let i = 0; i < FLAGS; i++) {
    const counts = { yes: (i % 5) + 1, no: i % 3, variants: {} as Record<string, number> }
    if (i % 10 === 0) {
      counts.variants = { blue: counts.yes, disabled: counts.no }
      variants.set(`${flagName(i)}/blue`, counts.yes)
      if (counts.no > 0) variants.set(`${flagName(i)}/disabled`, counts.no)
    }
    toggles[flagName(i)] = counts
    yes.set(flagName(i), counts.yes)
    no.set(flagName(i), counts.no)
  }
  const now = new Date()
  const body = {
    appName,
    instanceId: `${appName}-1`,
    connectionId: 'bench',
    bucket: { start: new Date(now.getTime() - 60_000).toISOString(), stop: now.toISOString(), toggles },
    platformName: 'node',
    platformVersion: process.versions.node,
    yggdrasilVersion: null,
    specVersion: '5.2.0',
  }
  return { body: JSON.stringify(body), yes, no, variants }
}

interface Run {
  ok: number
  non2xx: number
  errors: number
  requestsPerSecond: number
  p50: number
  p99: number
  cpuPercent: number
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  serverPid: number,
  limit: { amount: number } | { duration: number },
): Promise<Run> {
  const cpuBefore = cpuSeconds(serverPid)
  const started = performance.now()
  const result = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, ...limit } as autocannon.Options)
  const elapsed = (performance.now() - started) / 1000
  return {
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    requestsPerSecond: result['2xx'] / elapsed,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPercent: ((cpuSeconds(serverPid) - cpuBefore) / elapsed) * 100,
  }
}

async function admin(base: string, method: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response.json()
}

interface Stored {
  counts: Array<{ feature_name: string; yes: number; no: number; rows: number }>
  variants: Array<{ feature_name: string; variant: string; count: number }>
}

const COUNTS_SQL = `select feature_name, cast(sum(yes) as bigint) as yes, cast(sum("no") as bigint) as "no", count(*) as "rows" from client_metrics_env where app_name = 'bench' group by feature_name`
const VARIANTS_SQL = `select feature_name, variant, cast(sum("count") as bigint) as "count" from client_metrics_env_variants where app_name = 'bench' group by feature_name, variant`

async function readStored(env: Record<string, string>): Promise<Stored> {
  if (env.DATABASE_FILE) {
    const db = new DatabaseSync(env.DATABASE_FILE, { readOnly: true })
    try {
      return {
        counts: db.prepare(COUNTS_SQL).all() as unknown as Stored['counts'],
        variants: db.prepare(VARIANTS_SQL).all() as unknown as Stored['variants'],
      }
    } finally {
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: env.DATABASE_URL })
  await client.connect()
  try {
    return { counts: (await client.query(COUNTS_SQL)).rows, variants: (await client.query(VARIANTS_SQL)).rows }
  } finally {
    await client.end()
  }
}

/** Every flag and variant stored exactly `acknowledged` × its count in the bucket, in one row per flag: the problems found. */
function checkCounted(stored: Stored, bucket: ReturnType<typeof bucketFor>, acknowledged: number): string[] {
  const problems: string[] = []
  const byFlag = new Map(stored.counts.map((row) => [row.feature_name, row]))
  for (const [flag, yes] of bucket.yes) {
    const row = byFlag.get(flag)
    const expected = { yes: yes * acknowledged, no: bucket.no.get(flag)! * acknowledged }
    if (!row || Number(row.yes) !== expected.yes || Number(row.no) !== expected.no || Number(row.rows) !== 1) {
      problems.push(
        `${flag}: stored ${row ? `yes ${row.yes}, no ${row.no} in ${row.rows} row(s)` : 'nothing'}, expected yes ${expected.yes}, no ${expected.no} in 1 row`,
      )
    }
  }
  if (stored.counts.length !== bucket.yes.size) problems.push(`${stored.counts.length} flags stored, ${bucket.yes.size} sent`)
  const variants = new Map(stored.variants.map((row) => [`${row.feature_name}/${row.variant}`, Number(row.count)]))
  for (const [key, count] of bucket.variants) {
    if (variants.get(key) !== count * acknowledged) problems.push(`${key}: stored ${variants.get(key)}, expected ${count * acknowledged}`)
  }
  if (variants.size !== bucket.variants.size) problems.push(`${variants.size} variant counts stored, ${bucket.variants.size} sent`)
  return problems
}

const line = (label: string, run: Run, extra = '') =>
  `${label}: ${run.requestsPerSecond.toFixed(0)} req/s, p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, non-2xx ${run.non2xx}, errors ${run.errors}, server CPU ${run.cpuPercent.toFixed(0)}%${extra}`

async function benchPennon(label: string, env: Record<string, string>): Promise<number> {
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0' })
  const measured = bucketFor('bench')
  let run: Run
  let stopped = false
  try {
    for (let i = 0; i < FLAGS; i++) await admin(server.url, 'POST', '/api/admin/projects/default/features', { name: flagName(i) })
    const { secret } = await admin(server.url, 'POST', '/api/admin/api-tokens', { tokenName: 'bench-metrics', type: 'client' })
    const headers = { 'content-type': 'application/json', authorization: secret }
    const url = `${server.url}/api/client/metrics`
    await post(url, headers, bucketFor('warm-up').body, server.pid, { duration: WARMUP_SECONDS })
    run = await post(url, headers, measured.body, server.pid, { amount: REQUESTS })
    const rss = peakRssMb(server.pid)
    // Closing writes what Pennon holds: then the database has every acknowledged count.
    await server.stop()
    stopped = true
    const problems = checkCounted(await readStored(env), measured, run.ok)
    const counted =
      problems.length === 0 ? `all counted (${run.ok} acknowledged × the bucket)` : `NOT all counted: ${problems.slice(0, 5).join('; ')}`
    console.log(line(`Pennon [${label}]`, run, `, peak RSS ${rss.toFixed(0)} MB, ${counted}`))
    if (problems.length > 0 || run.non2xx + run.errors > 0) process.exitCode = 1
    return run.requestsPerSecond
  } finally {
    if (!stopped) await server.stop()
  }
}

console.log(
  `(h) POST /api/client/metrics, a ${FLAGS}-flag bucket (${Buffer.byteLength(bucketFor('bench').body)} bytes): ${REQUESTS} requests after ${WARMUP_SECONDS} s warm-up, ` +
    `${CONNECTIONS} connections, node ${process.version}`,
)
const figures: Array<[string, number]> = []
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-metrics-'))
try {
  figures.push(['SQLite', await benchPennon('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })])
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL) {
  figures.push([
    'PostgreSQL',
    await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'metrics', (url) => benchPennon('PostgreSQL', { DATABASE_URL: url })),
  ])
}

// The ceiling: node:http reading and parsing the same bytes, answering a small JSON.
const ceiling = await startProcess('bench/ceiling-server.ts', {}, ['post'])
try {
  const headers = { 'content-type': 'application/json' }
  const body = bucketFor('bench').body
  await post(ceiling.url, headers, body, ceiling.pid, { duration: WARMUP_SECONDS })
  const run = await post(ceiling.url, headers, body, ceiling.pid, { amount: REQUESTS })
  console.log(line('ceiling: node:http, the same POST read and parsed', run))
  for (const [label, rate] of figures)
    console.log(
      `Pennon [${label}]: ${((rate / run.requestsPerSecond) * 100).toFixed(0)}% of the ceiling; target 5,000 req/s: ${rate >= 5000 ? 'met' : 'NOT met'}`,
    )
} finally {
  await ceiling.stop()
}
