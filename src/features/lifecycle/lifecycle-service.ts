/**
 * A flag's lifecycle through the admin API: its stages read, completed and uncompleted (each
 * change with its event, `feature-completed` / `feature-uncompleted` as the reference names them,
 * in one transaction), and how many flags are in each stage. The other moves are written by the
 * changes that make them: created (flags/), archived and revived (flags/), seen by SDKs (metrics/).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { CompleteBody } from './lifecycle-schemas.ts'
import { enterStages, latestStageCounts, leaveStage, stagesOf, type EnteredStage } from './lifecycle-store.ts'

/** The flag of a path, or a 404; `hold`: kept from being deleted until the transaction ends (flags/, handed by app.ts). */
export type FlagOfPath = (db: Kysely<Database>, project: string, name: string, options?: { hold?: boolean }) => Promise<unknown>

export function createLifecycleService({ db, flagOfPath }: { db: Kysely<Database>; flagOfPath: FlagOfPath }) {
  return {
    /** The stages the flag entered, in order. */
    async stages(project: string, feature: string): Promise<EnteredStage[]> {
      await flagOfPath(db, project, feature)
      return stagesOf(db, feature)
    },

    /**
     * The flag enters `completed` with what became of it. A flag completed already stays as it was
     * completed, and no event is written (the reference writes one for nothing).
     */
    complete: (project: string, feature: string, body: CompleteBody, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        await flagOfPath(trx, project, feature, { hold: true })
        const audit = auditContext(actor)
        const entered = await enterStages(trx, [{ feature, stage: 'completed', ...body }], audit.createdAt)
        if (entered.length === 0) return
        const data = { status: body.status, ...(body.statusValue === undefined ? {} : { statusValue: body.statusValue }) }
        await appendEvents(trx, audit, [
          { type: 'feature-completed', featureName: feature, project, data: { ...data, kept: body.status === 'kept' } },
        ])
      }),

    /** The flag leaves `completed` (its other stages stay); nothing changes, and no event, when it was not completed. */
    uncomplete: (project: string, feature: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        await flagOfPath(trx, project, feature, { hold: true })
        if (!(await leaveStage(trx, feature, 'completed'))) return
        await appendEvents(trx, auditContext(actor), [{ type: 'feature-uncompleted', featureName: feature, project }])
      }),

    /** Flags per current stage, every project's (the reference's keys: preLive for pre-live). */
    async counts() {
      const counts = await latestStageCounts(db)
      return {
        initial: counts.initial,
        preLive: counts['pre-live'],
        live: counts.live,
        completed: counts.completed,
        archived: counts.archived,
      }
    },
  }
}

export type LifecycleService = ReturnType<typeof createLifecycleService>
