/**
 * A flag's state in its environments: enabling and disabling (one flag or a batch), and the
 * environment's variants. Every change locks the flag's row in the environment first.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid, validationFailed } from '../../http/errors.ts'
import { applyPatch, type PatchOperation, type ShapeCheck } from '../../http/json-patch.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { StrategyService } from './strategy-service.ts'
import { createStrategyStore, type FeatureStrategy } from './strategy-store.ts'
import { checkVariants, normalizeVariants, type Variant, type VariantInput } from './variant-rules.ts'
import { environmentNotFound, environmentNotInProject } from '../environments/environment-service.ts'
import { createEnvironmentStore } from '../environments/environment-store.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { beforeSwitchingOn } from './active-strategy-rule.ts'
import { createFlagEnvironmentStore, type FeatureEnvironment } from './flag-environment-store.ts'
import { createFlagStore } from '../flags/flag-store.ts'
import { flagNotFound } from '../flags/flag-errors.ts'
import { findFlagEnvironment, lockFlagEnvironment, type FlagEnvironment, type FlagEnvironmentPlace } from './flag-environment.ts'
import type { ChangeRequestGate } from './change-request-gate.ts'

/** A flag's environment as the flag read shows it. */
export function describeEnvironment(state: FeatureEnvironment, strategies: FeatureStrategy[]) {
  return {
    name: state.name,
    lastSeenAt: state.lastSeenAt,
    enabled: state.enabled,
    type: state.type,
    sortOrder: state.sortOrder,
    variantCount: state.variants.length,
    strategies,
    variants: state.variants,
    hasStrategies: strategies.length > 0,
    hasEnabledStrategies: strategies.some((strategy) => !strategy.disabled),
  }
}

/** `gate`: refuses direct changes where the environment needs change requests (change-request-gate.ts). */
export function createFlagEnvironmentService({
  db,
  strategies,
  gate,
}: {
  db: Kysely<Database>
  strategies: StrategyService
  gate: ChangeRequestGate
}) {
  /** The lock every change here takes, then the gate. */
  const lock = async (trx: Kysely<Database>, place: FlagEnvironmentPlace, audit: AuditContext): Promise<FlagEnvironment> => {
    const locked = await lockFlagEnvironment(trx, place)
    await gate.check(trx, place, audit)
    return locked
  }
  const eventFor = (place: FlagEnvironmentPlace) => ({ featureName: place.feature, project: place.project, environment: place.environment })

  /**
   * Inside the transaction: switches one flag in one environment. Switching on where no strategy
   * is active adds the default one (flexibleRollout 100%) first, with its own event before the
   * enabled event, as the reference does (active-strategy-rule.ts). Switching to the state it has
   * changes nothing else.
   */
  async function toggleLocked(trx: Kysely<Database>, place: FlagEnvironmentPlace, enabled: boolean, audit: AuditContext): Promise<void> {
    const { state } = await lock(trx, place, audit)
    if (enabled) await beforeSwitchingOn(trx, place, (input) => strategies.addLockedIn(trx, place, input, audit))
    if (state.enabled === enabled) return
    await createFlagEnvironmentStore(trx).setEnabled(place.feature, place.environment, enabled)
    await appendEvents(trx, audit, [{ type: enabled ? 'feature-environment-enabled' : 'feature-environment-disabled', ...eventFor(place) }])
  }

  async function saveVariants(
    trx: Kysely<Database>,
    place: FlagEnvironmentPlace,
    before: Variant[],
    input: readonly VariantInput[],
    audit: AuditContext,
    path = '/body',
  ): Promise<Variant[]> {
    const details = checkVariants(input, path)
    if (details.length > 0) throw validationFailed(details)
    const after = normalizeVariants(input, { withOverrides: true })
    await createFlagEnvironmentStore(trx).setVariants(place.feature, place.environment, after)
    await appendEvents(trx, audit, [
      { type: 'feature-environment-variants-updated', ...eventFor(place), data: { variants: after }, preData: { variants: before } },
    ])
    return after
  }

  /** PUT …/variants inside the caller's transaction: the flag environment locked, the variants replaced. */
  async function putVariantsIn(
    trx: Kysely<Database>,
    place: FlagEnvironmentPlace,
    input: readonly VariantInput[],
    audit: AuditContext,
  ): Promise<Variant[]> {
    const { state } = await lock(trx, place, audit)
    return saveVariants(trx, place, state.variants, input, audit)
  }

  return {
    /** The variant names a child may require of `parent` (listParentVariantOptions). */
    parentVariants: async (project: string, parent: string): Promise<string[]> => {
      const flag = await createFlagStore(db).find(parent)
      if (!flag || flag.project !== project) throw flagNotFound(parent, project, flag)
      return createFlagEnvironmentStore(db).variantNamesOf(parent)
    },

    get: async (place: FlagEnvironmentPlace) => {
      const { state } = await findFlagEnvironment(db, place)
      const list = await createStrategyStore(db).list(place.feature, place.environment)
      return { ...describeEnvironment(state, list), environment: state.name, featureName: place.feature }
    },

    toggle: (place: FlagEnvironmentPlace, enabled: boolean, actor: Actor): Promise<void> =>
      db.transaction().execute((trx) => toggleLocked(trx, place, enabled, auditContext(actor))),

    /** The switch inside the caller's transaction (as `toggle`: switching on may add the default strategy). */
    toggleIn: toggleLocked,

    /** All or none: every named flag must be an active flag of the project (404 / 400 otherwise). */
    toggleMany: (project: string, environment: string, features: readonly string[], enabled: boolean, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        // The project and the environment are checked even for an empty batch.
        if (!(await createProjectStore(trx).exists(project))) throw projectNotFound(project)
        const environments = createEnvironmentStore(trx)
        if (!(await environments.inProject(project, environment))) {
          throw (await environments.find(environment)) ? environmentNotInProject(environment, project) : environmentNotFound(environment)
        }
        const audit = auditContext(actor)
        // In name order, so two batches that share flags lock them in the same order.
        for (const feature of [...new Set(features)].sort()) await toggleLocked(trx, { project, feature, environment }, enabled, audit)
      }),

    getVariants: async (place: FlagEnvironmentPlace) => ({
      version: 1 as const,
      variants: (await findFlagEnvironment(db, place)).state.variants,
    }),

    putVariants: (place: FlagEnvironmentPlace, input: readonly VariantInput[], actor: Actor) =>
      db
        .transaction()
        .execute(async (trx) => ({ version: 1 as const, variants: await putVariantsIn(trx, place, input, auditContext(actor)) })),

    putVariantsIn,

    /**
     * PUT …/features/:featureName/variants-batch: the same variants in several environments, all or
     * none, an event per environment. Each environment must be one of the project's (404 otherwise;
     * the reference writes an event for an environment the flag is not in).
     */
    putVariantsInEnvironments: (
      place: Omit<FlagEnvironmentPlace, 'environment'>,
      environments: readonly string[] | undefined,
      input: readonly VariantInput[],
      actor: Actor,
    ) => {
      if (environments === undefined || environments.length === 0)
        throw invalid(
          'The `/body/environments` property must name at least one environment: no environments were provided.',
          '/body/environments',
        )
      return db.transaction().execute(async (trx) => {
        const audit = auditContext(actor)
        let variants: Variant[] = []
        // In name order, as batches of switches lock them.
        for (const environment of [...new Set(environments)].sort()) {
          const at = { ...place, environment }
          const { state } = await lock(trx, at, audit)
          variants = await saveVariants(trx, at, state.variants, input, audit, '/body/variants')
        }
        return { version: 1 as const, variants }
      })
    },

    patchVariants: (place: FlagEnvironmentPlace, operations: readonly PatchOperation[], checkShape: ShapeCheck, actor: Actor) =>
      db.transaction().execute(async (trx) => {
        const audit = auditContext(actor)
        const { state } = await lock(trx, place, audit)
        const patched = applyPatch(state.variants, operations)
        const shape = checkShape(patched)
        if (shape.length > 0) throw validationFailed(shape)
        return { version: 1 as const, variants: await saveVariants(trx, place, state.variants, patched as VariantInput[], audit) }
      }),
  }
}

export type FlagEnvironmentService = ReturnType<typeof createFlagEnvironmentService>
