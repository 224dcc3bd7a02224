/**
 * Archive validation at scale: 100,000 flags and 20,000 dependencies seeded directly
 * with SQL, then `POST /api/admin/projects/default/archive/validate` with a batch of
 * 10,000 names, sent to the real app listening on 127.0.0.1 (BENCH_RUNS timed runs,
 * default 20, after 3 warm-up runs). SQLite on a temporary file by default; PostgreSQL
 * in a fresh schema (dropped afterwards) when BENCH_DATABASE_URL is set.
 *   node bench/archive-validate.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/archive-validate.ts
 *
 * Data: flags `flag-000000`…`flag-099999`; 0–89,999 in `default`, the rest in `bench-other`;
 * every 20th flag from 25,000 on is archived. Children 5,000–24,999 each depend on
 * parent (child + 1) mod 5,000, so each of the parents 0–4,999 has four children.
 * Batch: every 10th flag (10,000 names; 100 of them replaced by unknown names): 495
 * parents whose children are all outside it, children, foreign and archived flags.
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

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const WARMUP = 3
const FLAGS = 100_000
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const flagName = (i: number) => `flag-${String(i).padStart(6, '0')}`

const BATCH = Array.from({ length: FLAGS / 10 }, (_, k) => (k % 100 === 50 ? `unknown-${k}` : flagName(k * 10)))
/** The parents (flags 0–4,999) in the batch: each one's children end in 9, so none of them is in the batch. */
const EXPECTED_PARENTS = BATCH.filter((name) => name.startsWith('flag-') && Number(name.slice(5)) < 5000).length

async function seed({ db, dialect }: Db): Promise<void> {
  const now = new Date().toISOString()
  const started = performance.now()
  await db.insertInto('projects').values({ id: 'bench-other', name: 'Other', description: null, created_at: now }).execute()
  if (dialect === 'postgres') {
    await sql`insert into features (name, project, description, type, stale, impression_data, created_at, archived_at)
      select 'flag-' || lpad(i::text, 6, '0'), case when i < 90000 then 'default' else 'bench-other' end, null, 'release', false, false,
             ${now}::timestamptz, case when i >= 25000 and i < 90000 and i % 20 = 0 then ${now}::timestamptz end
      from generate_series(0, ${FLAGS - 1}) as i`.execute(db)
    await sql`insert into feature_dependencies (child, parent, enabled, variants)
      select 'flag-' || lpad(c::text, 6, '0'), 'flag-' || lpad(((c + 1) % 5000)::text, 6, '0'), true, '[]'
      from generate_series(5000, 24999) as c`.execute(db)
    await sql`analyze features`.execute(db)
    await sql`analyze feature_dependencies`.execute(db)
  } else {
    await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${FLAGS - 1})
      insert into features (name, project, description, type, stale, impression_data, created_at, archived_at)
      select printf('flag-%06d', i), case when i < 90000 then 'default' else 'bench-other' end, null, 'release', 0, 0,
             ${now}, case when i >= 25000 and i < 90000 and i % 20 = 0 then ${now} end
      from n`.execute(db)
    await sql`with recursive n(c) as (select 5000 union all select c + 1 from n where c < 24999)
      insert into feature_dependencies (child, parent, enabled, variants)
      select printf('flag-%06d', c), printf('flag-%06d', (c + 1) % 5000), 1, '[]' from n`.execute(db)
    await sql`analyze`.execute(db)
  }
  const counts = await sql<{ flags: number; dependencies: number }>`
    select (select count(*) from features) as flags, (select count(*) from feature_dependencies) as dependencies`.execute(db)
  const { flags, dependencies } = counts.rows[0]!
  console.log(
    `  seeded ${Number(flags).toLocaleString('en')} flags, ${Number(dependencies).toLocaleString('en')} dependencies in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
}

async function run(label: string, storage: { databaseUrl?: string; databaseFile?: string; schema?: string }): Promise<void> {
  console.log(label)
  const config = loadConfig({ INIT_ADMIN_API_TOKENS: TOKEN, LOG_LEVEL: 'warn' })
  const database = createDb(storage)
  try {
    await migrateToLatest(database.db, async () => {
      await createTokenService({ db: database.db, lockSigningInAdmins, environmentExists }).bootstrap(config.initAdminApiTokens, true)
    })
    await seed(database)
    const app = await buildApp({ config, database })
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    try {
      const body = JSON.stringify({ features: BATCH })
      const validateOnce = async () => {
        const started = performance.now()
        const response = await fetch(`${base}/api/admin/projects/default/archive/validate`, {
          method: 'POST',
          headers: { authorization: TOKEN, 'content-type': 'application/json' },
          body,
        })
        const answer = (await response.json()) as { parentsWithChildFeatures: string[]; hasDeletedDependencies: boolean }
        const ms = performance.now() - started
        if (response.status !== 200 || answer.parentsWithChildFeatures.length !== EXPECTED_PARENTS || !answer.hasDeletedDependencies) {
          throw new Error(`unexpected answer: ${response.status} ${JSON.stringify(answer).slice(0, 200)}`)
        }
        return ms
      }
      for (let i = 0; i < WARMUP; i++) await validateOnce()
      const times: number[] = []
      for (let i = 0; i < RUNS; i++) times.push(await validateOnce())
      times.sort((a, b) => a - b)
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1)
      console.log(
        `  validate 10,000 names (${(body.length / 1024).toFixed(0)} KiB body): median ${at(0.5)} ms, p95 ${at(0.95)} ms, ` +
          `min ${times[0]!.toFixed(1)} ms, max ${times[times.length - 1]!.toFixed(1)} ms over ${RUNS} runs (${EXPECTED_PARENTS} parents reported)`,
      )
    } finally {
      await app.close()
    }
  } finally {
    await database.close()
  }
}

console.log(`archive validation benchmark, node ${process.version}`)
const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-validate-'))
try {
  await run('SQLite', { databaseFile: join(dir, 'pennon.sqlite') })
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const databaseUrl = process.env.BENCH_DATABASE_URL
if (databaseUrl) {
  const schema = `bench_validate_${process.pid}`
  const admin = new pg.Client({ connectionString: databaseUrl })
  await admin.connect()
  try {
    await admin.query(`create schema ${schema}`)
    await run('PostgreSQL', { databaseUrl, schema })
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`)
    await admin.end()
  }
}
