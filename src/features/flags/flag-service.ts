import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import { isForeignKeyViolation, isUniqueViolation } from '../../db/db-errors.ts'
import type { Database } from '../../db/tables.ts'
import { checkUrlFriendlyName } from '../../http/common-schemas.ts'
import { nameExists, quote, type AppError } from '../../http/errors.ts'
import { parsePaging } from '../../http/paging.ts'
import type { Principal } from '../../http/permissions.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { currentStage, enterStages, stagesOf, type EnteredStage } from '../lifecycle/lifecycle-store.ts'
import { createArchiveService } from './archive-service.ts'
import type { ProjectChangeRequestGate } from './change-request-gate.ts'
import { createArchiveValidator } from './archive-validation.ts'
import { createDependencyService } from './dependency-service.ts'
import { createDependencyStore, type Dependency } from './dependency-store.ts'
import type { EnvironmentOfFlag, EnvironmentsOfFlags } from './environments-of-flags.ts'
import { flagNotFound } from './flag-errors.ts'
import { lifetimeCutoffs, withPotentiallyStale } from '../feature-types/feature-type-service.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import type { CreateFlagBody, ProjectFlagsQuery } from './flag-schemas.ts'
import { createFlagLinkStore, type FlagLink } from './flag-link-store.ts'
import { createFlagStore, type Flag } from './flag-store.ts'
import { withTags, type TagFilter } from '../tags/tag-filter.ts'
import { tagNewFlag } from '../tags/tag-service.ts'
import { check, newFlagTagsRules } from '../tags/tag-rules.ts'

/** A flag as read: whether it outlived its type's expected lifetime is computed then. */
export type ReadFlag = Flag & { potentiallyStale: boolean }

export interface FlagDetails extends ReadFlag {
  lastSeenAt: string | null
  environments: EnvironmentOfFlag[]
  dependencies: Array<{ feature: string; enabled: boolean; variants: string[] }>
  children: string[]
  links: FlagLink[]
  /** Whether it is a favorite of the caller (false for one who is no person) */
  favorite: boolean
  /** Its current lifecycle stage (absent only for a flag that has none recorded) */
  lifecycle?: EnteredStage
}

const nameTaken = (holder: Pick<Flag, 'name' | 'project' | 'archived'>): AppError =>
  nameExists(
    `${holder.archived ? 'An archived flag' : 'A flag'} named ${quote(holder.name)} already exists in project ${quote(holder.project)}.`,
  )

/** A whole number from `min` to `max` in a query parameter, or the fallback when absent. */
const toDependencyResponse = (dependency: Dependency) => ({
  feature: dependency.parent,
  enabled: dependency.enabled,
  variants: dependency.variants,
})

/** Creates a flag (and its row in each environment of its project) inside the caller's transaction, with its event. */
async function createIn(
  trx: Kysely<Database>,
  environments: EnvironmentsOfFlags,
  project: string,
  input: CreateFlagBody,
  audit: AuditContext,
): Promise<Flag> {
  checkUrlFriendlyName(input.name, '/body/name')
  if (input.tags?.length) check(newFlagTagsRules, input)
  const flags = createFlagStore(trx)
  const holder = await flags.find(input.name)
  if (holder) throw nameTaken(holder)
  if (!(await createProjectStore(trx).exists(project))) throw projectNotFound(project)
  const flag: Flag = {
    name: input.name,
    description: input.description || null,
    type: input.type ?? 'release',
    project,
    stale: false,
    createdAt: audit.createdAt,
    impressionData: input.impressionData ?? false,
    archived: false,
  }
  try {
    await flags.insert(flag)
  } catch (error) {
    // Two creates raced past the check above (the key decides), or the project went meanwhile.
    if (isUniqueViolation(error)) throw nameTaken(flag)
    if (isForeignKeyViolation(error)) throw projectNotFound(project)
    throw error
  }
  await environments.addNewFlag(trx, flag.name, project)
  await enterStages(trx, [{ feature: flag.name, stage: 'initial' }], flag.createdAt)
  // A flag just created has only the tags sent with it: no read for them.
  const tagged = input.tags?.length ? await tagNewFlag(trx, { feature: flag.name, project }, input.tags, audit) : { tags: [], events: [] }
  await appendEvents(trx, audit, [
    { type: 'feature-created', featureName: flag.name, project, data: flag, tags: tagged.tags.map(({ type, value }) => ({ value, type })) },
    ...tagged.events,
  ])
  return flag
}

/**
 * The flag of a path: it must be a flag (active or archived) of the project, else a 404. `hold`:
 * its row share-locked until the transaction ends (PostgreSQL), so it cannot be deleted meanwhile.
 * What features ranked below flags (lifecycle/) are handed by app.ts.
 */
export async function flagOfPath(db: Kysely<Database>, project: string, name: string, { hold = false } = {}): Promise<Flag> {
  const flag = hold ? (await createFlagStore(db).holdMany([name]))[0] : await createFlagStore(db).find(name)
  if (!flag || flag.project !== project) throw flagNotFound(name, project, flag)
  return flag
}

/** `environments`: what flags ask of their environments (flag-environments/, handed over by app.ts). */
/** Which of the named flags are the caller's favorites (favorites/, handed over by app.ts). */
export type FavoriteFlags = (db: Kysely<Database>, caller: Principal, names: readonly string[]) => Promise<Set<string>>

export function createFlagService({
  db,
  changes,
  environments,
  favorites,
  gate,
}: {
  db: Kysely<Database>
  changes: ChangeWatch
  environments: EnvironmentsOfFlags
  favorites: FavoriteFlags
  /** Archiving and dependency changes are refused while the project needs change requests (change-requests/, handed over by app.ts). */
  gate: ProjectChangeRequestGate
}) {
  return {
    /** Flag names are unique across all projects, archived flags included. */
    create: (project: string, input: CreateFlagBody, actor: Actor): Promise<Flag> => {
      checkUrlFriendlyName(input.name, '/body/name')
      return db.transaction().execute((trx) => createIn(trx, environments, project, input, auditContext(actor)))
    },

    createIn: (trx: Kysely<Database>, project: string, input: CreateFlagBody, audit: AuditContext): Promise<Flag> =>
      createIn(trx, environments, project, input, audit),

    /** Whether a create could take this name: URL-friendly (400) and held by no flag, archived ones included (409). Nothing is written. */
    validateName: async (name: string): Promise<void> => {
      checkUrlFriendlyName(name, '/body/name')
      const holder = await createFlagStore(db).find(name)
      if (holder) throw nameTaken(holder)
    },

    /** The project's active flags (with any of `tags`, when given), each with potentiallyStale and its tags. */
    list: async (project: string, tags?: readonly TagFilter[]) => {
      if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
      return withTags(db, await withPotentiallyStale(db, await createFlagStore(db).listActive(project, tags)))
    },

    /** One page of the project's active (or archived) flags (with any of `tags`), each with potentiallyStale and its tags, and how many match in all. */
    page: async (project: string, query: ProjectFlagsQuery, tags?: readonly TagFilter[]) => {
      const { offset, limit } = parsePaging(query, { defaultLimit: 100, maxLimit: 1000, overMax: 'refuse' })
      if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
      const now = Date.now()
      const { features, total } = await createFlagStore(db).page(project, {
        search: query.query ?? '',
        archived: query.archived === 'true',
        sortBy: query.sortBy ?? 'name',
        sortOrder: query.sortOrder ?? 'asc',
        offset,
        limit,
        ...(query.stale === 'true' ? { staleOrCreatedBefore: await lifetimeCutoffs(db, now) } : {}),
        ...(tags ? { tags } : {}),
      })
      return { features: await withTags(db, await withPotentiallyStale(db, features, now)), total }
    },

    /** The flag with what a read adds; `caller`: whose favorite it may be. */
    get: async (project: string, name: string, caller?: Principal): Promise<FlagDetails> => {
      const flag = await createFlagStore(db).find(name)
      if (!flag || flag.project !== project) throw flagNotFound(name, project, flag)
      const dependencies = createDependencyStore(db)
      const [[read], ofFlag, parent, children, links, stages, favorite] = await Promise.all([
        withPotentiallyStale(db, [flag]),
        environments.ofFlag(db, name),
        dependencies.parentOf(name),
        dependencies.childrenOf(name),
        createFlagLinkStore(db).ofFlag(name),
        stagesOf(db, name),
        caller === undefined ? false : favorites(db, caller, [name]).then((names) => names.has(name)),
      ])
      const lifecycle = currentStage(stages)
      // The reference shows a flag's lastSeenAt as the latest of its environments'.
      const lastSeenAt = ofFlag.reduce<string | null>(
        (latest, { lastSeenAt: seen }) => (seen !== null && (latest === null || seen > latest) ? seen : latest),
        null,
      )
      return {
        ...read!,
        favorite,
        lastSeenAt,
        environments: ofFlag,
        dependencies: parent ? [toDependencyResponse(parent)] : [],
        children,
        links,
        ...(lifecycle === undefined ? {} : { lifecycle }),
      }
    },

    ...createDependencyService({ db, gate }),
    ...createArchiveService({ db, environments, gate }),

    /** The answer as JSON bytes (see createArchiveValidator). */
    validateArchive: createArchiveValidator({ db, changes }),
  }
}

export type FlagService = ReturnType<typeof createFlagService>
