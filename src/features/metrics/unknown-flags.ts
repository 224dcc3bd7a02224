/**
 * Names SDKs counted that are no flags (docs/metrics.md, "Unknown flags"), as the reference lists
 * them: per name, application and environment, when last reported. Frontend tokens are public, so
 * what junk may add is bounded twice: at most UNKNOWN_FLAGS_MAX keys are held between two flushes
 * (further new keys are dropped until the next one), and at most UNKNOWN_FLAGS_MAX rows are stored
 * (a flush adds new keys only while fewer are; keys stored are always updated). Rows not reported
 * for 24 hours are removed hourly, so junk makes room again a day after it stops.
 */
import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../../db/dialect.ts'
import type { Database } from '../../db/tables.ts'
import { inNames } from '../../db/name-set.ts'
import { allFlagNames } from '../flags/flag-store.ts'

/** Keys held between two flushes, and rows stored; also the most names the read lists, as the reference. */
export const UNKNOWN_FLAGS_MAX = 1000
/** The reference lists the reports of the last 24 hours. */
export const UNKNOWN_FLAGS_HOURS = 24
/** Longer names are flags nobody can create (names are at most 255 characters): not recorded. */
const MAX_NAME = 255

export type UnknownRow = [name: string, appName: string, environment: string, lastSeenAt: string]

const keyOf = (name: string, appName: string, environment: string) => `${name}\u0000${appName}\u0000${environment}`

/** What arrived since the last flush, bounded. Pure: no I/O. */
export function createUnknownFlagsHeld(max = UNKNOWN_FLAGS_MAX) {
  let held = new Map<string, UnknownRow>()
  let dropped = 0
  return {
    /** A report of `name` (not a flag) by `appName` in `environment` at `at` (ISO). */
    see(name: string, appName: string, environment: string, at: string): void {
      if (name.length === 0 || name.length > MAX_NAME) return
      const key = keyOf(name, appName, environment)
      const row = held.get(key)
      if (row !== undefined) {
        if (row[3] < at) row[3] = at
      } else if (held.size < max) held.set(key, [name, appName, environment, at])
      else dropped++
    },
    /** Everything held (sorted by key, so two instances writing at once lock in one order), and how many new keys were dropped. */
    take(): { rows: UnknownRow[]; dropped: number } {
      const rows = [...held.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row)
      const taken = { rows, dropped }
      held = new Map()
      dropped = 0
      return taken
    },
    /** A failed write's rows, back for the next flush (within the bound). */
    putBack(rows: readonly UnknownRow[]): void {
      for (const [name, appName, environment, at] of rows) this.see(name, appName, environment, at)
    },
    get size(): number {
      return held.size
    },
  }
}

/**
 * Stores the rows: keys already stored get the later time; new keys are added while fewer than
 * `max` rows are stored (exact on SQLite, whose writers queue; on PostgreSQL two instances
 * flushing at once may each add up to it). Returns how many new keys were not stored.
 */
export async function writeUnknownFlags(db: Kysely<Database>, rows: readonly UnknownRow[], max = UNKNOWN_FLAGS_MAX): Promise<number> {
  if (rows.length === 0) return 0
  const stored = new Set<string>()
  // At most `max` rows held: one statement, one JSON parameter.
  const found = await sql<{ name: string; app_name: string; environment: string }>`select u.name, u.app_name, u.environment
    from (${keysRelation(db, JSON.stringify(rows.map((row) => row.slice(0, 3))))}) keys
    join unknown_flags u on u.name = keys.c0 and u.app_name = keys.c1 and u.environment = keys.c2`.execute(db)
  for (const row of found.rows) stored.add(keyOf(row.name, row.app_name, row.environment))
  const { count } = await db
    .selectFrom('unknown_flags')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  let room = max - Number(count)
  const kept = rows.filter((row) => stored.has(keyOf(row[0], row[1], row[2])) || room-- > 0)
  if (kept.length === 0) return rows.length
  const later =
    dialectOf(db) === 'postgres'
      ? sql<string>`greatest(unknown_flags.last_seen_at, excluded.last_seen_at)`
      : sql<string>`max(unknown_flags.last_seen_at, excluded.last_seen_at)`
  await db
    .insertInto('unknown_flags')
    .values(kept.map(([name, app_name, environment, last_seen_at]) => ({ name, app_name, environment, last_seen_at })))
    .onConflict((oc) => oc.columns(['name', 'app_name', 'environment']).doUpdateSet({ last_seen_at: later }))
    .execute()
  return rows.length - kept.length
}

/**
 * Removes rows not reported since `before`, and those of names that are flags now (found by a
 * read, deleted by name: a write naming a flag table would move the change watch's flags version).
 */
export async function removeExpiredUnknownFlags(db: Kysely<Database>, before: string): Promise<void> {
  await db.deleteFrom('unknown_flags').where('last_seen_at', '<', before).execute()
  const flags = await db.selectFrom('unknown_flags as u').select('u.name').distinct().where('u.name', 'in', allFlagNames(db)).execute()
  if (flags.length > 0)
    await db
      .deleteFrom('unknown_flags')
      .where(
        inNames(
          db,
          'name',
          flags.map((row) => row.name),
        ),
      )
      .execute()
}

function keysRelation(db: Kysely<Database>, json: string) {
  return dialectOf(db) === 'postgres'
    ? sql`select r.value->>0 as c0, r.value->>1 as c1, r.value->>2 as c2 from jsonb_array_elements(cast(${json} as jsonb)) as r(value)`
    : sql`select json_extract(value, '$[0]') as c0, json_extract(value, '$[1]') as c1, json_extract(value, '$[2]') as c2 from json_each(${json})`
}
