/**
 * Strategy definitions: custom ones are created, changed and deleted; any one, built-in or
 * custom, is deprecated and reactivated. Each change and its event go in one transaction.
 */
import type { Kysely } from 'kysely'
import { isUniqueViolation } from '../../db/db-errors.ts'
import type { Database } from '../../db/tables.ts'
import { ALL_CLEAN, allOf, field, type BodyRules, uniqueAmong } from '../../http/body-rules.ts'
import { urlFriendlyNameProblems } from '../../http/common-schemas.ts'
import { invalidOperation, nameExists, notFound, quote, validationFailed, type AppError } from '../../http/errors.ts'
import { auditContext, type Actor } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { CreateStrategyDefinitionBody, UpdateStrategyDefinitionBody } from './strategy-definition-schemas.ts'
import { createStrategyDefinitionStore } from './strategy-definition-store.ts'
import type { DefinitionUses } from './definition-uses.ts'
import type { StrategyDefinition, StrategyParameterDefinition } from './strategy-definitions.ts'

const noSuchStrategy = (name: string): AppError => notFound(`Strategy ${quote(name)} does not exist.`)
const builtIn = (name: string, change: string): AppError =>
  invalidOperation(
    `Strategy ${quote(name)} is built in: it cannot be ${change}. It can be deprecated (POST /api/admin/strategies/${name}/deprecate).`,
  )

// A refusal to delete names this many flags, and says that there are more.
const LISTED_FLAGS = 10

function inUse(name: string, flags: readonly string[]): AppError {
  const listed = flags
    .slice(0, LISTED_FLAGS)
    .map((flag) => quote(flag))
    .join(', ')
  const more = flags.length > LISTED_FLAGS ? ' and more' : ''
  const plural = flags.length > 1 ? 's' : ''
  return invalidOperation(
    `Strategy ${quote(name)} is used by the strategies of flag${plural} ${listed}${more}: remove them first, or deprecate it instead.`,
  )
}

/** No two parameters of a definition share a name (each is a key of a flag strategy's `parameters`). */
const uniqueParameterNames = uniqueAmong(
  'parameters',
  'name',
  (earlier, name) => `the parameters: parameter ${earlier} is named ${quote(name)}`,
)

/** The rules of a create body beyond its schema (body-rules.ts): a URL-friendly name, unique parameter names. */
export const createDefinitionRules = allOf(field('name', urlFriendlyNameProblems), uniqueParameterNames)
/** The rules of an update body beyond its schema. */
export const updateDefinitionRules = uniqueParameterNames

function check(rules: BodyRules, body: unknown): void {
  const details = rules(body, ALL_CLEAN)
  if (details.length > 0) throw validationFailed(details)
}

/** Parameters as stored and shown: the four fields, in this order, description '' and required false when not sent. */
const parametersOf = (input: CreateStrategyDefinitionBody['parameters']): StrategyParameterDefinition[] =>
  input.map(({ name, type, description, required }) => ({ name, type, description: description ?? '', required: required ?? false }))

export function createStrategyDefinitionService({ db, uses }: { db: Kysely<Database>; uses: DefinitionUses }) {
  return {
    list: (): Promise<StrategyDefinition[]> => createStrategyDefinitionStore(db).list(),

    get: async (name: string): Promise<StrategyDefinition> => {
      const definition = await createStrategyDefinitionStore(db).find(name)
      if (!definition) throw noSuchStrategy(name)
      return definition
    },

    /** A custom definition: editable, not deprecated (whatever the body says, as the reference). */
    create: (input: CreateStrategyDefinitionBody, actor: Actor): Promise<StrategyDefinition> => {
      check(createDefinitionRules, input)
      const taken = () => nameExists(`A strategy named ${quote(input.name)} already exists.`)
      return db.transaction().execute(async (trx) => {
        const store = createStrategyDefinitionStore(trx)
        if (await store.find(input.name)) throw taken()
        const audit = auditContext(actor)
        const definition: StrategyDefinition = {
          title: input.title ?? null,
          name: input.name,
          displayName: null,
          description: input.description ?? null,
          editable: true,
          deprecated: false,
          parameters: parametersOf(input.parameters),
        }
        try {
          await store.insert(definition, audit.createdAt)
        } catch (error) {
          // Two creates raced past the check above: the primary key decides.
          if (isUniqueViolation(error)) throw taken()
          throw error
        }
        await appendEvents(trx, audit, [{ type: 'strategy-created', data: definition }])
        return definition
      })
    },

    /** `parameters` are replaced; `title` and `description` are kept when not sent. Built-ins are refused. */
    update: (name: string, input: UpdateStrategyDefinitionBody, actor: Actor): Promise<void> => {
      check(updateDefinitionRules, input)
      return db.transaction().execute(async (trx) => {
        const store = createStrategyDefinitionStore(trx)
        const before = await store.find(name, { forUpdate: true })
        if (!before) throw noSuchStrategy(name)
        if (!before.editable) throw builtIn(name, 'changed')
        const after: StrategyDefinition = {
          ...before,
          title: input.title === undefined ? before.title : input.title,
          description: input.description === undefined ? before.description : input.description,
          parameters: parametersOf(input.parameters),
        }
        await store.update(after)
        // (No event when nothing changed: appendEvents drops an event whose data equals its preData.)
        await appendEvents(trx, auditContext(actor), [{ type: 'strategy-updated', data: after, preData: before }])
      })
    },

    /** Built-ins are refused, and so is a definition a flag strategy uses (archived flags' too: a revive brings them back). */
    delete: (name: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createStrategyDefinitionStore(trx)
        // Locked first: a strategy taking it up meanwhile holds it (strategy-names.ts), so either that strategy is seen below or it sees no definition.
        const definition = await store.find(name, { forUpdate: true })
        if (!definition) throw noSuchStrategy(name)
        if (!definition.editable) throw builtIn(name, 'deleted')
        const flags = await uses.flagsUsing(trx, name, LISTED_FLAGS + 1)
        if (flags.length > 0) throw inUse(name, flags)
        await store.delete(name)
        await appendEvents(trx, auditContext(actor), [{ type: 'strategy-deleted', data: { name }, preData: definition }])
      }),

    /** Built-in or custom. Setting the state it has already writes nothing (no event). */
    setDeprecated: (name: string, deprecated: boolean, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createStrategyDefinitionStore(trx)
        const definition = await store.find(name, { forUpdate: true })
        if (!definition) throw noSuchStrategy(name)
        if (definition.deprecated === deprecated) return
        await store.setDeprecated(name, deprecated)
        await appendEvents(trx, auditContext(actor), [
          { type: deprecated ? 'strategy-deprecated' : 'strategy-reactivated', data: { name } },
        ])
      }),
  }
}

export type StrategyDefinitionService = ReturnType<typeof createStrategyDefinitionService>
