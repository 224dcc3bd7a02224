/**
 * GET /projects/:projectId/status (the reference's getProjectStatus): a project's activity, its
 * resources, its health and the summary of its flags' lifecycles, each read from its owner's
 * store and computed when asked.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { ofProject } from '../api-tokens/token-service.ts'
import { createTokenStore } from '../api-tokens/token-store.ts'
import { projectActivityByDay } from '../events/event-store.ts'
import { withPotentiallyStale } from '../feature-types/feature-type-service.ts'
import { healthRating } from '../flags/project-health.ts'
import { createFlagStore, flagArchiveTimesOfProject, flagNamesOfProject } from '../flags/flag-store.ts'
import { stageRowsOf } from '../lifecycle/lifecycle-store.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { createSegmentStore } from '../segments/segment-store.ts'
import { summarizeLifecycles } from './lifecycle-summary.ts'

const YEAR_MS = 365 * 86_400_000

export function createProjectStatusService({ db, now = Date.now }: { db: Kysely<Database>; now?: () => number }) {
  return {
    async status(project: string) {
      if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
      const at = now()
      const [activityCountByDate, tokens, segments, active, stages, flags] = await Promise.all([
        projectActivityByDay(db, project, new Date(at - YEAR_MS).toISOString()),
        createTokenStore(db).list(),
        createSegmentStore(db).countInProject(project),
        createFlagStore(db)
          .listActive(project)
          .then((listed) => withPotentiallyStale(db, listed, at)),
        stageRowsOf(db, flagNamesOfProject(db, project)),
        flagArchiveTimesOfProject(db, project),
      ])
      const staleCount = active.filter((flag) => flag.stale).length
      const potentiallyStaleCount = active.filter((flag) => flag.potentiallyStale).length
      const health = healthRating({ activeCount: active.length - staleCount, staleCount, potentiallyStaleCount })
      return {
        activityCountByDate,
        resources: { apiTokens: tokens.filter(ofProject(project)).length, members: 0, segments },
        health: { current: health },
        technicalDebt: { current: 100 - health },
        lifecycleSummary: summarizeLifecycles(stages, flags, at),
        staleFlags: { total: active.filter((flag) => flag.stale || flag.potentiallyStale).length },
      }
    },
  }
}

export type ProjectStatusService = ReturnType<typeof createProjectStatusService>
