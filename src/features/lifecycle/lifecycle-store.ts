/**
 * The lifecycle stages each flag entered, and when (table feature_lifecycles, migration 0022).
 * Written inside the transactions of the changes that move a flag (created, archived, revived,
 * completed, seen by SDKs), read by the lifecycle routes, the flag read, the search and the
 * project status.
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import { inNames } from '../../db/name-set.ts'
import type { Database } from '../../db/tables.ts'

export const STAGES = ['initial', 'pre-live', 'live', 'completed', 'archived'] as const
export type Stage = (typeof STAGES)[number]

export interface StageEntry {
  feature: string
  stage: Stage
  status?: 'kept' | 'discarded'
  statusValue?: string
}

/** A stage as the API shows it: `status` only when the stage has one. */
export interface EnteredStage {
  stage: Stage
  status?: string
  enteredStageAt: string
}

interface StageRow {
  feature: string
  stage: string
  status: string | null
  created_at: string
}

/** Rows per insert: five values each, well under SQLite's limit on bound values. */
const CHUNK = 1000

const rank = (stage: string) => STAGES.indexOf(stage as Stage)
const iso = (value: string | Date) => new Date(value).toISOString()

/** Earlier first; two stages entered at the same moment in their own order (pre-live before live). */
export function byEntry(a: Pick<StageRow, 'stage' | 'created_at'>, b: Pick<StageRow, 'stage' | 'created_at'>): number {
  // ISO 8601 in UTC orders as text; compared by code unit, not localeCompare (which loads ICU's collation data).
  const left = iso(a.created_at)
  const right = iso(b.created_at)
  return left < right ? -1 : left > right ? 1 : rank(a.stage) - rank(b.stage)
}

const toEntered = (row: StageRow): EnteredStage => ({
  stage: row.stage as Stage,
  ...(row.status === null ? {} : { status: row.status }),
  enteredStageAt: iso(row.created_at),
})

/** The reference's current stage of a flag (its read): the furthest stage it entered, whatever the times. */
const PREFERRED: readonly Stage[] = ['archived', 'completed', 'live', 'pre-live', 'initial']

export function currentStage<S extends { stage: Stage }>(stages: readonly S[]): S | undefined {
  for (const stage of PREFERRED) {
    const found = stages.find((entered) => entered.stage === stage)
    if (found) return found
  }
  return undefined
}

/** The stage a flag entered last (ties: the later stage): what the search, the count and the project status go by. */
export function latestStage<S extends Pick<StageRow, 'stage' | 'created_at'>>(rows: readonly S[]): S | undefined {
  return rows.reduce<S | undefined>((latest, row) => (latest === undefined || byEntry(latest, row) < 0 ? row : latest), undefined)
}

/**
 * Enters flags into stages at `at`; a flag already in a stage stays as it entered it (the key
 * keeps the first). Returns the entries that were new.
 */
export async function enterStages(db: Kysely<Database>, entries: readonly StageEntry[], at: string): Promise<StageEntry[]> {
  const entered: StageEntry[] = []
  for (let start = 0; start < entries.length; start += CHUNK) {
    const chunk = entries.slice(start, start + CHUNK)
    const rows = await db
      .insertInto('feature_lifecycles')
      .values(
        chunk.map((entry) => ({
          feature: entry.feature,
          stage: entry.stage,
          status: entry.status ?? null,
          status_value: entry.statusValue ?? null,
          created_at: at,
        })),
      )
      .onConflict((oc) => oc.columns(['feature', 'stage']).doNothing())
      .returning(['feature', 'stage'])
      .execute()
    const inserted = new Set(rows.map((row) => `${row.feature}\u0000${row.stage}`))
    entered.push(...chunk.filter((entry) => inserted.has(`${entry.feature}\u0000${entry.stage}`)))
  }
  return entered
}

/** A revived flag starts over, as the reference's: its stages forgotten, initial at `at`. */
export async function restartLifecycles(db: Kysely<Database>, names: readonly string[], at: string): Promise<void> {
  if (names.length === 0) return
  await db
    .deleteFrom('feature_lifecycles')
    .where(inNames(db, 'feature', names))
    .execute()
  await enterStages(
    db,
    names.map((feature) => ({ feature, stage: 'initial' })),
    at,
  )
}

/** Leaves a stage (uncomplete); whether the flag was in it. */
export async function leaveStage(db: Kysely<Database>, feature: string, stage: Stage): Promise<boolean> {
  const rows = await db
    .deleteFrom('feature_lifecycles')
    .where('feature', '=', feature)
    .where('stage', '=', stage)
    .returning('stage')
    .execute()
  return rows.length > 0
}

/** A flag's stages in the order it entered them. */
export async function stagesOf(db: Kysely<Database>, feature: string): Promise<EnteredStage[]> {
  const rows = await db
    .selectFrom('feature_lifecycles')
    .select(['feature', 'stage', 'status', 'created_at'])
    .where('feature', '=', feature)
    .execute()
  return rows.sort(byEntry).map(toEntered)
}

/** Which of the named flags are in which of the stages: a read by the key. */
export async function stagesEntered(db: Kysely<Database>, names: readonly string[], stages: readonly Stage[]): Promise<Set<string>> {
  if (names.length === 0) return new Set()
  const rows = await db
    .selectFrom('feature_lifecycles')
    .select(['feature', 'stage'])
    .where(inNames(db, 'feature', names))
    .where('stage', 'in', stages)
    .execute()
  return new Set(rows.map((row) => `${row.feature}\u0000${row.stage}`))
}

/** The order of stages entered at the same moment, in SQL (see byEntry). */
export const STAGE_RANK = sql<number>`case stage when 'initial' then 0 when 'pre-live' then 1 when 'live' then 2 when 'completed' then 3 else 4 end`

/** Every flag's current stage (the latest entered), counted per stage: one pass over the table's key. */
export async function latestStageCounts(db: Kysely<Database>): Promise<Record<Stage, number>> {
  const { rows } = await sql<{ stage: string; flags: number | string }>`
    select stage, count(*) as flags from (
      select stage, row_number() over (partition by feature order by created_at desc, ${STAGE_RANK} desc) as position
      from feature_lifecycles
    ) latest where position = 1 group by stage`.execute(db)
  const counts: Record<Stage, number> = { initial: 0, 'pre-live': 0, live: 0, completed: 0, archived: 0 }
  for (const row of rows) if (row.stage in counts) counts[row.stage as Stage] = Number(row.flags)
  return counts
}

/** The stages of the flags a subquery names (a project's flags: flags/ ranks above and hands it), in the order entered. */
export async function stageRowsOf(
  db: Kysely<Database>,
  names: SelectQueryBuilder<Database, 'features', { name: string }>,
): Promise<Array<{ feature: string; stage: Stage; enteredAt: string }>> {
  const rows = await db
    .selectFrom('feature_lifecycles')
    .select(['feature', 'stage', 'status', 'created_at'])
    .where('feature', 'in', names)
    .execute()
  return rows.sort(byEntry).map((row) => ({ feature: row.feature, stage: row.stage as Stage, enteredAt: iso(row.created_at) }))
}

/** The stage a flag entered last, as a subquery correlated with `features.name` (the search's lifecycle filter). */
export function latestStageOfFlag(db: Kysely<Database>) {
  return db
    .selectFrom('feature_lifecycles as latest')
    .select('latest.stage')
    .whereRef('latest.feature', '=', sql.ref('features.name'))
    .orderBy('latest.created_at', 'desc')
    .orderBy(STAGE_RANK, 'desc')
    .limit(1)
}

/** The stage each of the named flags entered last (the search's answer), by flag. */
export async function latestStagesOf(db: Kysely<Database>, names: readonly string[]): Promise<Map<string, EnteredStage>> {
  if (names.length === 0) return new Map()
  const rows = await db
    .selectFrom('feature_lifecycles')
    .select(['feature', 'stage', 'status', 'created_at'])
    .where(inNames(db, 'feature', names))
    .execute()
  const latest = new Map<string, StageRow>()
  for (const row of rows) {
    const held = latest.get(row.feature)
    if (held === undefined || byEntry(held, row) < 0) latest.set(row.feature, row)
  }
  return new Map([...latest].map(([feature, row]) => [feature, toEntered(row)]))
}
