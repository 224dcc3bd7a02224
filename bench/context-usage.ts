/**
 * What context fields' usage costs: 20,000 flags with 3 strategies each in `development`
 * (60,000 strategies, a third of them with one or two constraints) seeded directly, 20 fields
 * (the 5 built-in ones and 15 custom), then, through the real app (inject, BENCH_RUNS timed
 * runs, default 20, after 3 warm-up runs): `GET /api/admin/context` (every field with its
 * usage counts; after a flag changed, and again with nothing changed), `GET /api/admin/context/plan/strategies` (2,000 strategies) and
 * `…/rare/strategies` (20), and the refused `DELETE /api/admin/context/plan`. SQLite on a
 * temporary file by default; PostgreSQL in a fresh schema when BENCH_DATABASE_URL is set.
 *   node bench/context-usage.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/context-usage.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import pg from 'pg'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createDb, type Db } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { createTokenService } from '../src/features/api-tokens/token-service.ts'
import { environmentExists } from '../src/features/environments/environment-store.ts'
import { lockSigningInAdmins } from '../src/features/users/user-store.ts'
import { median } from './lib.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const WARMUP = 3
const FLAGS = 20_000
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const CUSTOM = ['plan', 'region', 'tier', 'rare', ...Array.from({ length: 11 }, (_, i) => `field-${i}`)]

/** The constraints of strategy `s` of flag `i`: every third strategy has some. */
function constraintsOf(i: number, s: number): string {
  if ((i * 3 + s) % 3 !== 0) return '[]'
  const names = [i % 10 === 0 ? 'plan' : 'userId', i % 1000 === 1 ? 'rare' : i % 7 === 0 ? 'region' : 'environment']
  return JSON.stringify(names.slice(0, 1 + (i % 2)).map((contextName) => ({ contextName, operator: 'IN', values: ['a', 'b'] })))
}

export async function seed({ db }: Db): Promise<void> {
  const now = new Date().toISOString()
  await db.insertInto('projects').values({ id: 'other', name: 'Other', description: null, created_at: now }).execute()
  await db.insertInto('project_environments').values({ project: 'other', environment: 'development' }).execute()
  for (const name of CUSTOM) {
    await db
      .insertInto('context_fields')
      .values({ name, description: null, stickiness: false, sort_order: 0, legal_values: '[]', project: null, created_at: now })
      .execute()
  }
  for (let start = 0; start < FLAGS; start += 500) {
    const range = Array.from({ length: 500 }, (_, k) => start + k)
    const flag = (i: number) => `flag-${String(i).padStart(5, '0')}`
    await db
      .insertInto('features')
      .values(
        range.map((i) => ({
          name: flag(i),
          project: i % 4 === 0 ? 'other' : 'default',
          description: null,
          type: 'release',
          stale: false,
          impression_data: false,
          created_at: now,
          archived_at: i % 50 === 0 ? now : null,
        })),
      )
      .execute()
    await db
      .insertInto('feature_environments')
      .values(range.map((i) => ({ feature: flag(i), environment: 'development', enabled: false, variants: '[]' })))
      .execute()
    await db
      .insertInto('feature_strategies')
      .values(
        range.flatMap((i) =>
          [0, 1, 2].map((s) => ({
            id: `${flag(i)}-${s}`,
            feature_name: flag(i),
            project: i % 4 === 0 ? 'other' : 'default',
            environment: 'development',
            strategy_name: 'default',
            title: null,
            disabled: false,
            parameters: '{}',
            constraints: constraintsOf(i, s),
            variants: '[]',
            sort_order: s,
            created_at: now,
          })),
        ),
      )
      .execute()
  }
}

async function time(
  label: string,
  run: () => Promise<{ statusCode: number; body: string }>,
  expected: number,
  before?: () => Promise<unknown>,
): Promise<void> {
  const timings: number[] = []
  let answer = { statusCode: 0, body: '' }
  for (let i = 0; i < WARMUP + RUNS; i++) {
    await before?.()
    const started = performance.now()
    answer = await run()
    if (i >= WARMUP) timings.push(performance.now() - started)
  }
  if (answer.statusCode !== expected) throw new Error(`${label}: ${answer.statusCode} ${answer.body.slice(0, 200)}`)
  console.log(
    `  ${label}: median ${median(timings).toFixed(1)} ms, max ${Math.max(...timings).toFixed(1)} ms (${answer.body.length} bytes)`,
  )
}

async function bench(label: string, options: Parameters<typeof createDb>[0]): Promise<void> {
  const database = createDb(options)
  const config = loadConfig({ INIT_ADMIN_API_TOKENS: TOKEN, LOG_LEVEL: 'warn' })
  await migrateToLatest(database.db, async () => {
    await createTokenService({ db: database.db, lockSigningInAdmins, environmentExists }).bootstrap(config.initAdminApiTokens, false)
  })
  const seeded = performance.now()
  await seed(database)
  if (database.dialect === 'postgres') await sql`analyze`.execute(database.db)
  console.log(`${label}: seeded ${FLAGS} flags, ${FLAGS * 3} strategies in ${((performance.now() - seeded) / 1000).toFixed(1)} s`)
  const app = await buildApp({ config, database })
  await app.ready()
  const get = (url: string, method: 'GET' | 'DELETE' = 'GET') => app.inject({ method, url, headers: { authorization: TOKEN } })
  try {
    // A flag's description written before each run: the counts are read again.
    let n = 0
    const changeAFlag = () =>
      database.db
        .updateTable('features')
        .set({ description: `run ${++n}` })
        .where('name', '=', 'flag-00001')
        .execute()
    await time('GET /api/admin/context after a flag changed', () => get('/api/admin/context'), 200, changeAFlag)
    await time('GET /api/admin/context, nothing changed (counts remembered)', () => get('/api/admin/context'), 200)
    await time('GET /api/admin/context/plan/strategies', () => get('/api/admin/context/plan/strategies'), 200)
    await time('GET /api/admin/context/rare/strategies', () => get('/api/admin/context/rare/strategies'), 200)
    await time('DELETE /api/admin/context/plan (refused)', () => get('/api/admin/context/plan', 'DELETE'), 409)
  } finally {
    await app.close()
    await database.close()
  }
}

const url = process.env.BENCH_DATABASE_URL
if (process.argv[1]?.endsWith('context-usage.ts') && url) {
  const schema = `bench_context_${randomBytes(4).toString('hex')}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(statement)
    await client.end()
  }
  await admin(`create schema ${schema}`)
  try {
    await bench('PostgreSQL', { databaseUrl: url, schema, poolSize: 4 })
  } finally {
    await admin(`drop schema ${schema} cascade`)
  }
} else if (process.argv[1]?.endsWith('context-usage.ts')) {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-'))
  try {
    await bench('SQLite', { databaseFile: join(dir, 'pennon.sqlite') })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
