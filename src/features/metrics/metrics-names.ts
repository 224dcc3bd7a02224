/**
 * What an SDK report may name: the flags that exist (archived ones too, as the reference counts
 * them) with their project and their own variant names, and the environments. A report's counts
 * of any other flag or environment are dropped before they are held, so names nobody defined
 * never take memory (docs/metrics.md, "Limits").
 *
 * Remembered per the change watch's `'flags'` version (change-watch.ts: a write to flags, their
 * environments or strategies, here, on another instance or by hand), so a flag created a moment
 * ago is counted at once; while the watch cannot tell (PostgreSQL's listening session lost) they
 * are read again at most every UNKNOWN_VERSION_MS. One read at a time, shared by the reports
 * that wait for it.
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { createEnvironmentStore } from '../environments/environment-store.ts'
import { flagVariantRows } from '../flag-environments/strategy-uses.ts'
import { flagProjects } from '../flags/flag-store.ts'

/** What SDKs report for a flag that is off, or has no variants: always one of the flag's own names. */
export const DISABLED_VARIANT = 'disabled'
const UNKNOWN_VERSION_MS = 1000

export interface KnownFlag {
  project: string
  /** Its variants' names, in every environment and strategy */
  variants: ReadonlySet<string>
}

export interface KnownNames {
  flags: ReadonlyMap<string, KnownFlag>
  environments: ReadonlySet<string>
}

const NO_VARIANTS: ReadonlySet<string> = new Set()

/** Whether `variant` is one of the flag's own names (or `disabled`): those never count against a limit. */
export function isOwnVariant(names: KnownNames, flag: string, variant: string): boolean {
  return variant === DISABLED_VARIANT || (names.flags.get(flag)?.variants ?? NO_VARIANTS).has(variant)
}

async function readNames(db: Kysely<Database>): Promise<KnownNames> {
  const [features, environments, variantRows] = await Promise.all([
    flagProjects(db),
    createEnvironmentStore(db).names(),
    flagVariantRows(db),
  ])
  const variants = new Map<string, Set<string>>()
  for (const row of variantRows) {
    const names = variants.get(row.feature) ?? new Set()
    variants.set(row.feature, names)
    for (const variant of JSON.parse(row.variants) as Array<{ name: string }>) names.add(variant.name)
  }
  return {
    flags: new Map(features.map((row) => [row.name, { project: row.project, variants: variants.get(row.name) ?? NO_VARIANTS }])),
    environments: new Set(environments),
  }
}

export function createKnownNames({ db, changes, now = Date.now }: { db: Kysely<Database>; changes: ChangeWatch; now?: () => number }) {
  let remembered: { version: number | undefined; readAt: number; names: KnownNames } | undefined
  let reading: { version: number | undefined; names: Promise<KnownNames> } | undefined
  // Reads may end out of order: an earlier one never replaces a later one's names.
  let started = 0
  let applied = 0

  async function read(version: number | undefined): Promise<KnownNames> {
    const sequence = ++started
    const readAt = now()
    let names: KnownNames
    try {
      names = await readNames(db)
    } catch (error) {
      // The database unreachable: reports are held until it is back (metrics-ingestion-service.ts), counted by the names last read.
      if (remembered === undefined) throw error
      return remembered.names
    }
    if (sequence > applied) {
      applied = sequence
      // Kept for this version only if nothing was written meanwhile.
      remembered = { version: version !== undefined && changes.version('flags') === version ? version : undefined, readAt, names }
    }
    return names
  }

  /** The names as of now: remembered, or read again if anything they come from may have changed. */
  async function current(): Promise<KnownNames> {
    const version = changes.version('flags')
    if (remembered && (version === undefined ? now() - remembered.readAt < UNKNOWN_VERSION_MS : version === remembered.version))
      return remembered.names
    if (reading !== undefined && reading.version === version) return reading.names
    const started = { version, names: read(version) }
    reading = started
    started.names.then(
      () => (reading === started ? (reading = undefined) : undefined),
      () => (reading === started ? (reading = undefined) : undefined),
    )
    return started.names
  }

  return {
    current,

    /**
     * The names last read, at once (undefined before the first read), and a read started if they
     * may be out of date. Enough for a report that names only flags and environments in them: they
     * differ from what exists by what changed a moment ago at most, and a flush counts by the
     * current names. (On SQLite every commit, a flush's too, may have changed the flags: waiting
     * for each read would stall every report after each flush.)
     */
    latest(): KnownNames | undefined {
      if (remembered === undefined) return undefined
      current().catch(() => {})
      return remembered.names
    },
  }
}

export type KnownNamesSource = ReturnType<typeof createKnownNames>
