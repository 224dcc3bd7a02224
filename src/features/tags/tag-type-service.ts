/**
 * Tag types: created, changed and deleted, each change with its events in one transaction.
 * Deleting a type deletes its tags, and removes them from the flags that had them (as the
 * reference's foreign keys do), with an event for each of those losses.
 */
import type { Kysely } from 'kysely'
import { isUniqueViolation } from '../../db/db-errors.ts'
import type { Database } from '../../db/tables.ts'
import { nameExists, notFound, quote, type AppError } from '../../http/errors.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { NewEvent } from '../events/event-types.ts'
import { check, tagTypeRules } from './tag-rules.ts'
import type { TagTypeBody, UpdateTagTypeBody } from './tag-schemas.ts'
import { createTagStore } from './tag-store.ts'
import { createTagTypeStore, type TagType } from './tag-type-store.ts'
import type { FlagsOfTags } from './flags-of-tags.ts'

export const tagTypeNotFound = (name: string): AppError => notFound(`Tag type ${quote(name)} does not exist.`)
const tagTypeTaken = (name: string): AppError => nameExists(`A tag type named ${quote(name)} already exists.`)

/** Creates a tag type inside the caller's transaction, with its event. */
async function createIn(trx: Kysely<Database>, input: TagTypeBody, audit: AuditContext): Promise<TagType> {
  check(tagTypeRules, input)
  const store = createTagTypeStore(trx)
  if (await store.find(input.name)) throw tagTypeTaken(input.name)
  const tagType: TagType = {
    name: input.name,
    description: input.description ?? null,
    icon: input.icon ?? null,
    color: input.color ?? null,
  }
  try {
    await store.insert(tagType, audit.createdAt)
  } catch (error) {
    // Two creates raced past the check above: the primary key decides.
    if (isUniqueViolation(error)) throw tagTypeTaken(input.name)
    throw error
  }
  await appendEvents(trx, audit, [{ type: 'tag-type-created', data: tagType }])
  return tagType
}

export function createTagTypeService({ db, flags }: { db: Kysely<Database>; flags: FlagsOfTags }) {
  return {
    list: (): Promise<TagType[]> => createTagTypeStore(db).list(),

    get: async (name: string): Promise<TagType> => {
      const tagType = await createTagTypeStore(db).find(name)
      if (!tagType) throw tagTypeNotFound(name)
      return tagType
    },

    /** Whether a create with this body would succeed: 400 or 409 as create would answer; otherwise the body. */
    validate: async (input: TagTypeBody): Promise<TagTypeBody> => {
      check(tagTypeRules, input)
      if (await createTagTypeStore(db).find(input.name)) throw tagTypeTaken(input.name)
      return input
    },

    create: (input: TagTypeBody, actor: Actor): Promise<TagType> =>
      db.transaction().execute((trx) => createIn(trx, input, auditContext(actor))),

    createIn,

    /** What is sent replaces, what is not is kept. */
    update: (name: string, input: UpdateTagTypeBody, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createTagTypeStore(trx)
        const before = await store.find(name, 'no-key-update')
        if (!before) throw tagTypeNotFound(name)
        const after: TagType = {
          name,
          description: input.description ?? before.description,
          icon: input.icon === undefined ? before.icon : input.icon,
          color: input.color === undefined ? before.color : input.color,
        }
        await store.update(after)
        // (No event when nothing changed: appendEvents drops an event whose data equals its preData.)
        await appendEvents(trx, auditContext(actor), [{ type: 'tag-type-updated', data: after, preData: before }])
      }),

    /** Its tags go too, and leave the flags that had them: each loss, each tag and the type get their event. */
    delete: (name: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createTagTypeStore(trx)
        // Locked first: a tag of this type being added holds the type (FOR KEY SHARE), so its flags are seen below, or it sees no type.
        const tagType = await store.find(name, 'update')
        if (!tagType) throw tagTypeNotFound(name)
        const tags = createTagStore(trx)
        const tagged = await tags.taggedFlags(flags, name)
        const ofType = await tags.list(name)
        await store.delete(name)
        const events: NewEvent[] = [
          ...tagged.map(
            ({ feature, project, type, value }): NewEvent => ({
              type: 'feature-untagged',
              featureName: feature,
              project,
              preData: { type, value },
            }),
          ),
          ...ofType.map((tag): NewEvent => ({ type: 'tag-deleted', data: tag })),
          { type: 'tag-type-deleted', preData: tagType },
        ]
        await appendEvents(trx, auditContext(actor), events)
      }),
  }
}

export type TagTypeService = ReturnType<typeof createTagTypeService>
