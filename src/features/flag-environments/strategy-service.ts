/**
 * Activation strategies of a flag in an environment. Every change locks the flag's row in the
 * environment first (flag-environment.ts), then writes the change and its events together. A
 * change or removal that leaves an enabled environment without an active strategy switches it
 * off there (active-strategy-rule.ts).
 */
import { isDeepStrictEqual } from 'node:util'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/tables.ts'
import { ulid } from '../../db/ulid.ts'
import { notFound, quote, validationFailed, type AppError, type ErrorDetail } from '../../http/errors.ts'
import { ALL_CLEAN, type BodyRules } from '../../http/body-rules.ts'
import { applyPatch, type PatchOperation, type ShapeCheck } from '../../http/json-patch.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { afterStrategiesChanged } from './active-strategy-rule.ts'
import { findFlagEnvironment, lockFlagEnvironment, type FlagEnvironment, type FlagEnvironmentPlace } from './flag-environment.ts'
import type { ChangeRequestGate } from './change-request-gate.ts'
import { normalizeConstraint } from '../constraints/constraints.ts'
import type { LegalValues } from '../context-fields/legal-values.ts'
import { normalizeParameters, strategyBodyRules } from './strategy-rules.ts'
import type { StrategyNames } from '../strategy-definitions/strategy-names.ts'
import type { CreateStrategyBody, SortOrderBody, UpdateStrategyBody } from './strategy-schemas.ts'
import { createStrategyStore, type FeatureStrategy } from './strategy-store.ts'
import { normalizeVariants } from './variant-rules.ts'
import { createSegmentStore, type Segment } from '../segments/segment-store.ts'

const strategyNotFound = (id: string, place: FlagEnvironmentPlace): AppError =>
  notFound(`Flag ${quote(place.feature)} has no strategy ${quote(id)} in environment ${quote(place.environment)}.`)

/** What a PATCH applies to: the strategy without its id. */
const patchable = ({ id: _id, ...fields }: FeatureStrategy) => fields

/** What a PUT makes of a stored strategy. */
const updated = (stored: FeatureStrategy, input: UpdateStrategyBody): StrategyInput => ({
  name: input.name ?? stored.name,
  title: input.title === undefined ? stored.title : input.title,
  disabled: input.disabled ?? stored.disabled,
  segments: input.segments ?? stored.segments,
  sortOrder: input.sortOrder ?? stored.sortOrder,
  constraints: input.constraints ?? [],
  variants: input.variants ?? [],
  ...(input.parameters === undefined ? {} : { parameters: input.parameters }),
})

/** A strategy as sent (POST body), or as a PUT or PATCH leaves it. */
export type StrategyInput = CreateStrategyBody

const eventFor = (place: FlagEnvironmentPlace) => ({ featureName: place.feature, project: place.project, environment: place.environment })

/**
 * `names`: the strategy names flags may use (the definitions', strategy-names.ts); `legalValues`: the
 * context fields' (context-fields/legal-values.ts); `gate`: refuses direct changes where the
 * environment needs change requests (change-request-gate.ts).
 */
export function createStrategyService({
  db,
  config,
  names,
  legalValues,
  gate,
}: {
  db: Kysely<Database>
  config: Config
  names: StrategyNames
  legalValues: LegalValues
  gate: ChangeRequestGate
}) {
  /** The lock every change here takes, then the gate. */
  const lock = async (trx: Kysely<Database>, place: FlagEnvironmentPlace, audit: AuditContext): Promise<FlagEnvironment> => {
    const locked = await lockFlagEnvironment(trx, place)
    await gate.check(trx, place, audit)
    return locked
  }

  // The rules for one set of known names, made again only when the names were read again.
  let rules: { known: ReadonlySet<string>; check: BodyRules } | undefined
  const rulesFor = (known: ReadonlySet<string>): BodyRules =>
    rules?.known === known ? rules.check : (rules = { known, check: strategyBodyRules(known, config.segmentValuesLimit) }).check

  /**
   * Every rule, all violations at once (`segmentDetails`: segmentProblems' and legalValues'
   * findings; `known`: the names confirmed in the transaction); then the stored form.
   */
  function build(
    input: StrategyInput,
    id: string,
    featureName: string,
    sortOrder: number,
    segmentDetails: readonly ErrorDetail[],
    known: ReadonlySet<string>,
  ): FeatureStrategy {
    const details = [...rulesFor(known)(input, ALL_CLEAN), ...segmentDetails]
    if (details.length > 0) throw validationFailed(details)
    return {
      id,
      name: input.name,
      constraints: (input.constraints ?? []).map(normalizeConstraint),
      parameters: normalizeParameters(input.name, input.parameters, featureName),
      variants: normalizeVariants(input.variants ?? [], { withOverrides: false }),
      segments: [...new Set(input.segments ?? [])].sort((a, b) => a - b),
      title: input.title ?? null,
      disabled: input.disabled ?? false,
      sortOrder: input.sortOrder ?? sortOrder,
    }
  }

  /**
   * Segments must exist and, when they belong to a project, to the flag's: the problems found.
   * `segments` as sent (not deduplicated or sorted), so each problem names its index in the body.
   */
  async function segmentProblems(
    trx: Kysely<Database>,
    segments: readonly number[],
    project: string,
    field = 'segments',
  ): Promise<ErrorDetail[]> {
    if (segments.length === 0) return []
    // Held FOR SHARE on PostgreSQL: a segment cannot move to another project, or go, while this strategy takes it up.
    const found = await createSegmentStore(trx).holdProjects(segments)
    const details: ErrorDetail[] = []
    for (const [index, id] of segments.entries()) {
      const at = `/body/${field}/${index}`
      const owner = found.get(id)
      if (owner === undefined)
        details.push({ path: at, message: `The \`${at}\` property must be the id of an existing segment. Segment ${id} does not exist.` })
      else if (owner !== null && owner !== project) {
        details.push({
          path: at,
          message: `The \`${at}\` property names segment ${id}, which belongs to project ${quote(owner)}: a flag of project ${quote(project)} cannot use it.`,
        })
      }
    }
    return details
  }

  /** Inside a locked flag environment: adds a strategy (a new id, or the one it had when it is restored), and its event. */
  async function add(
    trx: Kysely<Database>,
    place: FlagEnvironmentPlace,
    input: StrategyInput,
    audit: AuditContext,
    id = ulid(),
  ): Promise<FeatureStrategy> {
    const store = createStrategyStore(trx)
    const problems = [
      ...(await segmentProblems(trx, input.segments ?? [], place.project)),
      ...(await legalValues.problems(trx, input.constraints ?? [])),
    ]
    const known = await names.confirm(trx, input.name)
    const strategy = build(input, id, place.feature, await store.nextSortOrder(place.feature, place.environment), problems, known)
    await store.insert(place, strategy, audit.createdAt)
    await appendEvents(trx, audit, [{ type: 'feature-strategy-add', ...eventFor(place), data: strategy }])
    return strategy
  }

  /** Inside the caller's transaction: replaces a strategy by the input `next` makes of the stored one, with its events; nothing when nothing changed. */
  async function changeIn(
    trx: Kysely<Database>,
    place: FlagEnvironmentPlace,
    id: string,
    audit: AuditContext,
    next: (stored: FeatureStrategy) => StrategyInput,
  ): Promise<FeatureStrategy> {
    const { state } = await lock(trx, place, audit)
    const store = createStrategyStore(trx)
    const before = await store.find(place, id)
    if (!before) throw strategyNotFound(id, place)
    const input = next(before)
    const problems = [
      ...(await segmentProblems(trx, input.segments ?? [], place.project)),
      ...(await legalValues.problems(trx, input.constraints ?? [])),
    ]
    const after = build(input, before.id, place.feature, before.sortOrder, problems, await names.confirm(trx, input.name))
    if (isDeepStrictEqual(after, before)) return before
    await store.update(after)
    const disabled = await afterStrategiesChanged(trx, place, state)
    await appendEvents(trx, audit, [{ type: 'feature-strategy-update', ...eventFor(place), data: after, preData: before }, ...disabled])
    return after
  }

  /** POST inside the caller's transaction: the flag environment locked, the strategy added after the others, its event. */
  async function createIn(
    trx: Kysely<Database>,
    place: FlagEnvironmentPlace,
    input: StrategyInput,
    audit: AuditContext,
  ): Promise<FeatureStrategy> {
    await lock(trx, place, audit)
    return add(trx, place, input, audit)
  }

  const change = (
    place: FlagEnvironmentPlace,
    id: string,
    actor: Actor,
    next: (stored: FeatureStrategy) => StrategyInput,
  ): Promise<FeatureStrategy> => db.transaction().execute((trx) => changeIn(trx, place, id, auditContext(actor), next))

  /** DELETE inside the caller's transaction: the strategy and its event (and the switch off when no active one is left). */
  async function deleteIn(trx: Kysely<Database>, place: FlagEnvironmentPlace, id: string, audit: AuditContext): Promise<void> {
    const { state } = await lock(trx, place, audit)
    const store = createStrategyStore(trx)
    const strategy = await store.find(place, id)
    if (!strategy) throw strategyNotFound(id, place)
    await store.delete(id)
    const disabled = await afterStrategiesChanged(trx, place, state)
    await appendEvents(trx, audit, [{ type: 'feature-strategy-remove', ...eventFor(place), preData: strategy }, ...disabled])
  }

  return {
    /** For the routes: the rules of a body beyond its schema (body-rules.ts), with the names last read. */
    bodyRules: ((body, clean) => rulesFor(names.known())(body, clean)) satisfies BodyRules,

    /** For the routes, before they validate a body: the known names read again if they may have changed. */
    refreshNames: (): Promise<void> => names.refresh(),

    list: async (place: FlagEnvironmentPlace): Promise<FeatureStrategy[]> => {
      await findFlagEnvironment(db, place)
      return createStrategyStore(db).list(place.feature, place.environment)
    },

    get: async (place: FlagEnvironmentPlace, id: string): Promise<FeatureStrategy> => {
      await findFlagEnvironment(db, place)
      const strategy = await createStrategyStore(db).find(place, id)
      if (!strategy) throw strategyNotFound(id, place)
      return strategy
    },

    /** Adding a strategy does not enable the environment (as the reference). */
    create: (place: FlagEnvironmentPlace, input: CreateStrategyBody, actor: Actor): Promise<FeatureStrategy> =>
      db.transaction().execute((trx) => createIn(trx, place, input, auditContext(actor))),

    createIn,

    /**
     * As the reference: constraints, variants and parameters are replaced (not sent: none, or a
     * flexible rollout's defaults); name, title, disabled, segments and sortOrder are kept when not sent.
     */
    update: (place: FlagEnvironmentPlace, id: string, input: UpdateStrategyBody, actor: Actor): Promise<FeatureStrategy> =>
      change(place, id, actor, (stored) => updated(stored, input)),

    /** PUT inside the caller's transaction (an applied change request). */
    updateIn: (
      trx: Kysely<Database>,
      place: FlagEnvironmentPlace,
      id: string,
      input: UpdateStrategyBody,
      audit: AuditContext,
    ): Promise<FeatureStrategy> => changeIn(trx, place, id, audit, (stored) => updated(stored, input)),

    /** JSON Patch on the strategy without its id; the result must be a valid strategy. */
    patch: (
      place: FlagEnvironmentPlace,
      id: string,
      operations: readonly PatchOperation[],
      checkShape: ShapeCheck,
      actor: Actor,
    ): Promise<FeatureStrategy> =>
      change(place, id, actor, (stored) => {
        const patched = applyPatch(patchable(stored), operations)
        const shape = checkShape(patched)
        if (shape.length > 0) throw validationFailed(shape)
        return patched as StrategyInput
      }),

    /**
     * POST /segments/strategies: the strategy `id`, known only by its id, in the project and
     * environment the caller names (else a 404, as for an unknown id), gets exactly these
     * segments; the rest is kept. Its `feature-strategy-update` event, as a PUT of the same change.
     */
    setSegments: (project: string, environment: string, id: string, segments: number[], actor: Actor): Promise<FeatureStrategy> =>
      db.transaction().execute(async (trx) => {
        const place = await createStrategyStore(trx).placeOf(id)
        if (place === undefined || place.project !== project || place.environment !== environment)
          throw notFound(`Project ${quote(project)} has no strategy ${quote(id)} in environment ${quote(environment)}.`)
        // Named as this body names them (segmentIds); changeIn checks them again, then finds nothing.
        const problems = await segmentProblems(trx, segments, place.project, 'segmentIds')
        if (problems.length > 0) throw validationFailed(problems)
        return changeIn(trx, place, id, auditContext(actor), (stored) => ({ ...patchable(stored), segments }))
      }),

    /** GET /segments/strategies/:strategyId: the segments the strategy uses, by id (none when there is no such strategy, as the reference). */
    segmentsOf: async (id: string): Promise<Segment[]> => {
      const store = createStrategyStore(db)
      const place = await store.placeOf(id)
      const strategy = place && (await store.find(place, id))
      return strategy === undefined ? [] : createSegmentStore(db).findMany(strategy.segments)
    },

    delete: (place: FlagEnvironmentPlace, id: string, actor: Actor): Promise<void> =>
      db.transaction().execute((trx) => deleteIn(trx, place, id, auditContext(actor))),

    /**
     * For a revert, inside its transaction: the strategy `id` made exactly `input` again — replaced
     * when it exists, added back under the same id (ids are ULIDs, never reused) when it is gone.
     */
    restoreIn: async (
      trx: Kysely<Database>,
      place: FlagEnvironmentPlace,
      id: string,
      input: StrategyInput,
      audit: AuditContext,
    ): Promise<FeatureStrategy> => {
      await lock(trx, place, audit)
      if (await createStrategyStore(trx).find(place, id)) return changeIn(trx, place, id, audit, () => input)
      return add(trx, place, input, audit, id)
    },

    deleteIn,

    /** Each listed strategy gets its sort order; an id that is not one of this flag environment's is a 404 and nothing changes. */
    setSortOrder: (place: FlagEnvironmentPlace, orders: SortOrderBody, actor: Actor): Promise<void> =>
      db.transaction().execute((trx) => setSortOrderIn(trx, place, orders, auditContext(actor))),

    setSortOrderIn,

    /**
     * Inside a transaction that holds the flag environment's lock (switching on, active-strategy-rule.ts):
     * adds a strategy after the others, with its event.
     */
    addLockedIn: (
      trx: Kysely<Database>,
      place: FlagEnvironmentPlace,
      input: StrategyInput,
      audit: AuditContext,
    ): Promise<FeatureStrategy> => add(trx, place, input, audit),

    /**
     * Inside the caller's transaction: every rule a strategy added to a flag of `project` must
     * keep (a known name, its parameters, constraints, variants, segments), all violations in
     * one 400. For a strategy kept to be added later: a project's default one.
     */
    checkIn: async (trx: Kysely<Database>, project: string, input: StrategyInput): Promise<void> => {
      const problems = [
        ...(await segmentProblems(trx, input.segments ?? [], project)),
        ...(await legalValues.problems(trx, input.constraints ?? [])),
      ]
      build(input, '', '', 0, problems, await names.confirm(trx, input.name))
    },
  }

  /** Each listed strategy gets its sort order, inside the caller's transaction. */
  async function setSortOrderIn(
    trx: Kysely<Database>,
    place: FlagEnvironmentPlace,
    orders: SortOrderBody,
    audit: AuditContext,
  ): Promise<void> {
    await lock(trx, place, audit)
    const store = createStrategyStore(trx)
    const before = await store.list(place.feature, place.environment)
    const known = new Set(before.map((strategy) => strategy.id))
    const unknown = orders.find((order) => !known.has(order.id))
    if (unknown) throw strategyNotFound(unknown.id, place)
    for (const order of orders) await store.setSortOrder(order.id, order.sortOrder)
    const after = await store.list(place.feature, place.environment)
    // The reference's payload (the ids in order), and the sort orders beside them, so that a
    // change of numbers that keeps the order is recorded too; nothing changed, no event.
    const ids = (strategies: FeatureStrategy[]) => ({
      strategyIds: strategies.map((s) => s.id),
      sortOrders: strategies.map((s) => s.sortOrder),
    })
    await appendEvents(trx, audit, [{ type: 'strategy-order-changed', ...eventFor(place), data: ids(after), preData: ids(before) }])
  }
}

export type StrategyService = ReturnType<typeof createStrategyService>
