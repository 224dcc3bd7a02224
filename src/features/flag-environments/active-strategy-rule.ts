/**
 * The rule "an enabled flag environment has an active strategy" (one that is not disabled), kept
 * from both sides as the reference keeps it, here only:
 * - switching on where none is active adds the default strategy first: the project's for that
 *   environment if it has one (default-strategy-service.ts), else flexibleRollout, 100%;
 * - a change or removal of strategies that leaves an enabled environment without an active one
 *   switches it off there (nobody would get the flag anyway).
 * Both run inside the transaction that holds the flag environment's lock (flag-environment.ts).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError, invalidOperation, quote } from '../../http/errors.ts'
import { createEnvironmentStore } from '../environments/environment-store.ts'
import type { NewEvent } from '../events/event-types.ts'
import { createFlagEnvironmentStore, type FeatureEnvironment } from './flag-environment-store.ts'
import type { FlagEnvironmentPlace } from './flag-environment.ts'
import type { CreateStrategyBody as StrategyInput } from './strategy-schemas.ts'
import { createStrategyStore, type FeatureStrategy } from './strategy-store.ts'

/** What switching on adds where no strategy is active: a flexible rollout, its parameters' defaults (100%, strategy-rules.ts). */
export const DEFAULT_STRATEGY: StrategyInput = { name: 'flexibleRollout' }

export const hasActiveStrategy = (strategies: readonly FeatureStrategy[]): boolean => strategies.some((strategy) => !strategy.disabled)

/**
 * Switching on: when no strategy there is active (none at all, or every one disabled), `add` adds
 * the default one (the project's in that environment, else the built-in one), after the others,
 * with its event (before the switch's, as the reference).
 */
export async function beforeSwitchingOn(
  trx: Kysely<Database>,
  place: FlagEnvironmentPlace,
  add: (input: StrategyInput) => Promise<unknown>,
): Promise<void> {
  const current = await createStrategyStore(trx).list(place.feature, place.environment)
  if (hasActiveStrategy(current)) return
  const stored = await createEnvironmentStore(trx).defaultStrategy(place.project, place.environment)
  if (!stored) {
    await add(DEFAULT_STRATEGY)
    return
  }
  try {
    // Never a disabled one: it is added to make the environment's flag active. A flexible rollout
    // without a groupId is grouped by the flag (normalizeParameters), as the reference does.
    await add({ ...(JSON.parse(stored) as StrategyInput), disabled: false })
  } catch (error) {
    // What it names may have gone since it was set (a segment deleted): say whose strategy it is.
    if (!(error instanceof AppError) || error.status !== 400) throw error
    throw invalidOperation(
      `The default strategy of project ${quote(place.project)} in environment ${quote(place.environment)} can no longer be added (${error.message}): set it again (POST /api/admin/projects/${place.project}/environments/${place.environment}/default-strategy).`,
    )
  }
}

/**
 * After a change or removal of strategies (`state`: the environment as locked before it): an
 * enabled environment left with no active strategy is switched off. Returns that event, to be
 * written after the change's.
 */
export async function afterStrategiesChanged(
  trx: Kysely<Database>,
  place: FlagEnvironmentPlace,
  state: FeatureEnvironment,
): Promise<NewEvent[]> {
  if (!state.enabled) return []
  const remaining = await createStrategyStore(trx).list(place.feature, place.environment)
  if (hasActiveStrategy(remaining)) return []
  await createFlagEnvironmentStore(trx).setEnabled(place.feature, place.environment, false)
  return [{ type: 'feature-environment-disabled', featureName: place.feature, project: place.project, environment: place.environment }]
}
