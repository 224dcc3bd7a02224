/**
 * A project's default strategy per environment (POST /projects/:id/environments/:env/default-strategy):
 * what switching a flag on there adds where it has no active strategy (active-strategy-rule.ts).
 * Kept as sent, as the reference keeps it, once it passes every rule a flag's strategy must.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid } from '../../http/errors.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { environmentNotFound, environmentNotInProject } from '../environments/environment-service.ts'
import { createEnvironmentStore } from '../environments/environment-store.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import type { StrategyService } from './strategy-service.ts'
import type { CreateStrategyBody } from './strategy-schemas.ts'

export function createDefaultStrategyService({ db, strategies }: { db: Kysely<Database>; strategies: StrategyService }) {
  return {
    /** Sets it; event `default-strategy-updated` (data: the strategy, preData: the one before, or null). */
    set: (project: string, environment: string, input: CreateStrategyBody, actor: Actor): Promise<CreateStrategyBody> =>
      db.transaction().execute(async (trx) => {
        if (!(await createProjectStore(trx).hold(project))) throw projectNotFound(project)
        const environments = createEnvironmentStore(trx)
        const before = await environments.defaultStrategy(project, environment, { lock: true })
        if (before === undefined) {
          throw (await environments.find(environment)) ? environmentNotInProject(environment, project) : environmentNotFound(environment)
        }
        if (input.name !== 'flexibleRollout') {
          throw invalid('Only "flexibleRollout" strategy can be used as a default strategy for an environment', '/body/name')
        }
        await strategies.checkIn(trx, project, input)
        await environments.setDefaultStrategy(project, environment, JSON.stringify(input))
        await appendEvents(trx, auditContext(actor), [
          { type: 'default-strategy-updated', project, environment, data: input, preData: before === null ? null : JSON.parse(before) },
        ])
        return input
      }),
  }
}

export type DefaultStrategyService = ReturnType<typeof createDefaultStrategyService>
