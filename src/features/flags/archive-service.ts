/**
 * Archive, revive and delete (docs/contract.md §2). Each call is one transaction that locks the
 * named flags first (PostgreSQL; SQLite writers already run one at a time), so a
 * dependency added meanwhile cannot slip past the orphan check.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import { notFound, quote } from '../../http/errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { enterStages, restartLifecycles } from '../lifecycle/lifecycle-store.ts'
import { validateArchive } from './archive-validation.ts'
import { checkNoOrphans, checkSameProject } from './dependency-rules.ts'
import { createDependencyStore } from './dependency-store.ts'
import type { EnvironmentsOfFlags } from './environments-of-flags.ts'
import type { ProjectChangeRequestGate } from './change-request-gate.ts'
import { archivedFlag, flagNotFound } from './flag-errors.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createFlagStore, type Flag } from './flag-store.ts'
import { createTagStore } from '../tags/tag-store.ts'

const distinct = (names: readonly string[]): string[] => [...new Set(names)]

async function requireProject(db: Kysely<Database>, project: string): Promise<void> {
  if (!(await createProjectStore(db).exists(project))) throw projectNotFound(project)
}

/** Archives the active ones among `found` (the locked, existing named flags), with their events. */
async function archiveLocked(
  trx: Kysely<Database>,
  environments: EnvironmentsOfFlags,
  project: string,
  found: readonly Flag[],
  audit: AuditContext,
): Promise<void> {
  checkSameProject('archive', project, found)
  const batch = found.filter((flag) => !flag.archived).map((flag) => flag.name)
  checkNoOrphans((await validateArchive(trx, project, batch)).parentsWithChildFeatures)
  // Every child of a flag in the batch is in the batch too (checked above), so removing
  // the batch's own parent links removes every dependency row that touches it.
  const hadParent = await createDependencyStore(trx).removeParentsOf(batch)
  const archived = await createFlagStore(trx).archive(batch, audit.createdAt)
  // An archived flag is off everywhere (its strategies stay, for a revive), and the log says so.
  const switchedOff = await environments.switchOffEverywhere(trx, archived)
  await enterStages(
    trx,
    archived.map((feature) => ({ feature, stage: 'archived' })),
    audit.createdAt,
  )
  await appendEvents(trx, audit, [
    ...hadParent.map((name) => ({ type: 'feature-dependencies-removed' as const, featureName: name, project })),
    ...archived.map((name) => ({ type: 'feature-archived' as const, featureName: name, project })),
    ...switchedOff.map(({ feature, environment }) => ({
      type: 'feature-environment-disabled' as const,
      featureName: feature,
      project,
      environment,
    })),
  ])
}

/** Revives the archived ones among the named flags of the project, with their events. */
async function reviveIn(trx: Kysely<Database>, project: string, names: readonly string[], audit: AuditContext): Promise<void> {
  await requireProject(trx, project)
  const flags = createFlagStore(trx)
  const found = await flags.lockMany(distinct(names))
  checkSameProject('revive', project, found)
  const revived = await flags.revive(found.filter((flag) => flag.archived).map((flag) => flag.name))
  await restartLifecycles(trx, revived, audit.createdAt)
  await appendEvents(
    trx,
    audit,
    revived.map((name) => ({ type: 'feature-revived', featureName: name, project })),
  )
}

/** Deletes the archived ones among the named flags of the project for good (their tags with them), with their events. */
async function deleteIn(trx: Kysely<Database>, project: string, names: readonly string[], audit: AuditContext): Promise<void> {
  await requireProject(trx, project)
  const flags = createFlagStore(trx)
  const found = await flags.lockMany(distinct(names))
  checkSameProject('delete', project, found)
  const archived = found.filter((flag) => flag.archived).map((flag) => flag.name)
  // Their events record the tags they had, as the reference's: by the time events are written, the tags are gone.
  const tags = await createTagStore(trx).ofFlags(archived)
  const deleted = await flags.deleteArchived(archived)
  await appendEvents(
    trx,
    audit,
    deleted.map((flag) => ({
      type: 'feature-deleted',
      featureName: flag.name,
      project,
      preData: flag,
      tags: (tags.get(flag.name) ?? []).map(({ type, value }) => ({ value, type })),
    })),
  )
}

/**
 * `environments`: switching archived flags off (flag-environments/, handed over by app.ts);
 * `gate`: archiving is refused while the project needs change requests (change-requests/, the same way).
 */
export function createArchiveService({
  db,
  environments,
  gate,
}: {
  db: Kysely<Database>
  environments: EnvironmentsOfFlags
  gate: ProjectChangeRequestGate
}) {
  return {
    /** `DELETE …/features/:name`: like a batch of one, except that an unknown flag is a 404. */
    archiveOne: (project: string, name: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const audit = auditContext(actor)
        await requireProject(trx, project)
        await gate.checkProject(trx, project, audit)
        const found = await createFlagStore(trx).lockMany([name])
        if (found.length === 0) throw flagNotFound(name, project, undefined)
        await archiveLocked(trx, environments, project, found, audit)
      }),

    /**
     * One flag archived inside the caller's transaction (an applied change request): unlike the
     * route, an archived flag is refused (400), as there is nothing left to archive.
     */
    archiveIn: async (trx: Kysely<Database>, project: string, name: string, audit: AuditContext): Promise<void> => {
      await requireProject(trx, project)
      await gate.checkProject(trx, project, audit)
      const found = await createFlagStore(trx).lockMany([name])
      const flag = found[0]
      if (!flag || flag.project !== project) throw flagNotFound(name, project, flag)
      if (flag.archived) throw archivedFlag(name)
      await archiveLocked(trx, environments, project, found, audit)
    },

    archiveMany: (project: string, names: readonly string[], actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const audit = auditContext(actor)
        await requireProject(trx, project)
        await gate.checkProject(trx, project, audit)
        await archiveLocked(trx, environments, project, await createFlagStore(trx).lockMany(distinct(names)), audit)
      }),

    /** Archived flags of the project become active again; their dependencies are not restored. */
    revive: (project: string, names: readonly string[], actor: Actor): Promise<void> =>
      db.transaction().execute((trx) => reviveIn(trx, project, names, auditContext(actor))),

    /** The legacy `POST /archive/revive/:name`: the flag's own project, found in the transaction; an unknown flag is a 404. */
    reviveByName: (name: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const flag = await createFlagStore(trx).find(name)
        if (!flag) throw notFound(`There's no flag named ${quote(name)}.`)
        await reviveIn(trx, flag.project, [name], auditContext(actor))
      }),

    /** Archived flags of the project are removed for good (their tags with them); active ones are skipped. */
    delete: (project: string, names: readonly string[], actor: Actor): Promise<void> =>
      db.transaction().execute((trx) => deleteIn(trx, project, names, auditContext(actor))),

    /** The legacy `DELETE /archive/:name`: the flag's own project, found in the transaction; an unknown flag changes nothing, as the reference. */
    deleteByName: (name: string, actor: Actor): Promise<void> =>
      db.transaction().execute(async (trx) => {
        const flag = await createFlagStore(trx).find(name)
        if (flag) await deleteIn(trx, flag.project, [name], auditContext(actor))
      }),
  }
}
