/**
 * The periodic scan for potentially stale flags, as the reference's job: a flag neither stale nor
 * archived that has outlived its type's lifetime is marked (`features.potentially_stale`) and
 * announced once, by the system, with `feature-potentially-stale-on` (integrations take it like
 * any event); a marked flag no longer past its lifetime (the lifetime made longer, or its type
 * changed) is unmarked without an event, so it is announced again if it outlives the new one.
 * A stale or archived flag is not looked at: it keeps its mark.
 *
 * Each mark commits with its event, in batches, and the mark is conditional: two instances
 * scanning one database at once never write one flag's event twice.
 *
 * Reads do not use the mark: they compute `potentiallyStale` from a flag's age when read
 * (feature-types/feature-type-service.ts), exact at any moment, where the mark lags by up to an
 * interval. The mark is what the scan has announced.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { auditContext, SYSTEM_ACTOR } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { lifetimeCutoffs } from '../feature-types/feature-type-service.ts'
import { createFeatureTypeStore } from '../feature-types/feature-type-store.ts'
import { createPotentiallyStaleStore } from './potentially-stale-store.ts'

export interface ScanOptions {
  /** The time the lifetimes are measured to (ms). */
  now?: number
  /** Flags marked (and events written) per transaction, so a lifetime shortened on many flags does not hold the writer long. */
  batch?: number
}

/** One run; returns the flags it marked (those it announced) and how many it unmarked. */
export async function scanPotentiallyStale(
  db: Kysely<Database>,
  { now = Date.now(), batch: batchSize = 1000 }: ScanOptions = {},
): Promise<{ marked: string[]; unmarked: number }> {
  const cutoffs = await lifetimeCutoffs(db, now)
  // In name order, so the events of one run come in an order that does not depend on the database.
  const types = [...(await createFeatureTypeStore(db).lifetimes()).keys()].sort()
  const store = createPotentiallyStaleStore(db)
  const marked: string[] = []
  let unmarked = 0
  for (const type of types) {
    const cutoff = cutoffs.get(type)
    if (await store.anyYoungMarked(type, cutoff)) unmarked += await store.unmarkYoung(type, cutoff)
    if (cutoff === undefined || !(await store.anyOutlived(type, cutoff))) continue
    for (;;) {
      const batch = await db.transaction().execute(async (trx) => {
        const flags = await createPotentiallyStaleStore(trx).markOutlived(type, cutoff, batchSize)
        await appendEvents(
          trx,
          auditContext(SYSTEM_ACTOR, 'system'),
          flags.map((flag) => ({ type: 'feature-potentially-stale-on' as const, featureName: flag.name, project: flag.project })),
        )
        return flags
      })
      marked.push(...batch.map((flag) => flag.name))
      if (batch.length < batchSize) break
    }
  }
  return { marked, unmarked }
}

export interface StaleScanOptions {
  db: Kysely<Database>
  intervalMs: number
  log: { warn(object: unknown, message: string): void }
  /** While this says so (maintenance mode), a run is skipped, as the reference's scheduler skips its jobs. */
  paused?: () => boolean | Promise<boolean>
}

/** Runs the scan at start and every `intervalMs` (one run at a time) until stopped; the timer keeps no process alive. */
export function startPotentiallyStaleScan({ db, intervalMs, log, paused }: StaleScanOptions) {
  let running: Promise<void> | undefined
  let stopped = false
  const tick = () => {
    if (stopped || running) return
    running = (async () => {
      if (!(await paused?.())) await scanPotentiallyStale(db)
    })()
      .catch((error: unknown) => log.warn({ err: error }, 'the potentially-stale scan failed; it runs again at its next interval'))
      .finally(() => {
        running = undefined
      })
  }
  const first = setTimeout(tick, 0)
  first.unref()
  const timer = setInterval(tick, intervalMs)
  timer.unref()
  return {
    async stop(): Promise<void> {
      stopped = true
      clearTimeout(first)
      clearInterval(timer)
      await running
    },
  }
}
