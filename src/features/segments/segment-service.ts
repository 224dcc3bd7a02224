import { isDeepStrictEqual } from 'node:util'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { advanceCounter } from '../../db/counters.ts'
import { dialectOf } from '../../db/dialect.ts'
import { isForeignKeyViolation, isUniqueViolation } from '../../db/db-errors.ts'
import { createGroupCommit, RetryAlone } from '../../db/group-commit.ts'
import type { Database } from '../../db/tables.ts'
import {
  exceedsLimit,
  invalidOperation,
  nameExists,
  notFound,
  quote,
  validationFailed,
  type AppError,
  type ErrorDetail,
} from '../../http/errors.ts'
import { ALL_CLEAN, allOf, field } from '../../http/body-rules.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents, eventAroundIds } from '../events/event-store.ts'
import type { LegalValues } from '../context-fields/legal-values.ts'
import { checkConstraint, constraintsRule, normalizeConstraint, type Constraint, type ConstraintInput } from '../constraints/constraints.ts'
import { OPEN_SEGMENT_GATE, type SegmentChangeRequestGate } from './change-request-gate.ts'
import type { SegmentUses } from './segment-uses.ts'
import { createSegmentStore, insertCountedWithEvents, type CountedInsert, type Segment, type SegmentCreate } from './segment-store.ts'

export interface SegmentInput {
  name: string
  description?: string | null
  project?: string | null
  constraints: ConstraintInput[]
}

/** What a request decides about a segment; the rest (id, createdBy, createdAt) the service assigns. */
interface SegmentFields {
  name: string
  description: string | null
  project: string | null
  constraints: Constraint[]
}

const NAME_MAX_LENGTH = 255

function checkName(sent: string, trimmed: string): ErrorDetail[] {
  // Counted in code points, as the schema counts every other string.
  const length = [...trimmed].length
  if (length === 0)
    return [{ path: '/body/name', message: `The \`/body/name\` property must not be empty or only whitespace. You sent ${quote(sent)}.` }]
  if (length > NAME_MAX_LENGTH) {
    const message = `The \`/body/name\` property must be at most ${NAME_MAX_LENGTH} characters long once outer whitespace is trimmed. You sent ${quote(sent)}.`
    return [{ path: '/body/name', message }]
  }
  return []
}

const unknownProject = (project: string): ErrorDetail => ({
  path: '/body/project',
  message: `The \`/body/project\` property must name an existing project. You sent ${quote(project)}.`,
})

const nameTaken = (name: string): AppError => nameExists(`A segment named ${quote(name)} already exists.`)
const noSuchSegment = (id: number): AppError => notFound(`Segment ${id} does not exist.`)
const segmentInUse = (id: number, flags: readonly string[]): AppError =>
  invalidOperation(
    flags.length === 0
      ? `Segment ${id} is in use by a strategy: remove it from the strategies that use it first.`
      : `Segment ${id} is in use by the strategies of flag${flags.length > 1 ? 's' : ''} ${flags.map((f) => quote(f)).join(', ')}: remove it from them first.`,
  )

function assemble(id: number, fields: SegmentFields, createdBy: string, createdAt: string): Segment {
  const { name, description, project, constraints } = fields
  return { id, name, description, ...(project === null ? {} : { project }), constraints, createdBy, createdAt }
}

/** The insert or update that can break the name's uniqueness or lose its project to a concurrent delete. */
async function write<T>(fields: SegmentFields, statement: Promise<T>): Promise<T> {
  try {
    return await statement
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(fields.name)
    if (isForeignKeyViolation(error) && fields.project !== null) throw validationFailed([unknownProject(fields.project)])
    throw error
  }
}

// Most creates in one transaction (group commit).
const CREATES_PER_COMMIT = 64

export function createSegmentService({
  db,
  config,
  legalValues,
  uses,
  gate = OPEN_SEGMENT_GATE,
}: {
  db: Kysely<Database>
  config: Config
  legalValues: LegalValues
  uses: SegmentUses
  /** Refuses a direct change of a segment whose project needs change requests (403). */
  gate?: SegmentChangeRequestGate
}) {
  /**
   * Creates that arrive while one is written go together in the next transaction (group-commit.ts):
   * on PostgreSQL one statement, one lock hold on the counters and one flush for the batch; on
   * SQLite, where a short write never leaves the event loop, those that arrived in the same turn of
   * it share one transaction and one commit.
   */
  const createTogether = createGroupCommit<SegmentCreate, CountedInsert>({
    alone: async (create) => (await insertCountedWithEvents(db, [create], config.segmentsLimit))[0]!,
    together: (creates) =>
      insertCountedWithEvents(db, creates, config.segmentsLimit).catch((error: unknown) => {
        // A name or project changed by another transaction meanwhile: the batch wrote nothing;
        // alone, each create reports its own outcome (409, 400) and the others go through.
        throw isUniqueViolation(error) || isForeignKeyViolation(error) ? new RetryAlone(error) : error
      }),
    maxItems: CREATES_PER_COMMIT,
    schedule: dialectOf(db) === 'postgres' ? undefined : (start) => void setImmediate(start),
  })

  const nameRule = field('name', (name: string) => checkName(name, name.trim()))
  const constraintsRuleOfSegments = constraintsRule({ valuesLimit: config.segmentValuesLimit })

  /**
   * Every rule that needs no transaction, all violations at once. The project is
   * looked up here only to complete a report that is failing anyway; a valid
   * request checks it inside its transaction.
   */
  async function validate(input: SegmentInput, database: Kysely<Database> = db): Promise<SegmentFields> {
    const fields: SegmentFields = {
      name: input.name.trim(),
      description: input.description ?? null,
      project: input.project || null,
      constraints: input.constraints.map(normalizeConstraint),
    }
    const nameDetails = nameRule(input, ALL_CLEAN)
    // Values outside a context field's legal values (those are remembered while nothing changes).
    const constraintDetails = [...constraintsRuleOfSegments(input, ALL_CLEAN), ...(await legalValues.problems(database, input.constraints))]
    if (nameDetails.length + constraintDetails.length > 0) {
      const projectDetails =
        fields.project !== null && !(await createSegmentStore(database).projectExists(fields.project))
          ? [unknownProject(fields.project)]
          : []
      throw validationFailed([...nameDetails, ...projectDetails, ...constraintDetails])
    }
    return fields
  }

  async function checkProject(store: ReturnType<typeof createSegmentStore>, project: string | null): Promise<void> {
    if (project !== null && !(await store.projectExists(project))) throw validationFailed([unknownProject(project)])
  }

  /** The update, in `trx`: the segment locked, the gate asked for the project it is in and the one it goes to. */
  async function updateIn(trx: Kysely<Database>, id: number, fields: SegmentFields, audit: AuditContext): Promise<void> {
    const store = createSegmentStore(trx)
    const before = await store.find(id, { forUpdate: true })
    if (!before) throw noSuchSegment(id)
    for (const project of new Set([before.project, fields.project])) if (project) await gate.checkSegmentProject(trx, project, audit)
    await checkProject(store, fields.project)
    if (fields.project !== null && fields.project !== (before.project ?? null)) {
      const elsewhere = [
        ...new Set((await uses.strategiesUsing(trx, id)).filter((s) => s.projectId !== fields.project).map((s) => s.projectId)),
      ]
      if (elsewhere.length > 0) {
        throw invalidOperation(
          `Segment ${id} cannot move to project ${quote(fields.project)}: strategies of project${elsewhere.length > 1 ? 's' : ''} ${elsewhere.map((p) => quote(p)).join(', ')} use it.`,
        )
      }
    }
    const after = assemble(id, fields, before.createdBy, before.createdAt)
    // A PUT that changes nothing writes nothing, event included.
    if (isDeepStrictEqual(after, before)) return
    await write(fields, store.update(after))
    await appendEvents(trx, audit, [{ type: 'segment-updated', project: fields.project, data: after, preData: before }])
  }

  /** The deletion, in `trx`: refused while a strategy uses it, or (the gate) while its project needs change requests. */
  async function deleteIn(trx: Kysely<Database>, id: number, audit: AuditContext): Promise<void> {
    // The count first, as create does: the same lock order keeps a delete and a create of
    // the same name from waiting on each other (a rollback on 404 restores the count).
    await advanceCounter(trx, 'segment_count', -1)
    const store = createSegmentStore(trx)
    const found = await store.find(id, { forUpdate: true })
    if (!found) throw noSuchSegment(id)
    if (found.project) await gate.checkSegmentProject(trx, found.project, audit)
    const users = [...new Set((await uses.strategiesUsing(trx, id)).map((strategy) => strategy.featureName))]
    if (users.length > 0) throw segmentInUse(id, users)
    const segment = await store.delete(id).catch((error: unknown) => {
      // A strategy took it up meanwhile (PostgreSQL: its insert committed between the check and the delete).
      throw isForeignKeyViolation(error) ? segmentInUse(id, []) : error
    })
    if (!segment) throw noSuchSegment(id)
    await appendEvents(trx, audit, [{ type: 'segment-deleted', project: segment.project ?? null, preData: segment }])
  }

  return {
    /** The rules of a body beyond its schema, for a report that lists every violation (body-rules.ts). */
    bodyRules: allOf(nameRule, constraintsRuleOfSegments),

    /** Whether a create could take this name: the name rules (400), then no segment holding it (409). Nothing is written. */
    validateName: async (name: string): Promise<void> => {
      const details = checkName(name, name.trim())
      if (details.length > 0) throw validationFailed(details)
      if (await createSegmentStore(db).hasName(name.trim())) throw nameTaken(name.trim())
    },

    /** One constraint as the body (`/body`): the rules of its operator and its field's legal values, every violation at once. */
    validateConstraint: async (constraint: ConstraintInput): Promise<void> => {
      const details = [...checkConstraint(constraint, '/body'), ...(await legalValues.problems(db, [constraint], () => '/body'))]
      if (details.length > 0) throw validationFailed(details)
    },

    /** With how many active flags, and projects, use each segment through their strategies. */
    list: async () => {
      const store = createSegmentStore(db)
      const [segments, usage] = await Promise.all([store.list(), uses.usage(db)])
      return segments.map(({ createdBy, createdAt, ...segment }) => ({
        ...segment,
        usedInFeatures: usage.get(segment.id)?.usedInFeatures ?? 0,
        usedInProjects: usage.get(segment.id)?.usedInProjects ?? 0,
        createdBy,
        createdAt,
      }))
    },

    /** The strategies that use a segment. */
    strategies: async (id: number) => {
      const store = createSegmentStore(db)
      if (!(await store.find(id))) throw noSuchSegment(id)
      return { strategies: await uses.strategiesUsing(db, id), changeRequestStrategies: [] }
    },

    get: async (id: number): Promise<Segment> => {
      const segment = await createSegmentStore(db).find(id)
      if (!segment) throw noSuchSegment(id)
      return segment
    },

    create: async (input: SegmentInput, actor: Actor): Promise<Segment> => {
      const fields = await validate(input)
      const audit = auditContext(actor)
      const segment = (id: number) => assemble(id, fields, actor.name, audit.createdAt)
      const limitReached = () =>
        exceedsLimit(`Failed to create the segment: this instance already holds the maximum of ${config.segmentsLimit} segments.`)
      // The project is checked first so that an unknown one is reported before a full count; the
      // foreign key still catches a project deleted meanwhile. The limit is checked against the
      // maintained count, inside the write's transaction, so it holds under concurrency.
      await checkProject(createSegmentStore(db), fields.project)
      const event = eventAroundIds(audit, { type: 'segment-created', project: fields.project, data: segment(0) })
      const outcome = await write(fields, createTogether({ segment: segment(0), event }))
      if ('id' in outcome) return segment(outcome.id)
      throw outcome.refused === 'limit' ? limitReached() : nameTaken(fields.name)
    },

    update: async (id: number, input: SegmentInput, actor: Actor): Promise<void> => {
      const fields = await validate(input)
      await db.transaction().execute((trx) => updateIn(trx, id, fields, auditContext(actor)))
    },

    delete: (id: number, actor: Actor): Promise<void> => db.transaction().execute((trx) => deleteIn(trx, id, auditContext(actor))),

    /** The update as a change request applies it: in its transaction, with its audit (docs/change-requests.md). */
    updateIn: async (trx: Kysely<Database>, id: number, input: SegmentInput, audit: AuditContext): Promise<void> =>
      updateIn(trx, id, await validate(input, trx), audit),

    /** The deletion as a change request applies it: in its transaction, with its audit. */
    deleteIn,
  }
}

export type SegmentService = ReturnType<typeof createSegmentService>
