/**
 * (o) OpenFeature (OFREP) beside the frontend API on the SDK cases' data (seed.ts, then
 * sdk-data.ts: 1,000 flags × 3 strategies), a random context per request, 10 connections:
 *   (g)  GET /api/frontend                       the enabled flags (the frontend API's answer)
 *   (ob) POST /ofrep/v1/evaluate/flags           every flag, disabled ones included (web providers)
 *   (o1) POST /ofrep/v1/evaluate/flags/:key      one random flag (server providers)
 * The bulk answer holds every flag (~1,000, ~163 kB) where the frontend API's holds the enabled
 * ones (~165–250, 26–42 kB), so beside them, like with like, a project of its own where every
 * flag is on for everyone (ALIKE_FLAGS flags, one `default` strategy each): both APIs answer the
 * same flags there, in about as many bytes:
 *   (ga)  GET /api/frontend                      the same flags, all enabled
 *   (oba) POST /ofrep/v1/evaluate/flags          the same flags
 * The cases take turns (a warm-up each, then BENCH_RUNS rounds of BENCH_SECONDS), so they meet
 * the same host speeds; the ratios are each round's, their median printed.
 * Targets (issue 37): bulk within 10% of the frontend API; single-flag at least 3× the bulk rate.
 *   node bench/openfeature.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/openfeature.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes, randomInt } from 'node:crypto'
import {
  load,
  median,
  printMarkdownTable,
  ROW_HEADER,
  rowCells,
  RUNS,
  SECONDS,
  startProcess,
  summarize,
  warmCompileCache,
  WARMUP_SECONDS,
  withFreshPostgres,
  type LoadOptions,
  type LoadResult,
  type Row,
} from './lib.ts'
import { flagName, seedBenchData } from './seed.ts'
import { FLAGS, randomContextQuery, randomOpenFeatureBody, seedSdkData } from './sdk-data.ts'

const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const ALIKE_PROJECT = 'ofrep-alike'
const ALIKE_FLAGS = 1000

async function send(method: string, url: string, body?: unknown): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: { authorization: TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`seeding ${method} ${url}: ${response.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

/** The like-with-like project: ALIKE_FLAGS flags on in `development` for everyone; its frontend token. */
async function seedAlike(baseUrl: string): Promise<string> {
  const admin = `${baseUrl}/api/admin`
  await send('POST', `${admin}/projects`, { id: ALIKE_PROJECT, name: 'Every flag on (OFREP bench)' })
  let next = 0
  const seedOne = async (i: number) => {
    const name = `alike-${String(i).padStart(4, '0')}`
    await send('POST', `${admin}/projects/${ALIKE_PROJECT}/features`, { name })
    const place = `${admin}/projects/${ALIKE_PROJECT}/features/${name}/environments/development`
    await send('POST', `${place}/strategies`, { name: 'default' })
    await send('POST', `${place}/on`)
  }
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < ALIKE_FLAGS) await seedOne(next++)
    }),
  )
  const token = await send('POST', `${admin}/api-tokens`, {
    tokenName: 'ofrep-alike-frontend',
    type: 'frontend',
    environment: 'development',
    projects: [ALIKE_PROJECT],
  })
  return token.secret as string
}

async function benchPennon(databaseName: string, env: Record<string, string>): Promise<{ rows: Row[]; ratios: string[] }> {
  const server = await startProcess('src/main.ts', {
    ...env,
    INIT_ADMIN_API_TOKENS: TOKEN,
    SEGMENTS_LIMIT: '2000000000',
    AUTH_FAILURES_PER_MINUTE: '0',
  })
  try {
    await seedBenchData(server.url, TOKEN, env)
    const tokens = await seedSdkData(server.url, TOKEN)
    const alike = await seedAlike(server.url)
    const ofrep = { 'content-type': 'application/json', authorization: tokens.frontend }
    const cases: Array<{ key: string; label: string; options: Omit<LoadOptions, 'seconds'> }> = [
      {
        key: 'g',
        label: '(g) GET /api/frontend, 1,000 flags, random context',
        options: {
          url: `${server.url}/api/frontend`,
          headers: { authorization: tokens.frontend },
          makePath: () => `/api/frontend?${randomContextQuery()}`,
          expectedStatus: 200,
        },
      },
      {
        key: 'ob',
        label: '(ob) POST /ofrep/v1/evaluate/flags, 1,000 flags, random context',
        options: {
          url: `${server.url}/ofrep/v1/evaluate/flags`,
          method: 'POST',
          headers: ofrep,
          makeBody: randomOpenFeatureBody,
          expectedStatus: 200,
        },
      },
      {
        key: 'o1',
        label: '(o1) POST /ofrep/v1/evaluate/flags/:key, a random flag and context',
        options: {
          url: `${server.url}/ofrep/v1/evaluate/flags/${flagName(0)}`,
          method: 'POST',
          headers: ofrep,
          makeBody: randomOpenFeatureBody,
          makePath: () => `/ofrep/v1/evaluate/flags/${flagName(randomInt(FLAGS))}`,
          expectedStatus: 200,
        },
      },
      {
        key: 'ga',
        label: `(ga) GET /api/frontend, ${ALIKE_FLAGS.toLocaleString('en')} flags all on, random context`,
        options: {
          url: `${server.url}/api/frontend`,
          headers: { authorization: alike },
          makePath: () => `/api/frontend?${randomContextQuery()}`,
          expectedStatus: 200,
        },
      },
      {
        key: 'oba',
        label: `(oba) POST /ofrep/v1/evaluate/flags, the same ${ALIKE_FLAGS.toLocaleString('en')} flags, random context`,
        options: {
          url: `${server.url}/ofrep/v1/evaluate/flags`,
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: alike },
          makeBody: randomOpenFeatureBody,
          expectedStatus: 200,
        },
      },
    ]
    for (const { options } of cases) await load({ ...options, seconds: WARMUP_SECONDS }, server.pid)
    const runs = new Map<string, LoadResult[]>(cases.map(({ key }) => [key, []]))
    for (let round = 0; round < RUNS; round++)
      for (const { key, options } of cases) runs.get(key)!.push(await load({ ...options, seconds: SECONDS }, server.pid))
    const rate = (key: string, round: number) => runs.get(key)![round]!.requestsPerSecond
    const rounds = Array.from({ length: RUNS }, (_, round) => round)
    const bulkShare = median(rounds.map((round) => rate('ob', round) / rate('g', round)))
    const singleTimes = median(rounds.map((round) => rate('o1', round) / rate('ob', round)))
    const alikeShare = median(rounds.map((round) => rate('oba', round) / rate('ga', round)))
    return {
      rows: cases.map(({ key, label }) => summarize(`${label} [${databaseName}]`, key, runs.get(key)!, server.pid)),
      ratios: [
        `[${databaseName}] bulk OFREP = ${(bulkShare * 100).toFixed(0)}% of the frontend API's rate (target ≥ 90%); ` +
          `single-flag OFREP = ${singleTimes.toFixed(1)}× the bulk rate (target ≥ 3×)`,
        `[${databaseName}] like with like (every flag on, both answer the same ${ALIKE_FLAGS.toLocaleString('en')}): ` +
          `bulk OFREP = ${(alikeShare * 100).toFixed(0)}% of the frontend API's rate`,
      ],
    }
  } finally {
    await server.stop()
  }
}

console.log(
  `OpenFeature (OFREP) beside the frontend API: ${WARMUP_SECONDS} s warm-up, then ${RUNS} round(s) of ${SECONDS} s per case in turn, 10 connections, node ${process.version}`,
)
await warmCompileCache()
const rows: Row[] = []
const ratios: string[] = []
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-ofrep-'))
try {
  const sqlite = await benchPennon('SQLite', { DATABASE_FILE: join(dir, 'pennon.sqlite') })
  rows.push(...sqlite.rows)
  ratios.push(...sqlite.ratios)
  if (process.env.BENCH_DATABASE_URL) {
    const postgres = await withFreshPostgres(process.env.BENCH_DATABASE_URL, 'ofrep', (url) =>
      benchPennon('PostgreSQL', { DATABASE_URL: url }),
    )
    rows.push(...postgres.rows)
    ratios.push(...postgres.ratios)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
printMarkdownTable(
  [...ROW_HEADER, 'MB/s', 'unexpected status'],
  rows.map((r) => [...rowCells(r), (r.bytesPerSecond / 1e6).toFixed(0), String(r.unexpected + r.errors)]),
)
for (const line of ratios) console.log(line)
if (rows.some((row) => row.unexpected + row.errors > 0)) process.exitCode = 1
