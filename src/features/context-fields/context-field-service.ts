/**
 * Context fields: the names constraints are offered, their legal values, and whether rollouts
 * may be sticky on them. Built-in fields are rows like any other (the reference lets them be
 * edited and deleted). A project's own field is reached through /projects/:projectId/context
 * as well. Each change and its event go in one transaction.
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import { isForeignKeyViolation, isUniqueViolation } from '../../db/db-errors.ts'
import type { Database } from '../../db/tables.ts'
import { ALL_CLEAN, allOf, field, type BodyRules, uniqueAmong } from '../../http/body-rules.ts'
import { urlFriendlyNameProblems } from '../../http/common-schemas.ts'
import { exceedsLimit, invalidOperation, nameExists, notFound, quote, validationFailed, type AppError } from '../../http/errors.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { LEGAL_VALUES_LIMIT, type CreateContextFieldBody, type LegalValue, type UpdateContextFieldBody } from './context-field-schemas.ts'
import type { FieldUses } from './field-uses.ts'
import {
  createContextFieldStore,
  type ContextField,
  type ContextFieldStore,
  type FieldUsage,
  type StrategyUsingField,
} from './context-field-store.ts'

/** The list shows how much each field is used. */
export type ListedContextField = ContextField & { usedInProjects: number; usedInFeatures: number }

const noSuchField = (name: string): AppError => notFound(`Context field ${quote(name)} does not exist.`)
const notInProject = (name: string, project: string): AppError =>
  notFound(`Context field ${quote(name)} does not belong to project ${quote(project)}.`)
const taken = (name: string): AppError => nameExists(`A context field named ${quote(name)} already exists.`)
const unknownProject = (project: string): AppError =>
  validationFailed([
    { path: '/body/project', message: `The \`/body/project\` property must name an existing project. You sent ${quote(project)}.` },
  ])

// A refusal to delete names this many flags, and says that there are more.
const LISTED_FLAGS = 10

function inUse(name: string, flags: readonly string[]): AppError {
  const listed = flags
    .slice(0, LISTED_FLAGS)
    .map((flag) => quote(flag))
    .join(', ')
  const more = flags.length > LISTED_FLAGS ? ' and more' : ''
  return invalidOperation(
    `Context field ${quote(name)} is used by the strategy constraints of flag${flags.length > 1 ? 's' : ''} ${listed}${more}: remove those constraints first.`,
  )
}

/** No two legal values of a field share a value (the reference's joi `unique`). */
const uniqueLegalValues = uniqueAmong(
  'legalValues',
  'value',
  (earlier, value) => `the legal values: legal value ${earlier} is ${quote(value)}`,
)

/** The rules of a create body beyond its schema (body-rules.ts): a URL-friendly name, unique legal values. */
export const createFieldRules = allOf(field('name', urlFriendlyNameProblems), uniqueLegalValues)
/** The rules of an update body beyond its schema. */
export const updateFieldRules = uniqueLegalValues
/** The rule of a name to validate. */
export const nameRules = field('name', urlFriendlyNameProblems)

function check(rules: BodyRules, body: unknown): void {
  const details = rules(body, ALL_CLEAN)
  if (details.length > 0) throw validationFailed(details)
}

/** Legal values as stored and shown: value, then description when one was sent. */
const legalValuesOf = (input: readonly LegalValue[] | undefined): ContextField['legalValues'] =>
  (input ?? []).map(({ value, description }) => (description === undefined ? { value } : { value, description }))

/** Where a request reaches a field: the root API (any field), or a project's (its own fields only). */
export interface Scope {
  project?: string
}

export function createContextFieldService({ db, changes, uses }: { db: Kysely<Database>; changes: ChangeWatch; uses: FieldUses }) {
  // The usage counts depend on strategies and flags only: remembered per the watch's 'flags' version
  // (a console opening a constraint editor lists the fields each time; the scan is one pass over the
  // strategies that have constraints, docs/api.md).
  let remembered: { version: number; usage: Map<string, FieldUsage> } | undefined
  async function usage(): Promise<Map<string, FieldUsage>> {
    const version = changes.version('flags')
    if (remembered !== undefined && version !== undefined && remembered.version === version) return remembered.usage
    const counted = await uses.usage(db)
    // Kept for this version only if nothing was written meanwhile.
    remembered = version !== undefined && changes.version('flags') === version ? { version, usage: counted } : undefined
    return counted
  }

  /** A project named in a path must exist (404), before anything else is said. */
  async function checkScope(store: ContextFieldStore, scope: Scope): Promise<void> {
    if (scope.project !== undefined && !(await store.holdProject(scope.project))) throw projectNotFound(scope.project)
  }

  /** The field, locked for the change; through a project's API, only that project's own. */
  async function fieldToChange(store: ContextFieldStore, name: string, scope: Scope): Promise<ContextField> {
    await checkScope(store, scope)
    const found = await store.find(name, { forUpdate: true })
    if (!found) throw noSuchField(name)
    if (scope.project !== undefined && found.project !== scope.project) throw notInProject(name, scope.project)
    return found
  }

  /** A project a body names must exist; it is held until the change commits. */
  async function checkBodyProject(store: ContextFieldStore, project: string | undefined): Promise<void> {
    if (project !== undefined && !(await store.holdProject(project))) throw unknownProject(project)
  }

  /**
   * The write that can break the name's uniqueness, or lose its project to a concurrent delete
   * (on PostgreSQL the project is held, so only a delete that came first: it is gone).
   */
  async function writing(write: () => Promise<void>, fieldName: string, project: string | undefined, scope: Scope): Promise<void> {
    try {
      await write()
    } catch (error) {
      if (isUniqueViolation(error)) throw taken(fieldName)
      if (isForeignKeyViolation(error) && project !== undefined)
        throw scope.project === undefined ? unknownProject(project) : projectNotFound(project)
      throw error
    }
  }

  const withUsage = (field: ContextField, usage: Map<string, FieldUsage>): ListedContextField => {
    const used = usage.get(field.name)
    return { ...field, usedInProjects: used?.projects ?? 0, usedInFeatures: used?.features ?? 0 }
  }

  /** Creates a field inside the caller's transaction, with its event (see create). */
  async function createIn(
    trx: Kysely<Database>,
    input: CreateContextFieldBody,
    audit: AuditContext,
    scope: Scope = {},
  ): Promise<ContextField> {
    check(createFieldRules, input)
    const store = createContextFieldStore(trx)
    await checkScope(store, scope)
    const project = scope.project ?? input.project ?? undefined
    if (scope.project === undefined) await checkBodyProject(store, project)
    if (await store.exists(input.name)) throw taken(input.name)
    const created: ContextField = {
      name: input.name,
      description: input.description ?? null,
      stickiness: input.stickiness ?? false,
      sortOrder: input.sortOrder ?? 0,
      legalValues: legalValuesOf(input.legalValues),
      createdAt: audit.createdAt,
      ...(project === undefined ? {} : { project }),
    }
    await writing(() => store.insert(created), input.name, project, scope)
    await appendEvents(trx, audit, [{ type: 'context-field-created', data: created }])
    return created
  }

  return {
    /**
     * Root API: the fields of every project (`include=project`: projects' own fields too).
     * A project's API: its own fields (`include=root`: every project's too).
     */
    list: async (scope: Scope, include: string | undefined): Promise<ListedContextField[]> => {
      const store = createContextFieldStore(db)
      await checkScope(store, scope)
      const fields =
        scope.project === undefined
          ? await store.list({ project: /^project$/i.test(include ?? '') ? 'any' : null })
          : await store.list({ project: scope.project, orRoot: /^root$/i.test(include ?? '') })
      if (fields.length === 0) return []
      const counted = await usage()
      return fields.map((field) => withUsage(field, counted))
    },

    /** Any field by name, through either API (as the reference). */
    get: async (name: string, scope: Scope): Promise<ContextField> => {
      const store = createContextFieldStore(db)
      await checkScope(store, scope)
      const found = await store.find(name)
      if (!found) throw noSuchField(name)
      return found
    },

    /** Through a project's API the field is that project's, whatever the body says. */
    create: (input: CreateContextFieldBody, actor: Actor, scope: Scope): Promise<ContextField> =>
      db.transaction().execute((trx) => createIn(trx, input, auditContext(actor), scope)),

    createIn,

    /**
     * As the reference's PUT: legalValues and stickiness are replaced (none and false when not
     * sent); description is kept when not sent. sortOrder is kept when not sent (the reference
     * resets it to 0), and a project sent moves the field there (null or absent, or through a
     * project's API: it stays).
     */
    update: (name: string, input: UpdateContextFieldBody, actor: Actor, scope: Scope): Promise<void> => {
      check(updateFieldRules, input)
      return db.transaction().execute(async (trx) => {
        const store = createContextFieldStore(trx)
        const before = await fieldToChange(store, name, scope)
        // Through a project's API the field stays the project's.
        const project = scope.project ?? input.project ?? before.project
        if (project !== before.project) await checkBodyProject(store, project)
        const { project: _project, ...rest } = before
        const after: ContextField = {
          ...rest,
          description: input.description === undefined ? before.description : input.description,
          stickiness: input.stickiness ?? false,
          sortOrder: input.sortOrder ?? before.sortOrder,
          legalValues: legalValuesOf(input.legalValues),
          ...(project === undefined ? {} : { project }),
        }
        await writing(() => store.update(after), name, project, scope)
        // (No event when nothing changed: appendEvents drops an event whose data equals its preData.)
        await appendEvents(trx, auditContext(actor), [{ type: 'context-field-updated', data: after, preData: before }])
      })
    },

    /** Adds a legal value at the end, or gives an existing one (same value, in its place) the description sent. */
    upsertLegalValue: (name: string, input: LegalValue, actor: Actor, scope: Scope): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createContextFieldStore(trx)
        const before = await fieldToChange(store, name, scope)
        const [legalValue] = legalValuesOf([input])
        const index = before.legalValues.findIndex((existing) => existing.value === input.value)
        if (index === -1 && before.legalValues.length >= LEGAL_VALUES_LIMIT) {
          throw exceedsLimit(`Context field ${quote(name)} has ${LEGAL_VALUES_LIMIT} legal values already, the most a field can have.`)
        }
        const legalValues =
          index === -1
            ? [...before.legalValues, legalValue!]
            : before.legalValues.map((existing, i) => (i === index ? legalValue! : existing))
        const after: ContextField = { ...before, legalValues }
        await store.update(after)
        await appendEvents(trx, auditContext(actor), [{ type: 'context-field-updated', data: after, preData: before }])
      }),

    /** Removing a value the field does not have changes nothing (200, no event), as the reference answers. */
    deleteLegalValue: (name: string, value: string, actor: Actor, scope: Scope): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createContextFieldStore(trx)
        const before = await fieldToChange(store, name, scope)
        const after: ContextField = { ...before, legalValues: before.legalValues.filter((legalValue) => legalValue.value !== value) }
        if (after.legalValues.length === before.legalValues.length) return
        await store.update(after)
        await appendEvents(trx, auditContext(actor), [{ type: 'context-field-updated', data: after, preData: before }])
      }),

    /**
     * Refused while a strategy of an active flag constrains on it (as the reference: archived
     * flags and segments do not count; a constraint may name any context, defined or not).
     */
    delete: (name: string, actor: Actor, scope: Scope): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createContextFieldStore(trx)
        const before = await fieldToChange(store, name, scope)
        const flags = await uses.flagsUsing(trx, name, LISTED_FLAGS + 1)
        if (flags.length > 0) throw inUse(name, flags)
        await store.delete(name)
        await appendEvents(trx, auditContext(actor), [{ type: 'context-field-deleted', preData: before }])
      }),

    /** 200 when `name` could name a new field; 400 when it is not URL-friendly, 409 when it is taken. */
    validateName: async (name: string, scope: Scope): Promise<void> => {
      check(nameRules, { name })
      const store = createContextFieldStore(db)
      await checkScope(store, scope)
      if (await store.exists(name)) throw taken(name)
    },

    /** The strategies of active flags with a constraint on the field; none for an unknown name. */
    strategiesUsing: async (name: string, scope: Scope): Promise<StrategyUsingField[]> => {
      const store = createContextFieldStore(db)
      await checkScope(store, scope)
      return uses.strategiesUsing(db, name)
    },
  }
}

export type ContextFieldService = ReturnType<typeof createContextFieldService>
