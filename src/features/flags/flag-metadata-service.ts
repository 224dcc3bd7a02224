/**
 * A flag's metadata after its creation: description, type, stale and impression data, replaced
 * (PUT), patched (JSON Patch) or, for stale, set on many flags at once. Each change writes
 * `feature-metadata-updated` (data the flag after, preData before) and, when `stale` changes,
 * `feature-stale-on` or `feature-stale-off`, in the transaction of the change.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { invalid, invalidOperation, quote, validationFailed } from '../../http/errors.ts'
import { applyPatch, type PatchOperation, type ShapeCheck } from '../../http/json-patch.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { NewEvent } from '../events/event-types.ts'
import { withPotentiallyStale } from '../feature-types/feature-type-service.ts'
import { projectNotFound } from '../projects/project-errors.ts'
import { createProjectStore } from '../projects/project-store.ts'
import { archivedFlag, flagNotFound } from './flag-errors.ts'
import type { UpdateFlagBody } from './flag-schemas.ts'
import { createFlagStore, type Flag } from './flag-store.ts'

/** What PATCH may change; the rest of the document (name, project, createdAt, archived) must stay. */
const EDITABLE = new Set(['description', 'type', 'stale', 'impressionData'])

export type Metadata = Pick<Flag, 'description' | 'type' | 'stale' | 'impressionData'>

export function createFlagMetadataService({ db }: { db: Kysely<Database> }) {
  /** The flag of the project, its row locked (PostgreSQL) until the transaction ends; 404 or 400 otherwise. */
  async function lockFlag(trx: Kysely<Database>, project: string, name: string): Promise<Flag> {
    const [flag] = await createFlagStore(trx).lockMany([name])
    if (!flag || flag.project !== project) {
      if (!(await createProjectStore(trx).exists(project))) throw projectNotFound(project)
      throw flagNotFound(name, project, flag)
    }
    if (flag.archived) throw archivedFlag(name)
    return flag
  }

  async function save(trx: Kysely<Database>, before: Flag, metadata: Metadata, audit: AuditContext) {
    const after: Flag = { ...before, ...metadata }
    const events: NewEvent[] = []
    const changed = (Object.keys(metadata) as Array<keyof Metadata>).some((key) => after[key] !== before[key])
    if (changed) {
      await createFlagStore(trx).updateMetadata(after)
      events.push({ type: 'feature-metadata-updated', featureName: after.name, project: after.project, data: after, preData: before })
    }
    if (after.stale !== before.stale)
      events.push({ type: after.stale ? 'feature-stale-on' : 'feature-stale-off', featureName: after.name, project: after.project })
    await appendEvents(trx, audit, events)
    const [shown] = await withPotentiallyStale(trx, [after])
    return shown!
  }

  /** POST …/stale inside the caller's transaction (see markStale). */
  async function markStaleIn(
    trx: Kysely<Database>,
    project: string,
    names: readonly string[],
    stale: boolean,
    audit: AuditContext,
  ): Promise<void> {
    if (!(await createProjectStore(trx).exists(project))) throw projectNotFound(project)
    const flags = await createFlagStore(trx).lockMany([...new Set(names)])
    const foreign = [...new Set(flags.filter((flag) => flag.project !== project).map((flag) => flag.project))].sort()
    if (foreign.length > 0) {
      throw invalidOperation(
        `Some of these flags belong to other projects (${foreign.map((id) => quote(id)).join(', ')}), not to ${quote(project)}: nothing was changed.`,
      )
    }
    const archived = flags.find((flag) => flag.archived)
    if (archived) throw archivedFlag(archived.name)
    const changing = flags.filter((flag) => flag.stale !== stale)
    await createFlagStore(trx).setStale(
      changing.map((flag) => flag.name),
      stale,
    )
    await appendEvents(
      trx,
      audit,
      changing.map((flag) => ({
        type: stale ? ('feature-stale-on' as const) : ('feature-stale-off' as const),
        featureName: flag.name,
        project,
      })),
    )
  }

  return {
    /**
     * PUT: the metadata as sent, what is not sent taking its default (no description, `release`,
     * not stale, no impression data), as the reference replaces it. `archived` may be sent but must
     * say what the flag is: archiving and reviving have routes of their own, with their rules.
     */
    update: (project: string, name: string, input: UpdateFlagBody, actor: Actor) => {
      // As the reference: a name that is not the path's is refused before the flag is looked up.
      if (input.name && input.name !== name) {
        throw invalid(
          `The \`/body/name\` property cannot rename flag ${quote(name)}: a flag's name never changes. Send ${quote(name)} or no name. You sent ${quote(input.name)}.`,
          '/body/name',
        )
      }
      return db.transaction().execute(async (trx) => {
        const before = await lockFlag(trx, project, name)
        if (input.archived === true) {
          throw invalid(
            'The `/body/archived` property cannot archive a flag here: use DELETE on the flag or POST …/archive, which check its children.',
            '/body/archived',
          )
        }
        const metadata: Metadata = {
          description: input.description || null,
          type: input.type ?? 'release',
          stale: input.stale ?? false,
          impressionData: input.impressionData ?? false,
        }
        return save(trx, before, metadata, auditContext(actor))
      })
    },

    /** PATCH: JSON Patch on the flag as GET shows it (without environments and dependencies). */
    patch: (project: string, name: string, operations: readonly PatchOperation[], checkShape: ShapeCheck, actor: Actor) =>
      db.transaction().execute(async (trx) => {
        const before = await lockFlag(trx, project, name)
        const { archivedAt: _archivedAt, ...document } = before
        const patched = applyPatch(document, operations) as Record<string, unknown>
        const fixed = Object.keys({ ...document, ...patched }).filter(
          (key) => !EDITABLE.has(key) && patched[key] !== (document as Record<string, unknown>)[key],
        )
        if (fixed.length > 0) {
          throw validationFailed(
            fixed.map((key) => ({
              path: `/body`,
              message: `The patch changes \`${key}\`, which PATCH cannot change: only description, type, stale and impressionData can (variants, archiving and projects have routes of their own).`,
            })),
          )
        }
        const metadata = {
          description: patched.description,
          type: patched.type,
          stale: patched.stale,
          impressionData: patched.impressionData,
        }
        const shape = checkShape(metadata)
        if (shape.length > 0) throw validationFailed(shape)
        const valid = metadata as Metadata
        return save(trx, before, { ...valid, description: valid.description || null }, auditContext(actor))
      }),

    /**
     * POST /projects/:projectId/stale: marks flags (not) stale, all or none. Names that are no flag
     * are ignored; a flag of another project is a 409 naming its project, an archived one a 400.
     * An event for each flag whose state changes.
     */
    markStale: (project: string, names: readonly string[], stale: boolean, actor: Actor): Promise<void> =>
      db.transaction().execute((trx) => markStaleIn(trx, project, names, stale, auditContext(actor))),

    /** Inside the caller's transaction: the named fields set, the others kept (a revert restores some of them). */
    changeIn: async (trx: Kysely<Database>, project: string, name: string, fields: Partial<Metadata>, audit: AuditContext) => {
      const before = await lockFlag(trx, project, name)
      const { description, type, stale, impressionData } = before
      return save(trx, before, { description, type, stale, impressionData, ...fields }, audit)
    },

    markStaleIn,
  }
}

export type FlagMetadataService = ReturnType<typeof createFlagMetadataService>
