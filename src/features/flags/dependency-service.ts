import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { notFound, quote } from '../../http/errors.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { NewEvent } from '../events/event-types.ts'
import type { ProjectChangeRequestGate } from './change-request-gate.ts'
import { checkDependency, checkNotSelf, dependencyAddedData, dependencyToStore } from './dependency-rules.ts'
import { createDependencyStore } from './dependency-store.ts'
import { flagNotFound } from './flag-errors.ts'
import { createFlagStore } from './flag-store.ts'

export interface NewDependency {
  project: string
  child: string
  /** The parent. */
  feature: string
  enabled?: boolean
  variants?: string[]
}

/** `gate`: dependency changes are refused while the project needs change requests (change-requests/, handed over by app.ts). */
export function createDependencyService({ db, gate }: { db: Kysely<Database>; gate: ProjectChangeRequestGate }) {
  /** Adds `child → feature` inside the caller's transaction (see addDependency). */
  async function addIn(trx: Kysely<Database>, input: NewDependency, audit: AuditContext): Promise<void> {
    const { project, child, feature: parent } = input
    checkNotSelf(child, parent)
    await gate.checkProject(trx, project, audit)
    const dependencies = createDependencyStore(trx)
    // Lock both flags before reading anything: two requests such as b→a and c→b share
    // a flag, so the second waits here and then sees the first one's row, instead of
    // both passing their checks and building a chain. An archive locks its flags too.
    const locked = await createFlagStore(trx).lockMany([child, parent])
    const previous = await dependencies.parentOf(child)
    checkDependency({
      project,
      childName: child,
      parentName: parent,
      child: locked.find((flag) => flag.name === child),
      parent: locked.find((flag) => flag.name === parent),
      childChildren: await dependencies.childrenOf(child),
      parentParent: (await dependencies.parentOf(parent))?.parent,
    })
    const stored = dependencyToStore(input.enabled, input.variants)
    await dependencies.upsert({ child, parent, ...stored })
    const events: NewEvent[] = []
    if (previous && previous.parent !== parent) {
      events.push({ type: 'feature-dependency-removed', featureName: child, project, data: { feature: previous.parent } })
    }
    events.push({
      type: 'feature-dependency-added',
      featureName: child,
      project,
      data: dependencyAddedData(parent, stored.enabled, input.variants),
    })
    await appendEvents(trx, audit, events)
  }

  async function removeIn(trx: Kysely<Database>, project: string, child: string, parent: string, audit: AuditContext): Promise<void> {
    await gate.checkProject(trx, project, audit)
    if (!(await createDependencyStore(trx).remove(project, child, parent))) {
      throw notFound(`Flag ${quote(child)} in project ${quote(project)} has no dependency on ${quote(parent)}.`)
    }
    await appendEvents(trx, audit, [{ type: 'feature-dependency-removed', featureName: child, project, data: { feature: parent } }])
  }

  /** Every dependency of `child` removed inside the caller's transaction; none is a 404. */
  async function removeAllIn(trx: Kysely<Database>, project: string, child: string, audit: AuditContext): Promise<void> {
    await gate.checkProject(trx, project, audit)
    const flag = await createFlagStore(trx).find(child)
    const removed = flag?.project === project ? await createDependencyStore(trx).removeParentsOf([child]) : []
    if (removed.length === 0) throw notFound(`Flag ${quote(child)} in project ${quote(project)} has no dependencies to remove.`)
    await appendEvents(
      trx,
      audit,
      removed.map((name) => ({ type: 'feature-dependencies-removed', featureName: name, project })),
    )
  }

  return {
    /** Adds `child → feature`, replacing the child's previous parent if it had another one. */
    addDependency: (input: NewDependency, actor: Actor): Promise<void> => {
      checkNotSelf(input.child, input.feature)
      return db.transaction().execute((trx) => addIn(trx, input, auditContext(actor)))
    },

    addIn,

    removeDependency: (project: string, child: string, parent: string, actor: Actor): Promise<void> =>
      db.transaction().execute((trx) => removeIn(trx, project, child, parent, auditContext(actor))),

    removeIn,

    removeDependencies: (project: string, child: string, actor: Actor): Promise<void> =>
      db.transaction().execute((trx) => removeAllIn(trx, project, child, auditContext(actor))),

    removeAllIn,

    /** As the reference: whether any dependency exists in the whole instance, whatever the project of the path. */
    anyDependencyExists: (): Promise<boolean> => createDependencyStore(db).anyExist(),

    /** The flags `child` could depend on. */
    possibleParents: async (project: string, child: string): Promise<string[]> => {
      const flag = await createFlagStore(db).find(child)
      if (!flag || flag.project !== project) throw flagNotFound(child, project, flag)
      return createDependencyStore(db).possibleParents(project, child)
    },
  }
}

export type DependencyService = ReturnType<typeof createDependencyService>
