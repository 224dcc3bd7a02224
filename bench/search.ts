/**
 * GET /api/admin/search/events over 1,000,000 events (BENCH_EVENTS to change it): Pennon in a
 * process of its own on 127.0.0.1 (random port), on a temporary SQLite file — and on a fresh
 * PostgreSQL database when BENCH_DATABASE_URL is set — seeded by one INSERT … SELECT: events of
 * 10 projects, 40 types, 4 environments, 25 people, 10,000 flags, a minute apart over about two
 * years. Loads a few filtered pages with autocannon (lib.ts: BENCH_RUNS runs of BENCH_SECONDS) and
 * prints their p50 / p99 (the target: a filtered page under 100 ms). Then GET /api/admin/search/features
 * over FLAGS flags (10,000; BENCH_FLAGS to change it) of those 10 projects, each in two environments
 * (1 in 3 on in production), 1 in 20 tagged, 1 in 7 stale, a minute apart: a few filtered pages.
 *   BENCH_RUNS=1 BENCH_SECONDS=3 node bench/search.ts
 *   BENCH_CONNECTIONS=1 node bench/search.ts   (each page's own time)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/search.ts
 */
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { createDb } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { onBenchDatabases } from './event-data.ts'
import { measure, printMarkdownTable, ROW_HEADER, rowCells, startProcess, warmCompileCache, type Row } from './lib.ts'

const COUNT = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`
const START = Date.parse('2024-01-01T00:00:00.000Z')
const FLAGS = Number(process.env.BENCH_FLAGS ?? 10_000)
/** Autocannon's connections (10 by default; 1 gives a page's own time, without queueing behind the others). */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)

/** FLAGS flags flag-1…, their projects, their two environments and a tag on 1 in 20. */
async function seedFlags(db: ReturnType<typeof createDb>['db'], postgres: boolean): Promise<void> {
  const series = (count: number) =>
    postgres
      ? `generate_series(1, ${count}) as s(i)`
      : `(with recursive s(i) as (select 1 union all select i + 1 from s where i < ${count}) select i from s) as s`
  const createdAt = postgres
    ? `(timestamptz '2024-01-01T00:00:00Z' + i * interval '1 minute')`
    : `strftime('%Y-%m-%dT%H:%M:%S.000Z', ${START / 1000} + i * 60, 'unixepoch')`
  const [yes, no] = postgres ? ['true', 'false'] : ['1', '0']
  await sql
    .raw(`insert into projects (id, name, description, created_at)
    select 'project-' || (i - 1), 'Project ' || (i - 1), null, ${createdAt} from ${series(10)}`)
    .execute(db)
  await sql
    .raw(`insert into features (name, project, description, type, stale, impression_data, created_at, archived_at)
    select 'flag-' || i, 'project-' || (i % 10), 'Seeded flag number ' || i, case when i % 4 = 0 then 'experiment' else 'release' end,
      case when i % 7 = 0 then ${yes} else ${no} end, ${no}, ${createdAt}, null from ${series(FLAGS)}`)
    .execute(db)
  await sql
    .raw(`insert into feature_environments (feature, environment, enabled, variants)
    select name, environment, case when environment = 'production' and cast(substr(name, 6) as integer) % 3 = 0 then ${yes} else ${no} end, '[]'
    from features cross join (select 'development' as environment union all select 'production') e`)
    .execute(db)
  await sql.raw(`insert into tags (type, value, created_at) values ('simple', 'seeded', '2024-01-01T00:00:00.000Z')`).execute(db)
  await sql
    .raw(`insert into feature_tags (feature_name, tag_type, tag_value, created_by_user_id, created_at)
    select 'flag-' || i, 'simple', 'seeded', 1, '2024-01-01T00:00:00.000Z' from ${series(FLAGS)} where i % 20 = 0`)
    .execute(db)
}

/** Migrates, then inserts COUNT events with ids 1…COUNT, and moves the event counter on. */
async function seed(env: Record<string, string>): Promise<void> {
  const database = createDb({ databaseUrl: env.DATABASE_URL, databaseFile: env.DATABASE_FILE })
  const { db } = database
  try {
    await migrateToLatest(db)
    const postgres = database.dialect === 'postgres'
    const series = postgres
      ? `generate_series(1, ${COUNT}) as s(i)`
      : `(with recursive s(i) as (select 1 union all select i + 1 from s where i < ${COUNT}) select i from s) as s`
    // Each event a minute after the one before: ISO text on SQLite, timestamptz on PostgreSQL.
    const createdAt = postgres
      ? `(timestamptz '2024-01-01T00:00:00Z' + i * interval '1 minute')`
      : `strftime('%Y-%m-%dT%H:%M:%S.000Z', ${START / 1000} + i * 60, 'unixepoch')`
    const json = `'{"id":' || i || ',"type":"type-' || (i % 40) || '","createdBy":"user-' || (i % 25) || '","createdAt":"2024","createdByUserId":' || (100 + i % 25) || ',"data":{"name":"flag-' || (i % 10000) || '","description":"Seeded for the benchmark"},"preData":null,"tags":[],"featureName":"flag-' || (i % 10000) || '","project":"project-' || (i % 10) || '","environment":null,"groupType":"transaction","groupId":"group-' || (i / 3) || '"}'`
    await sql
      .raw(`insert into events (id, type, created_by, created_by_user_id, created_at, feature_name, project, environment, group_type, group_id, json)
        select i, 'type-' || (i % 40), 'user-' || (i % 25), 100 + i % 25, ${createdAt}, 'flag-' || (i % 10000), 'project-' || (i % 10),
          case when i % 3 = 0 then null else 'env-' || (i % 4) end, 'transaction', 'group-' || (i / 3), ${json} from ${series}`)
      .execute(db)
    await db.updateTable('counters').set({ value: COUNT }).where('name', '=', 'event_id').execute()
    await seedFlags(db, postgres)
    // PostgreSQL draws event ids from a sequence (migration 0015): the next follows the seeded ones.
    if (postgres) await sql`select setval('event_ids', ${COUNT})`.execute(db)
    // As autovacuum or a long-lived database would have them: statistics (and, on PostgreSQL, the visibility map).
    await sql.raw(postgres ? 'vacuum analyze' : 'analyze').execute(db)
  } finally {
    await database.close()
  }
}

const CASES: Array<[label: string, query: string]> = [
  ['project (1 in 10)', 'project=IS:project-3'],
  ['project, page 20', 'project=IS:project-3&offset=1000&limit=50'],
  ['type (1 in 40)', 'type=IS:type-7'],
  ['person (1 in 25)', 'createdBy=IS:107'],
  ['flag (100 events)', 'feature=IS:flag-42'],
  ['project + type', 'project=IS:project-3&type=IS_ANY_OF:type-3,type-13'],
  ['one day', 'from=IS:2024-06-01&to=IS:2024-06-01'],
]

const FLAG_CASES: Array<[label: string, query: string]> = [
  ['flags: first page', ''],
  ['flags: project, by name', 'project=IS:project-3&sortBy=name'],
  ['flags: text', 'query=number%2042'],
  ['flags: stale release, page 5', 'state=IS:stale&type=IS:release&offset=200'],
  ['flags: tagged', 'tag=INCLUDE:simple:seeded'],
  ['flags: on in production, newest', 'status=production:enabled&sortOrder=desc'],
  ['flags: last seen', 'sortBy=lastSeenAt'],
]

console.log(`GET /api/admin/search/events over ${COUNT.toLocaleString('en')} events, node ${process.version}`)
await warmCompileCache()
await onBenchDatabases(async ({ label, env }) => {
  const seeding = performance.now()
  await seed(env)
  console.log(`${label}: seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`)
  const server = await startProcess('src/main.ts', { ...env, INIT_ADMIN_API_TOKENS: TOKEN })
  try {
    const rows: Row[] = []
    // Each case: its search (also the list its answer holds), its label and its query.
    const cases = [
      ...FLAG_CASES.map(([name, query]) => ['features', name, query] as const),
      ...CASES.map(([name, query]) => ['events', name, query] as const),
    ]
    for (const [list, name, query] of cases) {
      const url = `${server.url}/api/admin/search/${list}?${query}`
      const check = await (await fetch(url, { headers: { authorization: TOKEN } })).json()
      if (!Array.isArray(check[list]) || check[list].length === 0)
        throw new Error(`${name}: no ${list} (${JSON.stringify(check).slice(0, 200)})`)
      rows.push(
        await measure(
          `${name}: ${check.total} match`,
          name,
          { url, headers: { authorization: TOKEN }, expectedStatus: 200, connections: CONNECTIONS },
          server,
        ),
      )
    }
    console.log(`\n${label}`)
    printMarkdownTable(ROW_HEADER, rows.map(rowCells))
    if (rows.some((row) => row.unexpected > 0 || row.errors > 0)) process.exitCode = 1
  } finally {
    await server.stop()
  }
})
