/**
 * `npm run bench:guard` (run by .ci/run after the tests): a guard against the SDK hot paths
 * getting slower. One process, Pennon in it (SQLite, a temporary file) listening on 127.0.0.1 with
 * issue 35's data (bench/frontend-data.ts: 1,000 flags × 3 strategies, 20 segments), and beside
 * it a bare node:http server answering the same bytes: the ceiling (for g620, whose answer is
 * computed per request, node:http computing the same answer's JSON per request with JSON.stringify). autocannon, in a worker thread,
 * sends each a fixed number of requests of each case, in turns:
 *   f     GET /api/client/features, the full answer (client token, spec 5.2.0)
 *   f304  the same with If-None-Match: its ETag → 304
 *   g620  GET /api/frontend with a random context per request (~610 toggles, ~100 KB)
 *   h     POST /api/client/metrics, a 50-flag bucket
 *   g620-eval  no HTTP: evaluateAll over the same flags for 200 random contexts, against
 *         JSON.stringify of the toggles it gave (the evaluation alone, where a regression of the
 *         evaluator shows at full size rather than diluted by the request's other work)
 * The main thread's CPU time (process.threadCpuUsage: the servers', not the load generator's)
 * per request gives, for each case, the ratio `ceiling's CPU per request ÷ Pennon's` — a share of
 * the ceiling, so a slower or busier machine moves both sides alike. The median of GUARD_ROUNDS
 * rounds (default 9; short turns, so that both sides of a round meet the same machine) is compared with bench/guard-baseline.json: the guard fails when a ratio
 * falls more than the file's `margin` below its figure. `--update` writes the ratios measured
 * into the file instead (commit it with the change that moved them).
 *   npm run bench:guard
 *   npm run bench:guard -- --update
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { tmpdir, loadavg } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Worker } from 'node:worker_threads'
import { PENNON_NODE_ENV, PENNON_NODE_FLAGS } from './lib.ts'
import { importFrontendShape, shapeContextQuery, shapeFlagName } from './frontend-data.ts'
import type { LoadAnswer, LoadRequest } from './guard-load.ts'

if (!process.execArgv.includes('--no-maglev')) {
  const run = spawnSync(process.execPath, [...PENNON_NODE_FLAGS, ...process.execArgv, import.meta.filename, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, ...PENNON_NODE_ENV },
  })
  process.exit(run.status ?? 1)
}

const { loadConfig } = await import('../src/config.ts')
const { createDb } = await import('../src/db/database.ts')
const { migrateToLatest } = await import('../src/db/migrate.ts')
const { buildApp } = await import('../src/app.ts')
const { createTokenService } = await import('../src/features/api-tokens/token-service.ts')
const { environmentExists } = await import('../src/features/environments/environment-store.ts')
const { lockSigningInAdmins } = await import('../src/features/users/user-store.ts')
const { createEvaluator } = await import('../src/features/evaluation/evaluate.ts')
const { contextFrom } = await import('../src/features/client-api/frontend-service.ts')

const BASELINE_FILE = new URL('./guard-baseline.json', import.meta.url)
const ROUNDS = Number(process.env.GUARD_ROUNDS ?? 9)
/** GUARD_CASES=g620,h: only those (a profile of one, say). */
const ONLY = process.env.GUARD_CASES?.split(',')
const update = process.argv.includes('--update')
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const started = process.hrtime.bigint()
const seconds = () => (Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)

interface Baseline {
  /** How far below its figure a ratio may fall, as a fraction of it; `margins` overrides it per case. */
  margin: number
  margins?: Record<string, number>
  ratios: Record<string, number>
  note?: string
}
const marginOf = (baseline: Baseline, key: string) => baseline.margins?.[key] ?? baseline.margin

// Pennon, as main.ts starts it, in this process.
const dir = mkdtempSync(join(tmpdir(), 'pennon-guard-'))
const config = loadConfig({
  ...process.env,
  DATABASE_URL: '',
  DATABASE_FILE: join(dir, 'pennon.sqlite'),
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'warn',
  INIT_ADMIN_API_TOKENS: TOKEN,
  AUTH_FAILURES_PER_MINUTE: '0',
  SEGMENTS_LIMIT: '2000000000',
})
const database = createDb({ databaseUrl: config.databaseUrl, databaseFile: config.databaseFile })
await migrateToLatest(database.db, async () => {
  await createTokenService({ db: database.db, lockSigningInAdmins, environmentExists }).bootstrap(config.initAdminApiTokens, true)
})
const app = await buildApp({ config, database })
await app.listen({ port: 0, host: '127.0.0.1' })
const pennon = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

// The ceiling: node:http answering what Pennon answered, as set for each case.
let answerOf: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end()
const ceilingServer = createServer((request, response) => answerOf(request, response))
await new Promise<void>((resolve) => ceilingServer.listen(0, '127.0.0.1', resolve))
const ceiling = `http://127.0.0.1:${(ceilingServer.address() as { port: number }).port}`

const worker = new Worker(new URL('./guard-load.ts', import.meta.url))
let pending: { resolve: (answer: LoadAnswer) => void; reject: (error: Error) => void } | undefined
worker.on('message', (answer: LoadAnswer) => pending?.resolve(answer))
worker.on('error', (error) => pending?.reject(error))
const send = (request: LoadRequest) =>
  new Promise<LoadAnswer>((resolve, reject) => {
    pending = { resolve, reject }
    worker.postMessage(request)
  })

const threadCpu = () => {
  const { user, system } = process.threadCpuUsage()
  return user + system
}

/** The main thread's CPU µs per request over `request.amount` requests. */
async function cpuPerRequest(request: LoadRequest): Promise<number> {
  const before = threadCpu()
  const answer = await send(request)
  const used = threadCpu() - before
  if (answer.unexpected > 0 || answer.errors > 0 || answer.expected !== request.amount) {
    throw new Error(
      `${request.method} ${request.url}: ${answer.expected} of ${request.amount} answered ${request.expectedStatus}, ${answer.unexpected} other, ${answer.errors} errors`,
    )
  }
  return used / request.amount
}

interface Recorded {
  status: number
  headers: Record<string, string>
  body: Buffer
}
const LEFT_TO_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])
async function record(url: string, init: RequestInit): Promise<Recorded> {
  const response = await fetch(url, init)
  const body = Buffer.from(await response.arrayBuffer())
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (!LEFT_TO_NODE.has(name)) headers[name] = value
  })
  return { status: response.status, headers, body }
}
const replay = (answer: Recorded) => (_request: IncomingMessage, response: ServerResponse) => {
  response.writeHead(answer.status, answer.headers)
  response.end(answer.status === 304 ? undefined : answer.body)
}
/**
 * Writes the answer's JSON anew for each request (JSON.stringify of it, parsed once), headers as
 * Pennon's: work of the same kind as Pennon's (JavaScript building ~100 KB of text), so that a
 * busy machine slows both sides alike, where bare replayed bytes cost mostly the system call.
 */
const stringifyThenReplay = (answer: Recorded) => {
  const parsed = JSON.parse(answer.body.toString())
  return (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(answer.status, answer.headers)
    response.end(Buffer.from(JSON.stringify(parsed)))
  }
}
/** Reads and parses the POST body as a server must, then answers as Pennon did. */
const parseThenReplay = (answer: Recorded) => (request: IncomingMessage, response: ServerResponse) => {
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk) => (body += chunk))
  request.on('end', () => {
    JSON.parse(body)
    replay(answer)(request, response)
  })
}

/** A metrics bucket as an SDK sends it: 50 of the flags, every tenth with variants. */
function metricsBody(): string {
  const toggles: Record<string, { yes: number; no: number; variants: Record<string, number> }> = {}
  for (let i = 0; i < 50; i++)
    toggles[shapeFlagName(i * 20)] = { yes: (i % 5) + 1, no: i % 3, variants: i % 10 === 0 ? { blue: (i % 5) + 1 } : {} }
  const now = new Date()
  return JSON.stringify({
    appName: 'guard',
    instanceId: 'guard-1',
    connectionId: 'guard',
    bucket: { start: new Date(now.getTime() - 60_000).toISOString(), stop: now.toISOString(), toggles },
    platformName: 'node',
    platformVersion: process.versions.node,
    yggdrasilVersion: null,
    specVersion: '5.2.0',
  })
}

interface GuardCase {
  key: string
  label: string
  request: Omit<LoadRequest, 'url' | 'amount'> & { path: string }
  /** Requests per turn, and in the warm-up. */
  amount: number
  ceiling: (request: IncomingMessage, response: ServerResponse) => void
}

let exitCode = 0
try {
  const tokens = await importFrontendShape(pennon, TOKEN)
  console.log(`seeded in ${seconds()} s (issue 35's shape: 1,000 flags × 3 strategies, 20 segments)`)
  const client = { authorization: tokens.client, 'unleash-client-spec': '5.2.0' }
  const features = await record(`${pennon}/api/client/features`, { headers: client })
  const notModified = await record(`${pennon}/api/client/features`, { headers: { ...client, 'if-none-match': features.headers.etag! } })
  const frontends: Recorded[] = []
  for (let k = 0; k < 21; k++)
    frontends.push(await record(`${pennon}/api/frontend?${shapeContextQuery()}`, { headers: { authorization: tokens.frontend } }))
  frontends.sort((a, b) => a.body.length - b.body.length)
  const metricsHeaders = { ...client, 'content-type': 'application/json' }
  const metrics = await record(`${pennon}/api/client/metrics`, { method: 'POST', headers: metricsHeaders, body: metricsBody() })
  if (features.status !== 200 || notModified.status !== 304 || frontends.some((answer) => answer.status !== 200) || metrics.status >= 300) {
    throw new Error(
      `unexpected answers while recording: ${features.status} ${notModified.status} ${frontends.map((a) => a.status)} ${metrics.status} ${metrics.body}`,
    )
  }
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`
  const cases: GuardCase[] = [
    {
      key: 'f',
      label: `f: GET /api/client/features (${kb(features.body.length)})`,
      request: { method: 'GET', path: '/api/client/features', headers: client, expectedStatus: 200 },
      amount: 40,
      ceiling: replay(features),
    },
    {
      key: 'f304',
      label: 'f′: the same, If-None-Match → 304',
      request: {
        method: 'GET',
        path: '/api/client/features',
        headers: { ...client, 'if-none-match': features.headers.etag! },
        expectedStatus: 304,
      },
      amount: 1500,
      ceiling: replay(notModified),
    },
    {
      key: 'g620',
      label: `g620: GET /api/frontend, random context (~${kb(frontends[10]!.body.length)})`,
      request: {
        method: 'GET',
        path: '/api/frontend',
        randomContextPath: '/api/frontend',
        headers: { authorization: tokens.frontend },
        expectedStatus: 200,
      },
      amount: 120,
      ceiling: stringifyThenReplay(frontends[10]!),
    },
    {
      key: 'h',
      label: 'h: POST /api/client/metrics (50 flags)',
      request: {
        method: 'POST',
        path: '/api/client/metrics',
        headers: metricsHeaders,
        body: metricsBody(),
        expectedStatus: metrics.status,
      },
      amount: 800,
      ceiling: parseThenReplay(metrics),
    },
  ]

  const baseline: Baseline = JSON.parse(readFileSync(BASELINE_FILE, 'utf8'))
  const lines: string[] = []
  for (const guarded of cases) {
    if (ONLY !== undefined && !ONLY.includes(guarded.key)) continue
    answerOf = guarded.ceiling
    const { path, ...rest } = guarded.request
    const at = (base: string, amount: number): LoadRequest => ({ ...rest, url: `${base}${path}`, amount })
    await cpuPerRequest(at(pennon, guarded.amount))
    await cpuPerRequest(at(ceiling, guarded.amount))
    const ratios: number[] = []
    const pennonCpu: number[] = []
    const ceilingCpu: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      pennonCpu.push(await cpuPerRequest(at(pennon, guarded.amount)))
      ceilingCpu.push(await cpuPerRequest(at(ceiling, guarded.amount)))
      ratios.push(ceilingCpu.at(-1)! / pennonCpu.at(-1)!)
    }
    const ratio = median(ratios)
    const floor = (baseline.ratios[guarded.key] ?? 0) * (1 - marginOf(baseline, guarded.key))
    const ok = update || ratio >= floor
    if (!ok) exitCode = 1
    if (update) baseline.ratios[guarded.key] = Number(ratio.toFixed(3))
    lines.push(
      `${ok ? 'ok  ' : 'FAIL'} ${guarded.label.padEnd(52)} ratio ${ratio.toFixed(3)} (rounds ${ratios.map((r) => r.toFixed(2)).join(' ')})` +
        `${update ? '' : `, floor ${floor.toFixed(3)} (${baseline.ratios[guarded.key]} − ${marginOf(baseline, guarded.key) * 100}%)`}; CPU µs/request Pennon ${median(pennonCpu).toFixed(0)}, ceiling ${median(ceilingCpu).toFixed(0)}`,
    )
    console.log(lines.at(-1))
  }
  if (ONLY === undefined || ONLY.includes('g620-eval')) {
    // The evaluator as the frontend API builds it, over the flags the client API serves.
    const payload = JSON.parse(features.body.toString()) as { features: never[]; segments: never[] }
    const evaluator = createEvaluator({ features: payload.features, segments: payload.segments })
    const contexts = Array.from({ length: 200 }, () =>
      contextFrom(Object.fromEntries(new URLSearchParams(shapeContextQuery())), '127.0.0.1'),
    )
    const toggles = contexts.map((context) => evaluator.evaluateAll(context))
    const evaluate = () => {
      for (const context of contexts) evaluator.evaluateAll(context)
    }
    const stringify = () => {
      for (const list of toggles) JSON.stringify({ toggles: list })
    }
    const cpuOf = (work: () => void) => {
      const before = threadCpu()
      work()
      return (threadCpu() - before) / contexts.length
    }
    for (let k = 0; k < 3; k++) cpuOf(evaluate), cpuOf(stringify)
    const ratios: number[] = []
    const evaluation: number[] = []
    const ceilingCpu: number[] = []
    for (let round = 0; round < ROUNDS * 2; round++) {
      evaluation.push(cpuOf(evaluate))
      ceilingCpu.push(cpuOf(stringify))
      ratios.push(ceilingCpu.at(-1)! / evaluation.at(-1)!)
    }
    const ratio = median(ratios)
    const floor = (baseline.ratios['g620-eval'] ?? 0) * (1 - marginOf(baseline, 'g620-eval'))
    const ok = update || ratio >= floor
    if (!ok) exitCode = 1
    if (update) baseline.ratios['g620-eval'] = Number(ratio.toFixed(3))
    const enabled = toggles.reduce((sum, list) => sum + list.length, 0) / toggles.length
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} ${`g620-eval: evaluateAll, ${enabled.toFixed(0)} toggles, no HTTP`.padEnd(52)} ratio ${ratio.toFixed(3)} (rounds ${ratios.map((r) => r.toFixed(2)).join(' ')})` +
        `${update ? '' : `, floor ${floor.toFixed(3)} (${baseline.ratios['g620-eval']} − ${marginOf(baseline, 'g620-eval') * 100}%)`}; CPU µs/context evaluateAll ${median(evaluation).toFixed(0)}, JSON.stringify of its toggles ${median(ceilingCpu).toFixed(0)}`,
    )
  }
  if (update) writeFileSync(BASELINE_FILE, `${JSON.stringify(baseline, null, 2)}\n`)
  console.log(
    `${update ? `ratios written to ${BASELINE_FILE.pathname}` : exitCode === 0 ? 'guard: every ratio within its margin' : 'guard: FAILED: a hot path fell below its floor (ratio = ceiling CPU ÷ Pennon CPU per request)'}` +
      ` — ${seconds()} s, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}, node ${process.version}`,
  )
} finally {
  await worker.terminate()
  ceilingServer.closeAllConnections()
  ceilingServer.close()
  await app.close()
  await database.close()
  rmSync(dir, { recursive: true, force: true })
}
process.exit(exitCode)

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
