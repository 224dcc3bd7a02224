/**
 * Flag types and their expected lifetimes. A flag is potentially stale when it is neither stale
 * nor archived and has lived longer than its type's lifetime: computed when a flag is read, from
 * its creation time, so a changed lifetime counts at once. The periodic scan's stored mark
 * (flags/potentially-stale-scan.ts) records which flags it has announced with an event; reads do
 * not use it, since it lags by up to a scan interval and is kept on stale and archived flags.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { notFound, quote } from '../../http/errors.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { FeatureTypeData } from '../events/event-types.ts'
import type { UpdateLifetimeBody } from './feature-type-schemas.ts'
import { createFeatureTypeStore } from './feature-type-store.ts'

const DAY_MS = 86_400_000

/** Whether a flag is potentially stale at `now` (ms), given its type's lifetime in days. */
export function isPotentiallyStale(
  flag: { stale: boolean; archived: boolean; createdAt: string },
  lifetimeDays: number | null | undefined,
  now: number,
): boolean {
  if (flag.stale || flag.archived || lifetimeDays === null || lifetimeDays === undefined) return false
  return now > Date.parse(flag.createdAt) + lifetimeDays * DAY_MS
}

/** `flags`, each with `potentiallyStale`: one read of the types' lifetimes for all of them. */
export async function withPotentiallyStale<F extends { type: string; stale: boolean; archived: boolean; createdAt: string }>(
  db: Kysely<Database>,
  flags: F[],
  now = Date.now(),
): Promise<Array<F & { potentiallyStale: boolean }>> {
  const lifetimes = flags.length === 0 ? new Map<string, number | null>() : await createFeatureTypeStore(db).lifetimes()
  return flags.map((flag) => ({ ...flag, potentiallyStale: isPotentiallyStale(flag, lifetimes.get(flag.type), now) }))
}

/** For each type with a lifetime, the latest creation time (ISO) of a flag that has outlived it at `now`. */
export async function lifetimeCutoffs(db: Kysely<Database>, now = Date.now()): Promise<Map<string, string>> {
  const cutoffs = new Map<string, string>()
  for (const [type, days] of await createFeatureTypeStore(db).lifetimes()) {
    if (days !== null) cutoffs.set(type, new Date(now - days * DAY_MS).toISOString())
  }
  return cutoffs
}

export function createFeatureTypeService({ db }: { db: Kysely<Database> }) {
  return {
    list: async () => ({ version: 1 as const, types: await createFeatureTypeStore(db).list() }),

    /** 0 means none, as in the reference. Event `feature-type-updated` (none when nothing changes). */
    setLifetime: (id: string, input: UpdateLifetimeBody, actor: Actor): Promise<FeatureTypeData> =>
      db.transaction().execute(async (trx) => {
        const store = createFeatureTypeStore(trx)
        const before = await store.find(id)
        if (!before) throw notFound(`No flag type is called ${quote(id)}. GET /api/admin/feature-types lists them.`)
        const after = { ...before, lifetimeDays: input.lifetimeDays === 0 ? null : input.lifetimeDays }
        if (after.lifetimeDays !== before.lifetimeDays) {
          await store.setLifetime(id, after.lifetimeDays)
          await appendEvents(trx, auditContext(actor), [{ type: 'feature-type-updated', data: after, preData: before }])
        }
        return after
      }),
  }
}

export type FeatureTypeService = ReturnType<typeof createFeatureTypeService>
