/**
 * Data for the event benchmarks: a migrated database — a temporary SQLite file, and a
 * fresh PostgreSQL database beside BENCH_DATABASE_URL (dropped afterwards) when that is
 * set — filled with events by one plain SQL statement, in the format appendEvents stores.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { withFreshPostgres } from './lib.ts'
import { sql } from 'kysely'
import { createDb } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'

export interface BenchDatabase {
  label: 'SQLite' | 'PostgreSQL'
  /** Environment for `node src/main.ts` (DATABASE_FILE or DATABASE_URL). */
  env: Record<string, string>
}

/** Runs `use` on a fresh SQLite file, then on a fresh PostgreSQL database if BENCH_DATABASE_URL is set. */
export async function onBenchDatabases(use: (database: BenchDatabase) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-bench-events-'))
  try {
    await use({ label: 'SQLite', env: { DATABASE_FILE: join(dir, 'pennon.sqlite') } })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const baseUrl = process.env.BENCH_DATABASE_URL
  if (!baseUrl) return
  await withFreshPostgres(baseUrl, 'events', (url) => use({ label: 'PostgreSQL', env: { DATABASE_URL: url } }))
}

export interface EventSeed {
  /** How many events to add (ids follow the existing ones). */
  count: number
  project: string
  /** Event i belongs to flag `<flagPrefix>(i mod flags)`. */
  flags: number
  /** Default `flag-`. */
  flagPrefix?: string
}

const CREATED_AT = '2026-01-01T00:00:00.000Z'
const ID_MARK = 987654321
const FLAG_MARK = '@FLAG@'

/**
 * Migrates the database, then inserts `feature-created` events (about 450 bytes of JSON
 * each) with one INSERT … SELECT over a generated series, and moves the event counter on.
 * Call before the server starts (its start-up then adds the bootstrap token's event).
 */
export async function seedEvents(env: Record<string, string>, seeds: EventSeed[]): Promise<number> {
  const database = createDb({ databaseUrl: env.DATABASE_URL, databaseFile: env.DATABASE_FILE })
  const { db } = database
  try {
    await migrateToLatest(db)
    let total = Number((await db.selectFrom('counters').select('value').where('name', '=', 'event_id').executeTakeFirstOrThrow()).value)
    for (const seed of seeds) {
      const groupId = randomUUID()
      const sample = JSON.stringify({
        id: ID_MARK,
        type: 'feature-created',
        createdBy: 'system',
        createdAt: CREATED_AT,
        createdByUserId: -1337,
        data: {
          name: FLAG_MARK,
          description: 'Seeded for the benchmark',
          type: 'release',
          project: seed.project,
          stale: false,
          createdAt: CREATED_AT,
          impressionData: false,
          archived: false,
        },
        preData: null,
        tags: [],
        featureName: FLAG_MARK,
        project: seed.project,
        environment: null,
        groupType: 'system',
        groupId,
      })
      const literal = (text: string) => `'${text.replaceAll("'", "''")}'`
      const [beforeId, afterId] = sample.split(String(ID_MARK)) as [string, string]
      const flag = `(${literal(seed.flagPrefix ?? 'flag-')} || (i % ${seed.flags}))`
      const json = [
        literal(beforeId),
        'i',
        ...afterId.split(FLAG_MARK).flatMap((part, index) => (index === 0 ? [literal(part)] : [flag, literal(part)])),
      ].join(' || ')
      const series =
        database.dialect === 'postgres'
          ? `generate_series(${total + 1}, ${total + seed.count}) as s(i)`
          : `(with recursive s(i) as (select ${total + 1} union all select i + 1 from s where i < ${total + seed.count}) select i from s) as s`
      await sql
        .raw(`insert into events (id, type, created_by, created_by_user_id, created_at, feature_name, project, environment, group_type, group_id, json)
        select i, 'feature-created', 'system', -1337, '${CREATED_AT}', ${flag}, ${literal(seed.project)}, null, 'system', '${groupId}', ${json} from ${series}`)
        .execute(db)
      total += seed.count
    }
    await db.updateTable('counters').set({ value: total }).where('name', '=', 'event_id').execute()
    // As autovacuum would leave the table: statistics, hint bits and the visibility map set, so
    // the measured read does not pay for the bulk insert (nor compete with autovacuum doing it).
    if (database.dialect === 'postgres') await sql`vacuum analyze`.execute(db)
    return total
  } finally {
    await database.close()
  }
}
