/**
 * Hostile SDK metrics: what a stream of junk posted with a frontend token (public: it ships inside
 * web and mobile apps) costs Pennon. Pennon listens on 127.0.0.1 in a process of its own, on a
 * temporary SQLite file — and on a fresh PostgreSQL database beside BENCH_DATABASE_URL — with 3
 * flags (one with variants) and the limits at their defaults (docs/metrics.md, "Limits").
 *
 * 1. A legitimate browser app (`web-shop`) registers and reports once.
 * 2. BENCH_HOSTILE_REQUESTS (default 100,000) posts over 10 connections with one frontend token,
 *    4 in 5 to /api/frontend/client/metrics and 1 in 5 to /register: random application names
 *    (1 in 10 `web-shop` itself), instance ids and SDK versions, each real flag with 40 random
 *    variant names, 40 unknown flag names, a bucket `stop` anywhere within ±5 days; registrations
 *    with 50 strategy names of 100 characters.
 * 3. The costliest bodies, LARGEST times each, one at a time: as many variants of one flag, unknown
 *    flag names, invalid counts, or bulk entries of new applications as fit in the metrics body
 *    limit (256 KiB), and a 1 MB body (413): the server CPU per request.
 * 4. `web-shop` and a new app with another frontend token report again; the flag's admin read.
 * Then Pennon is stopped (SIGTERM writes what it holds) and the rows and sizes are read.
 *   node bench/hostile-metrics.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/hostile-metrics.ts
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { DatabaseSync } from 'node:sqlite'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'
import { cpuSeconds, peakRssMb, startProcess, withFreshPostgres } from './lib.ts'

const REQUESTS = Number(process.env.BENCH_HOSTILE_REQUESTS ?? 100_000)
const CONNECTIONS = 10
const LARGEST = 30
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const FLAGS = ['checkout', 'search', 'banner']
const TABLES = [
  'client_applications',
  'client_applications_usage',
  'client_instances',
  'client_metrics_env',
  'client_metrics_env_variants',
  'last_seen_at_metrics',
]

// Random names cut from one pool of random hex at random places: cheap enough that the client is not what limits the rate.
const POOL = randomBytes(1 << 20).toString('hex')
const random = (length = 12) => {
  const at = Math.floor(Math.random() * (POOL.length - length))
  return POOL.slice(at, at + length)
}
const DAY = 86_400_000

/** Resident memory now, in MB (Linux VmRSS). */
const rssMb = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)?.[1] ?? Number.NaN) / 1024

function hostileMetrics(): string {
  const toggles: Record<string, unknown> = {}
  for (const flag of FLAGS)
    toggles[flag] = { yes: 1, no: 1, variants: Object.fromEntries(Array.from({ length: 40 }, () => [random(16), 1])) }
  for (let i = 0; i < 40; i++) toggles[`ghost-${random(20)}`] = { yes: 1 }
  const stop = new Date(Date.now() + (Math.random() * 10 - 5) * DAY).toISOString()
  return JSON.stringify({
    appName: Math.random() < 0.1 ? 'web-shop' : `app-${random(24)}`,
    instanceId: random(32),
    sdkVersion: `unleash-js-sdk:${random(200)}`,
    bucket: { start: stop, stop, toggles },
  })
}

function hostileRegistration(): string {
  return JSON.stringify({
    appName: Math.random() < 0.1 ? 'web-shop' : `app-${random(24)}`,
    instanceId: random(32),
    sdkVersion: `unleash-js-sdk:${random(200)}`,
    strategies: Array.from({ length: 50 }, () => random(100)),
    started: new Date().toISOString(),
    interval: 1000,
  })
}

const bucket = (toggles: Record<string, unknown>) => ({ start: new Date().toISOString(), stop: new Date().toISOString(), toggles })

const LIMIT = 256 * 1024
/** A body of `make(n)` with the largest n whose JSON fits in the metrics body limit (256 KiB). */
function largestOf(make: (n: number) => unknown, perEntry: number): string {
  let n = Math.floor(LIMIT / perEntry)
  let body = JSON.stringify(make(n))
  while (Buffer.byteLength(body) > LIMIT) body = JSON.stringify(make((n = Math.floor(n * 0.98))))
  return body
}

/** The costliest bodies an attacker can send: objects of as many keys as fit, an Edge post of as many new applications, and one over the limit. */
const largest: Array<{ label: string; path: string; body: () => string; token: 'frontend' | 'client'; status?: number }> = [
  {
    label: 'variants of one flag',
    path: '/api/frontend/client/metrics',
    token: 'frontend',
    body: () =>
      largestOf(
        (n) => ({
          appName: 'web-shop',
          bucket: bucket({ checkout: { yes: 1, variants: Object.fromEntries(Array.from({ length: n }, () => [random(12), 1])) } }),
        }),
        17,
      ),
  },
  {
    label: 'unknown flag names',
    path: '/api/frontend/client/metrics',
    token: 'frontend',
    body: () =>
      largestOf(
        (n) => ({
          appName: 'web-shop',
          bucket: bucket(Object.fromEntries(Array.from({ length: n }, () => [`g-${random(12)}`, { yes: 1 }]))),
        }),
        27,
      ),
  },
  {
    label: 'invalid counts (a 400 listing 50 of them)',
    path: '/api/frontend/client/metrics',
    token: 'frontend',
    status: 400,
    body: () =>
      largestOf(
        (n) => ({
          appName: 'web-shop',
          bucket: bucket(Object.fromEntries(Array.from({ length: n }, () => [`g-${random(12)}`, { yes: -1 }]))),
        }),
        28,
      ),
  },
  {
    label: 'bulk entries of new applications',
    path: '/api/client/metrics/bulk',
    token: 'client',
    body: () =>
      largestOf(
        (n) => ({
          applications: [],
          metrics: Array.from({ length: n }, () => ({
            featureName: 'checkout',
            appName: `a-${random(8)}`,
            environment: 'development',
            yes: 1,
          })),
        }),
        87,
      ),
  },
  {
    label: '1 MB of variants (413)',
    path: '/api/frontend/client/metrics',
    token: 'frontend',
    status: 413,
    body: () =>
      JSON.stringify({
        appName: 'web-shop',
        bucket: bucket({ checkout: { yes: 1, variants: Object.fromEntries(Array.from({ length: 60_000 }, () => [random(12), 1])) } }),
      }),
  },
]

async function api(
  base: string,
  method: string,
  path: string,
  body: unknown,
  token = TOKEN,
): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now()
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, text, ms: performance.now() - started }
}

async function admin(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await api(base, method, path, body)
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.text}`)
  return response.text === '' ? undefined : JSON.parse(response.text)
}

interface Stored {
  rows: Record<string, number>
  bytes: string
  webShop: number
  newcomer: number
}

async function readStored(env: Record<string, string>): Promise<Stored> {
  const count = `select count(*) as n from`
  const legit = (app: string) =>
    `select coalesce(sum(yes), 0) as n from client_metrics_env where app_name = '${app}' and feature_name = 'banner'`
  if (env.DATABASE_FILE) {
    const file = env.DATABASE_FILE
    const size = (path: string) => {
      try {
        return statSync(path).size
      } catch {
        return 0
      }
    }
    const bytes = `${(size(file) / 1e6).toFixed(1)} MB file + ${(size(`${file}-wal`) / 1e6).toFixed(1)} MB WAL`
    const db = new DatabaseSync(file, { readOnly: true })
    try {
      const one = (query: string) => Number((db.prepare(query).get() as { n: number }).n)
      return {
        rows: Object.fromEntries(TABLES.map((table) => [table, one(`${count} ${table}`)])),
        bytes,
        webShop: one(legit('web-shop')),
        newcomer: one(legit('newcomer')),
      }
    } finally {
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: env.DATABASE_URL })
  await client.connect()
  try {
    const one = async (query: string) => Number((await client.query(query)).rows[0].n)
    const rows: Record<string, number> = {}
    for (const table of TABLES) rows[table] = await one(`${count} ${table}`)
    const total = await one(
      `select sum(pg_total_relation_size(c.oid)) as n from pg_class c where c.relname in (${TABLES.map((t) => `'${t}'`).join(', ')}) and c.relkind = 'r'`,
    )
    return {
      rows,
      bytes: `${(total / 1e6).toFixed(1)} MB (tables with their indexes)`,
      webShop: await one(legit('web-shop')),
      newcomer: await one(legit('newcomer')),
    }
  } finally {
    await client.end()
  }
}

async function benchPennon(label: string, env: Record<string, string>): Promise<void> {
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0' })
  let stopped = false
  try {
    const base = server.url
    for (const flag of FLAGS) {
      await admin(base, 'POST', '/api/admin/projects/default/features', { name: flag })
      await admin(base, 'POST', `/api/admin/projects/default/features/${flag}/environments/development/on`)
    }
    await admin(base, 'PUT', '/api/admin/projects/default/features/checkout/environments/development/variants', [
      { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
      { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default' },
    ])
    const frontend = (await admin(base, 'POST', '/api/admin/api-tokens', { tokenName: 'web', type: 'frontend' })).secret as string
    const otherFrontend = (await admin(base, 'POST', '/api/admin/api-tokens', { tokenName: 'mobile', type: 'frontend' })).secret as string
    const client = (await admin(base, 'POST', '/api/admin/api-tokens', { tokenName: 'edge', type: 'client' })).secret as string
    const legit = (app: string) => ({
      appName: app,
      instanceId: 'browser',
      bucket: bucket({ banner: { yes: 5, no: 1 }, checkout: { yes: 2, variants: { blue: 1, green: 1 } } }),
    })
    const ok = async (response: Promise<{ status: number; text: string }>) => {
      const { status, text } = await response
      if (status !== 200) throw new Error(`legitimate report: ${status} ${text}`)
    }
    await ok(
      api(
        base,
        'POST',
        '/api/frontend/client/register',
        {
          appName: 'web-shop',
          instanceId: 'browser',
          sdkVersion: 'unleash-js-sdk:3.8.2',
          strategies: [],
          started: new Date().toISOString(),
          interval: 30000,
        },
        frontend,
      ),
    )
    await ok(api(base, 'POST', '/api/frontend/client/metrics', legit('web-shop'), frontend))
    await sleep(1500)
    const rssBefore = rssMb(server.pid)

    const cpuBefore = cpuSeconds(server.pid)
    const started = performance.now()
    let sent = 0
    const result = await autocannon({
      url: `${base}/api/frontend/client/metrics`,
      method: 'POST',
      headers: { authorization: frontend, 'content-type': 'application/json' },
      connections: CONNECTIONS,
      amount: REQUESTS,
      requests: [
        {
          setupRequest: (request: any) => {
            const register = ++sent % 5 === 0
            return {
              ...request,
              path: register ? '/api/frontend/client/register' : '/api/frontend/client/metrics',
              body: register ? hostileRegistration() : hostileMetrics(),
            }
          },
        },
      ],
    } as autocannon.Options)
    const seconds = (performance.now() - started) / 1000
    const cpu = cpuSeconds(server.pid) - cpuBefore
    const statuses = Object.entries(result.statusCodeStats ?? {})
      .map(([code, { count }]) => `${count} × ${code}`)
      .join(', ')
    const rssAfter = rssMb(server.pid)
    const peak = peakRssMb(server.pid)

    const perRequest: string[] = []
    for (const shape of largest) {
      const token = shape.token === 'frontend' ? frontend : client
      const bodies = Array.from({ length: LARGEST }, shape.body)
      const bytes = Buffer.byteLength(bodies[0]!)
      const before = cpuSeconds(server.pid)
      for (const body of bodies) {
        let status: number
        try {
          const answer = await fetch(`${base}${shape.path}`, {
            method: 'POST',
            headers: { authorization: token, 'content-type': 'application/json' },
            body,
          })
          await answer.arrayBuffer()
          status = answer.status
        } catch (error) {
          // A body over the limit is answered 413 from its Content-Length, and the connection closed before it is all sent.
          if (shape.status !== 413) throw error
          status = 413
        }
        if (shape.status === undefined ? status >= 300 : status !== shape.status) throw new Error(`${shape.label}: ${status}`)
      }
      const keys = (bodies[0]!.match(/":/g) ?? []).length
      perRequest.push(
        `${shape.label} (${(bytes / 1024).toFixed(0)} KiB, ${keys.toLocaleString('en-US')} keys): ${(((cpuSeconds(server.pid) - before) / LARGEST) * 1000).toFixed(0)} ms CPU per request`,
      )
    }

    await ok(api(base, 'POST', '/api/frontend/client/metrics', legit('web-shop'), frontend))
    await ok(api(base, 'POST', '/api/frontend/client/metrics', legit('newcomer'), otherFrontend))
    await sleep(2500)
    const reads = []
    for (let i = 0; i < 5; i++) reads.push(await api(base, 'GET', '/api/admin/client-metrics/features/checkout', undefined))
    const read = reads.sort((a, b) => a.ms - b.ms)[2]!
    await sleep(10_000)
    const rssIdle = rssMb(server.pid)
    await server.stop()
    stopped = true
    const stored = await readStored(env)

    console.log(
      `\nPennon [${label}]: ${REQUESTS} hostile posts in ${seconds.toFixed(1)} s (${(REQUESTS / seconds).toFixed(0)} req/s): ${statuses}; errors ${result.errors + result.timeouts}`,
    )
    console.log(
      `  server CPU ${((cpu / REQUESTS) * 1000).toFixed(2)} ms per hostile post; RSS ${rssBefore.toFixed(0)} MB before → ${rssAfter.toFixed(0)} MB after (peak ${peak.toFixed(0)} MB) → ${rssIdle.toFixed(0)} MB after 10 s idle`,
    )
    for (const line of perRequest) console.log(`  ${line}`)
    console.log(
      `  GET /api/admin/client-metrics/features/checkout: ${Buffer.byteLength(read.text)} bytes, median of 5 ${read.ms.toFixed(1)} ms`,
    )
    console.log(
      `  rows: ${Object.entries(stored.rows)
        .map(([table, n]) => `${table} ${n}`)
        .join(', ')}`,
    )
    console.log(`  database: ${stored.bytes}`)
    const legitOk = stored.webShop >= 10 && stored.newcomer === 5
    console.log(
      `  legitimate reports afterwards: web-shop banner yes ${stored.webShop} (≥ 10: its two reports, plus what impersonating posts sent), newcomer ${stored.newcomer} (5): ${legitOk ? 'stored' : 'NOT stored'}`,
    )
    if (!legitOk) process.exitCode = 1
  } finally {
    if (!stopped) await server.stop()
  }
}

console.log(
  `Hostile metrics: ${REQUESTS} posts with a frontend token over ${CONNECTIONS} connections, then the largest bodies ${LARGEST} times each; node ${process.version}`,
)
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-hostile-'))
try {
  await benchPennon('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (process.env.BENCH_DATABASE_URL) {
  await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'hostile', (url) => benchPennon('PostgreSQL', { DATABASE_URL: url }))
}
