/**
 * Migrated PostgreSQL schemas, kept for the next test of the same process. Migrating a fresh schema
 * costs 1–1.5 s and dropping it up to 0.9 s on a busy 2-core machine, for nearly every test of the
 * PostgreSQL run; putting a used one back to its just-migrated rows costs a few milliseconds. The
 * rows of a just-migrated schema (the seeds: built-in environments, strategy definitions, counters…)
 * are read once per process and written back after every table is emptied, and its sequences set
 * back, in one transaction.
 * The schema's tables, indexes, functions and triggers are the migrations' own and never change.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createDb } from '../src/db/database.ts'
import { MIGRATION_LOCK_KEY, migrateToLatest } from '../src/db/migrate.ts'

interface Seed {
  /** Every table but the migrator's own. */
  tables: string[]
  /** The tables with rows after migrating, and the rows as JSON. */
  rows: { table: string; json: string }[]
  /** Every sequence as the migrations left it (setval's arguments). */
  sequences: { name: string; value: string; called: boolean }[]
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

export function createSchemaPool(url: string) {
  const idle: string[] = []
  let seed: Promise<Seed> | undefined

  const readSeed = (schema: string) =>
    withClient(url, async (client) => {
      const listed = await client.query<{ tablename: string }>(
        "select tablename from pg_tables where schemaname = $1 and tablename not like 'kysely%' order by tablename",
        [schema],
      )
      const tables = listed.rows.map((row) => row.tablename)
      const rows: Seed['rows'] = []
      for (const table of tables) {
        const { rows: found } = await client.query<{ json: string | null }>(
          `select json_agg(t)::text as json from ${quoted(schema)}.${quoted(table)} t`,
        )
        if (found[0]?.json) rows.push({ table, json: found[0].json })
      }
      const sequences: Seed['sequences'] = []
      const listedSequences = await client.query<{ name: string }>(
        'select sequencename as name from pg_sequences where schemaname = $1 order by sequencename',
        [schema],
      )
      for (const { name } of listedSequences.rows) {
        const { rows: state } = await client.query<{ value: string; called: boolean }>(
          `select last_value::text as value, is_called as called from ${quoted(schema)}.${quoted(name)}`,
        )
        sequences.push({ name, ...state[0]! })
      }
      return { tables, rows, sequences }
    })

  async function migrated(): Promise<string> {
    const schema = `test_${randomBytes(6).toString('hex')}`
    await withClient(url, (client) => client.query(`create schema ${schema}`))
    // Two connections: the migration lock holds one while the migrations run on the other.
    const db = createDb({ databaseUrl: url, schema, poolSize: 2 })
    try {
      await migrateToLatest(db.db)
    } finally {
      await db.close()
    }
    seed ??= readSeed(schema)
    await seed
    return schema
  }

  async function drop(schema: string): Promise<void> {
    await withClient(url, async (client) => {
      // Under the migration lock: a migration elsewhere lists every schema of the database, and one
      // vanishing meanwhile would fail it.
      await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
      try {
        await client.query(`drop schema if exists ${schema} cascade`)
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
      }
    })
  }

  /** Every row back to the just-migrated state; triggers and foreign keys off meanwhile (a superuser's setting). */
  async function reset(schema: string): Promise<void> {
    const { tables, rows, sequences } = await seed!
    await withClient(url, async (client) => {
      await client.query('begin')
      try {
        // A connection a test left open holding a lock is the test's fault: fail fast, then drop instead.
        await client.query("set local lock_timeout = '2s'")
        await client.query('set local session_replication_role = replica')
        await client.query(tables.map((table) => `delete from ${quoted(schema)}.${quoted(table)}`).join('; '))
        for (const { table, json } of rows) {
          const target = `${quoted(schema)}.${quoted(table)}`
          await client.query(`insert into ${target} select * from json_populate_recordset(null::${target}, $1)`, [json])
        }
        for (const { name, value, called } of sequences) {
          await client.query('select setval($1, $2, $3)', [`${quoted(schema)}.${quoted(name)}`, value, called])
        }
        await client.query('commit')
      } catch (error) {
        await client.query('rollback')
        throw error
      }
    })
  }

  let exitHooked = false
  function dropIdleAtExit(): void {
    if (exitHooked) return
    exitHooked = true
    // Once the tests of the process are done, its idle schemas go (an async drop keeps the process alive until it ends).
    process.on('beforeExit', () => {
      const leaving = idle.splice(0)
      if (leaving.length > 0) void Promise.all(leaving.map((schema) => drop(schema).catch(() => {})))
    })
  }

  return {
    /** A migrated schema with only the migrations' rows: a used one put back, or a fresh one. */
    async take(): Promise<string> {
      dropIdleAtExit()
      return idle.pop() ?? (await migrated())
    },
    /** Back to the pool, reset; dropped instead when the reset fails. */
    async give(schema: string): Promise<void> {
      try {
        await reset(schema)
        idle.push(schema)
      } catch {
        await drop(schema)
      }
    },
  }
}

export type SchemaPool = ReturnType<typeof createSchemaPool>
