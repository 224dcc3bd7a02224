/**
 * Tags, and the tags of flags. Tagging a flag creates the tag when it does not exist yet (its
 * type must), as the reference does. Each change and its events go in one transaction: a tag
 * created, a flag tagged or untagged — only what really changed, so adding a tag a flag has
 * already, or removing one it lacks, records nothing.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid, nameExists, notFound, quote, validationFailed, type AppError, type ErrorDetail } from '../../http/errors.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { NewEvent } from '../events/event-types.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { bulkTagsRules, check, tagRules, updateTagsRules } from './tag-rules.ts'
import type { TagBody, TagsBulkAddBody, UpdateTagsBody } from './tag-schemas.ts'
import { compareTags, createTagStore, tagKey, type Tag, type TaggedFlag } from './tag-store.ts'
import { createTagTypeStore } from './tag-type-store.ts'
import type { FlagsOfTags } from './flags-of-tags.ts'

const tagText = (tag: Tag) => `of type ${quote(tag.type)} with value ${quote(tag.value)}`
const tagNotFound = (tag: Tag): AppError => notFound(`There's no tag ${tagText(tag)}.`)
const flagNotFound = (name: string): AppError => notFound(`There's no flag named ${quote(name)}.`)

/** A tag as stored: its value trimmed, as the reference stores a created tag's. */
const stored = (tag: Pick<TagBody, 'type' | 'value'>): Tag => ({ type: tag.type, value: tag.value.trim() })

/** What a request asks of the tags of some flags: the tags to add and remove, with where each was in the body. */
interface TagChange {
  added: Tag[]
  removed: Tag[]
  /** Where the type of the added tag at an index is in the body, for a 400 naming a type that does not exist. */
  typeAt: (index: number) => string
}

function distinct(tags: readonly Tag[]): Tag[] {
  const seen = new Map<string, Tag>()
  for (const tag of tags) if (!seen.has(tagKey(tag))) seen.set(tagKey(tag), tag)
  return [...seen.values()]
}

/**
 * Adds and removes tags of held flags, as the reference does: the tags to add are created where
 * missing, then added to every flag, then the tags to remove are removed (so a tag in both lists
 * is created, and ends up on none of the flags). Returns the events of what changed: the tags
 * created, then each flag's tags added, then those removed, flag by flag, tag by tag.
 */
async function changeTags(
  trx: Kysely<Database>,
  flags: readonly TaggedFlag[],
  change: TagChange,
  audit: AuditContext,
  userId: number,
): Promise<NewEvent[]> {
  const added = distinct(change.added)
  const removed = distinct(change.removed)
  const types = await createTagTypeStore(trx).hold([...new Set(added.map((tag) => tag.type))])
  const unknown: ErrorDetail[] = change.added.flatMap((tag, index) => {
    const path = change.typeAt(index)
    return types.has(tag.type)
      ? []
      : [{ path, message: `The \`${path}\` property must name an existing tag type. You sent ${quote(tag.type)}.` }]
  })
  if (unknown.length > 0) throw validationFailed(unknown)

  const store = createTagStore(trx)
  const created = added.length === 0 ? [] : await store.ensure(added, audit.createdAt)
  const names = flags.map((flag) => flag.feature)
  const removing = new Set(removed.map(tagKey))
  const tagged = new Map<string, Set<string>>()
  // Rows are written in key order whatever the order sent, so two requests writing the same rows cannot deadlock.
  for (const tag of [...added].sort(compareTags))
    if (!removing.has(tagKey(tag))) tagged.set(tagKey(tag), await store.tag(names, tag, userId, audit.createdAt))
  const untagged = new Map<string, Set<string>>()
  for (const tag of removed) untagged.set(tagKey(tag), await store.untag(names, tag))

  const flagEvents = (lists: Map<string, Set<string>>, tags: readonly Tag[], event: (flag: TaggedFlag, tag: Tag) => NewEvent) =>
    flags.flatMap((flag) => tags.filter((tag) => lists.get(tagKey(tag))?.has(flag.feature)).map((tag) => event(flag, tag)))
  return [
    ...created.map((tag): NewEvent => ({ type: 'tag-created', data: tag })),
    ...flagEvents(tagged, added, (flag, tag) => ({ type: 'feature-tagged', featureName: flag.feature, project: flag.project, data: tag })),
    ...flagEvents(untagged, removed, (flag, tag) => ({
      type: 'feature-untagged',
      featureName: flag.feature,
      project: flag.project,
      preData: tag,
    })),
  ]
}

/**
 * A flag created with tags (the reference's createFeatureSchema `tags`), inside its creating
 * transaction: the same steps as adding them later (missing tags created, the types must exist).
 * Returns the flag's tags, in key order, and the events of what changed.
 */
export async function tagNewFlag(
  trx: Kysely<Database>,
  flag: TaggedFlag,
  sent: ReadonlyArray<Pick<TagBody, 'type' | 'value'>>,
  audit: AuditContext,
): Promise<{ tags: Tag[]; events: NewEvent[] }> {
  const added = sent.map(stored)
  const events = await changeTags(
    trx,
    [flag],
    { added, removed: [], typeAt: (index) => `/body/tags/${index}/type` },
    audit,
    audit.createdByUserId,
  )
  return { tags: distinct(added).sort(compareTags), events }
}

export function createTagService({ db, flags }: { db: Kysely<Database>; flags: FlagsOfTags }) {
  /** One flag's tags changed in one transaction; 404 when it does not exist (archived flags keep, and may change, theirs). */
  const changeFlagTags = (featureName: string, change: TagChange, actor: Actor): Promise<void> =>
    db.transaction().execute(async (trx) => {
      const [flag] = await flags.find(trx, [featureName], { hold: true })
      if (!flag) throw flagNotFound(featureName)
      const audit = auditContext(actor)
      await appendEvents(trx, audit, await changeTags(trx, [flag], change, audit, actor.userId))
    })

  const flagTags = async (featureName: string) => {
    const store = createTagStore(db)
    if ((await flags.find(db, [featureName])).length === 0) throw flagNotFound(featureName)
    return store.ofFlagWithColor(featureName)
  }

  return {
    /** Every tag; or every tag of a type (none for an unknown type, as the reference). */
    list: (type?: string): Promise<Tag[]> => createTagStore(db).list(type),

    get: async (tag: Tag): Promise<Tag> => {
      if (!(await createTagStore(db).exists(tag))) throw tagNotFound(tag)
      return tag
    },

    create: (input: TagBody, actor: Actor): Promise<Tag> => {
      check(tagRules, input)
      const tag = stored(input)
      return db.transaction().execute(async (trx) => {
        if (!(await createTagTypeStore(trx).find(tag.type, 'key-share'))) {
          throw invalid(`The \`/body/type\` property must name an existing tag type. You sent ${quote(tag.type)}.`, '/body/type')
        }
        const audit = auditContext(actor)
        // (A create that raced this one to the same tag finds it there: the insert does nothing.)
        if ((await createTagStore(trx).ensure([tag], audit.createdAt)).length === 0)
          throw nameExists(`A tag ${tagText(tag)} already exists.`)
        await appendEvents(trx, audit, [{ type: 'tag-created', data: tag }])
        return tag
      })
    },

    /** The tag leaves the flags that had it (an event for each), then goes. */
    delete: (tag: Tag, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const store = createTagStore(trx)
        // Locked first: a request adding this tag to flags holds it (FOR KEY SHARE), so its flags are seen below.
        if (!(await store.exists(tag, { forUpdate: true }))) throw tagNotFound(tag)
        const tagged = await store.taggedFlags(flags, tag.type, tag.value)
        await store.delete(tag)
        await appendEvents(trx, auditContext(actor), [
          ...tagged.map(({ feature, project }): NewEvent => ({ type: 'feature-untagged', featureName: feature, project, preData: tag })),
          { type: 'tag-deleted', data: tag },
        ])
      }),

    /** A flag's tags, with their type's color. */
    flagTags,

    /** Tags a flag (creating the tag if needed); returns the tag as stored. */
    addToFlag: async (featureName: string, input: TagBody, actor: Actor): Promise<Tag> => {
      check(tagRules, input)
      const tag = stored(input)
      await changeFlagTags(featureName, { added: [tag], removed: [], typeAt: () => '/body/type' }, actor)
      return tag
    },

    /** Adds, then removes; returns the flag's tags after. */
    updateFlagTags: async (featureName: string, input: UpdateTagsBody, actor: Actor) => {
      check(updateTagsRules, input)
      await changeFlagTags(
        featureName,
        { added: input.addedTags.map(stored), removed: input.removedTags.map(stored), typeAt: (index) => `/body/addedTags/${index}/type` },
        actor,
      )
      return flagTags(featureName)
    },

    /** Removes a tag from a flag; nothing to do (and no event) when the flag lacks it. The path's value is taken as it is. */
    removeFromFlag: (featureName: string, tag: Tag, actor: Actor): Promise<void> =>
      changeFlagTags(featureName, { added: [], removed: [tag], typeAt: () => '' }, actor),

    /**
     * Inside the caller's transaction: each flag's tags made exactly those given (an import), by
     * the same steps as PUT …/tags — flags with the same change in one go; events only for what changed.
     * The tags' types must exist.
     */
    setFlagTagsIn: async (
      trx: Kysely<Database>,
      wanted: ReadonlyMap<string, readonly Tag[]>,
      audit: AuditContext,
      userId: number,
    ): Promise<void> => {
      const held = await flags.find(trx, [...wanted.keys()], { hold: true })
      const current = await createTagStore(trx).ofFlags(held.map((flag) => flag.feature))
      const groups = new Map<string, { flags: TaggedFlag[]; added: Tag[]; removed: Tag[] }>()
      for (const flag of held) {
        const want = distinct((wanted.get(flag.feature) ?? []).map(stored))
        const have = current.get(flag.feature) ?? []
        const wantKeys = new Set(want.map(tagKey))
        const haveKeys = new Set(have.map(tagKey))
        const added = want.filter((tag) => !haveKeys.has(tagKey(tag))).sort(compareTags)
        const removed = have.filter((tag) => !wantKeys.has(tagKey(tag)))
        if (added.length === 0 && removed.length === 0) continue
        const key = JSON.stringify([added.map(tagKey), removed.map(tagKey)])
        const group = groups.get(key) ?? { flags: [], added, removed }
        group.flags.push(flag)
        groups.set(key, group)
      }
      const events: NewEvent[] = []
      for (const { flags: same, added, removed } of groups.values()) {
        events.push(...(await changeTags(trx, same, { added, removed, typeAt: () => '/body/data/featureTags' }, audit, userId)))
      }
      await appendEvents(trx, audit, events)
    },

    /** Adds and removes tags of flags of a project, all or none. */
    updateProjectTags: (projectId: string, input: TagsBulkAddBody, actor: Actor): Promise<void> => {
      check(bulkTagsRules, input)
      return db.transaction().execute(async (trx) => {
        if (!(await createProjectStore(trx).exists(projectId))) throw projectNotFound(projectId)
        const names = [...new Set(input.features)]
        const held = new Map((await flags.find(trx, names, { hold: true })).map((flag) => [flag.feature, flag]))
        const misplaced: ErrorDetail[] = input.features.flatMap((name, index) => {
          const flag = held.get(name)
          if (flag?.project === projectId) return []
          const path = `/body/features/${index}`
          const where = flag ? `is in project ${quote(flag.project)}` : 'does not exist'
          return [
            { path, message: `The \`${path}\` property must name a flag of project ${quote(projectId)}: flag ${quote(name)} ${where}.` },
          ]
        })
        if (misplaced.length > 0) throw validationFailed(misplaced)
        const audit = auditContext(actor)
        const change = {
          added: input.tags.addedTags.map(stored),
          removed: input.tags.removedTags.map(stored),
          typeAt: (index: number) => `/body/tags/addedTags/${index}/type`,
        }
        await appendEvents(
          trx,
          audit,
          await changeTags(
            trx,
            names.map((name) => held.get(name)!),
            change,
            audit,
            actor.userId,
          ),
        )
      })
    },
  }
}

export type TagService = ReturnType<typeof createTagService>
