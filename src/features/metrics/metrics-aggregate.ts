/**
 * SDK reports added up in memory between two flushes: counts per hour, application,
 * environment and token scope, then per flag (yes, no, each variant); and the instances seen,
 * with what they last said. A flush takes the whole aggregate at once (`take`) and turns it into
 * rows (`toRows`), keeping only flags that exist and that the reporting token may read; if the
 * write fails, the rows' aggregate goes back (`putBack`) and is added to what arrived meanwhile.
 * What a report may add is bounded (docs/metrics.md, "Limits"): only the flags `Names` counts,
 * OTHER_VARIANTS variant names per flag besides its own, and `instancesPerApplication` instances
 * per application (past it, a sighting of the application).
 * Pure: no I/O, no clock.
 */

/** Variant names are at most 255 characters (variant-schemas.ts). */
export const MAX_VARIANT_NAME = 255
/**
 * Variant names of a flag that are not its own (nor `disabled`: a fallback variant, a name just
 * removed) held per flag entry, and stored per flag, environment and hour (metrics-store.ts).
 */
export const OTHER_VARIANTS = 10

/** Placeholder instance id of a sighting past an application's instance limit: the application is seen, no instance is recorded. */
export const UNRECORDED_INSTANCE = ''

/** What a report's counts may name: the service's view of the flags (metrics-names.ts) and of the reporting token. */
export interface Names {
  /** Whether counts of this flag are held: it exists and the reporting token may read it. */
  counted(flag: string): boolean
  /** Whether the name is one of the flag's own variants (or `disabled`): those are always held. */
  ownVariant(flag: string, variant: string): boolean
}

export interface Counts {
  yes: number
  no: number
  variants: Map<string, number> | undefined
  /** How many of those names are not the flag's own */
  others: number
}

/** Whose report: the environment the counts belong to, and the projects of the token that sent them (`*`: every project). */
export interface Reporter {
  environment: string
  projects: readonly string[]
}

/** The counts of one hour of one application in one environment, reported through tokens of one scope. */
export interface Group extends Reporter {
  /** ISO time of the start of the hour */
  hour: string
  appName: string
  flags: Map<string, Counts>
  /** When a report last added to it (ms) */
  lastSeenAt: number
}

/** What an SDK instance said of itself, merged over its reports: later values win, absent ones keep the earlier. */
export interface Instance extends Reporter {
  appName: string
  instanceId: string
  sdkVersion?: string
  clientIp?: string
  startedAt?: string
  interval?: number
  strategies?: readonly string[]
  /** `frontend` or `backend`: the route it reported on */
  sdkType?: string
  lastSeenAt: number
}

export interface Batch {
  groups: Map<string, Group>
  instances: Map<string, Instance>
  /** Instances held per application (sightings past the limit not counted) */
  instancesOf: Map<string, number>
  /** Flag, variant and instance entries held: what bounds memory. */
  size: number
}

const emptyBatch = (): Batch => ({ groups: new Map(), instances: new Map(), instancesOf: new Map(), size: 0 })

/** The start of the hour `ms` falls in, as an ISO string. */
export function hourOf(ms: number): string {
  return new Date(Math.floor(ms / 3_600_000) * 3_600_000).toISOString()
}

// Separators that cannot occur in names: the JSON body parser refuses NUL, and project ids are URL-friendly.
const groupKey = (hour: string, appName: string, reporter: Reporter) =>
  `${hour}\u0000${appName}\u0000${reporter.environment}\u0000${reporter.projects.join(',')}`
const instanceKey = (instance: Pick<Instance, 'appName' | 'instanceId' | 'environment' | 'projects'>) =>
  `${instance.appName}\u0000${instance.instanceId}\u0000${instance.environment}\u0000${instance.projects.join(',')}`

/** Adds counts to a flag's entry; `ownVariant` undefined: every name is taken (a batch put back took them already). */
function addCounts(
  batch: Batch,
  group: Group,
  name: string,
  yes: number,
  no: number,
  variants: Iterable<[string, number]> | undefined,
  ownVariant: Names['ownVariant'] | undefined,
): void {
  let counts = group.flags.get(name)
  if (counts === undefined) {
    counts = { yes: 0, no: 0, variants: undefined, others: 0 }
    group.flags.set(name, counts)
    batch.size++
  }
  counts.yes += yes
  counts.no += no
  if (variants === undefined) return
  for (const [variant, count] of variants) {
    if (variant.length > MAX_VARIANT_NAME || count === 0) continue
    counts.variants ??= new Map()
    const before = counts.variants.get(variant)
    if (before === undefined) {
      if (ownVariant !== undefined && !ownVariant(name, variant)) {
        if (counts.others >= OTHER_VARIANTS) continue
        counts.others++
      }
      batch.size++
    }
    counts.variants.set(variant, (before ?? 0) + count)
  }
}

function groupIn(batch: Batch, hour: string, appName: string, reporter: Reporter, at: number): Group {
  const key = groupKey(hour, appName, reporter)
  let group = batch.groups.get(key)
  if (group === undefined) {
    group = { hour, appName, environment: reporter.environment, projects: reporter.projects, flags: new Map(), lastSeenAt: at }
    batch.groups.set(key, group)
  }
  if (at > group.lastSeenAt) group.lastSeenAt = at
  return group
}

function mergeInstance(batch: Batch, seen: Instance, perApplication: number): void {
  let key = instanceKey(seen)
  let known = batch.instances.get(key)
  if (known === undefined && seen.instanceId !== UNRECORDED_INSTANCE) {
    const held = batch.instancesOf.get(seen.appName) ?? 0
    if (held >= perApplication) {
      // Past the limit: the application is seen (its SDK version, strategies), no instance recorded.
      seen = { ...seen, instanceId: UNRECORDED_INSTANCE }
      key = instanceKey(seen)
      known = batch.instances.get(key)
    } else batch.instancesOf.set(seen.appName, held + 1)
  }
  if (known === undefined) {
    batch.instances.set(key, { ...seen })
    batch.size++
    return
  }
  // The later report wins field by field; what it did not say stays. (In place: an instance reports every interval.)
  const into = known as unknown as Record<string, unknown>
  const later = seen.lastSeenAt >= known.lastSeenAt
  for (const field in seen) {
    const value = (seen as unknown as Record<string, unknown>)[field]
    if (value !== undefined && (later || into[field] === undefined)) into[field] = value
  }
}

/** `instancesPerApplication`: instances of one application held between two flushes; further ones are sightings only. */
export function createMetricsAggregate({ instancesPerApplication = Number.POSITIVE_INFINITY }: { instancesPerApplication?: number } = {}) {
  let batch = emptyBatch()
  return {
    /** Flag, variant and instance entries waiting for the next flush. */
    get size(): number {
      return batch.size
    },

    /**
     * Adds one report's counts of one hour: only of flags `names` counts, and at most
     * OTHER_VARIANTS variant names per flag besides its own. Entries counting nothing (yes and no
     * both 0) are skipped, as the reference does.
     */
    addCounts(
      reporter: Reporter,
      appName: string,
      hour: string,
      at: number,
      toggles: Record<string, { yes?: number; no?: number; variants?: Record<string, number> | null }>,
      names: Names,
    ): void {
      let group: Group | undefined
      for (const name in toggles) {
        const counts = toggles[name]!
        const yes = counts.yes ?? 0
        const no = counts.no ?? 0
        if ((yes === 0 && no === 0) || !names.counted(name)) continue
        group ??= groupIn(batch, hour, appName, reporter, at)
        addCounts(batch, group, name, yes, no, counts.variants ? Object.entries(counts.variants) : undefined, names.ownVariant)
      }
    },

    /** An instance reported or registered at `lastSeenAt`. */
    seeInstance(instance: Instance): void {
      mergeInstance(batch, instance, instancesPerApplication)
    },

    /** Everything held, leaving the aggregate empty. */
    take(): Batch {
      const taken = batch
      batch = emptyBatch()
      return taken
    },

    /** A batch that could not be written joins what arrived since it was taken. */
    putBack(taken: Batch): void {
      for (const group of taken.groups.values()) {
        const into = groupIn(batch, group.hour, group.appName, group, group.lastSeenAt)
        for (const [name, counts] of group.flags) addCounts(batch, into, name, counts.yes, counts.no, counts.variants, undefined)
      }
      // Taken once already: put back whole, past the instance limit too (the write bounds what is stored).
      for (const instance of taken.instances.values()) mergeInstance(batch, instance, Number.POSITIVE_INFINITY)
    },
  }
}

export type MetricsAggregate = ReturnType<typeof createMetricsAggregate>

// Rows as the store writes them: arrays in column order, one JSON parameter per statement.
export type MetricRow = [feature: string, app: string, environment: string, hour: string, yes: number, no: number]
export type VariantRow = [feature: string, app: string, environment: string, hour: string, variant: string, count: number]
export type LastSeenRow = [feature: string, environment: string, lastSeenAt: string]
export type ApplicationRow = [app: string, strategies: string | null, sdkVersion: string | null, lastSeenAt: string, token: string | null]
export type UsageRow = [app: string, project: string, environment: string]
export type InstanceRow = [
  app: string,
  instanceId: string,
  environment: string,
  sdkVersion: string | null,
  clientIp: string | null,
  startedAt: string | null,
  interval: number | null,
  lastSeenAt: string,
  sdkType: string | null,
]

export interface Rows {
  metrics: MetricRow[]
  variants: VariantRow[]
  lastSeen: LastSeenRow[]
  applications: ApplicationRow[]
  usage: UsageRow[]
  instances: InstanceRow[]
}

const ALL = '*'
const mayRead = (projects: readonly string[], project: string) => projects.includes(ALL) || projects.includes(project)
const iso = (ms: number) => new Date(ms).toISOString()

/** Rows sorted by their key: every instance writes (and so locks) rows in the same order. */
function sortedValues<Row extends unknown[]>(rows: Map<string, Row>): Row[] {
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row)
}

/**
 * The rows a batch writes: counts only of flags that exist (`projectOf` knows them) and that the
 * reporting token may read; the same flag, hour, application and environment reported through
 * tokens of several scopes becomes one row. Each flag's lastSeenAt in an environment is the last
 * report that counted it there. `introducedBy` names the token an application is recorded with, if new
 * (metrics-applications.ts).
 */
export function toRows(
  batch: Batch,
  projectOf: (flag: string) => string | undefined,
  introducedBy: (app: string) => string | null = () => null,
): Rows {
  const metrics = new Map<string, MetricRow>()
  const variants = new Map<string, VariantRow>()
  const lastSeen = new Map<string, LastSeenRow>()
  for (const group of batch.groups.values()) {
    const seenAt = iso(group.lastSeenAt)
    for (const [flag, counts] of group.flags) {
      const project = projectOf(flag)
      if (project === undefined || !mayRead(group.projects, project)) continue
      const key = `${flag}\u0000${group.appName}\u0000${group.environment}\u0000${group.hour}`
      const row = metrics.get(key)
      if (row) {
        row[4] += counts.yes
        row[5] += counts.no
      } else metrics.set(key, [flag, group.appName, group.environment, group.hour, counts.yes, counts.no])
      for (const [variant, count] of counts.variants ?? []) {
        const variantKey = `${key}\u0000${variant}`
        const variantRow = variants.get(variantKey)
        if (variantRow) variantRow[5] += count
        else variants.set(variantKey, [flag, group.appName, group.environment, group.hour, variant, count])
      }
      const seenKey = `${flag}\u0000${group.environment}`
      const seen = lastSeen.get(seenKey)
      if (seen === undefined || seen[2] < seenAt) lastSeen.set(seenKey, [flag, group.environment, seenAt])
    }
  }

  const instances = new Map<string, InstanceRow>()
  const usage = new Map<string, UsageRow>()
  const applications = new Map<string, ApplicationRow>()
  // Oldest first: what a later report said wins, what it did not say stays.
  for (const instance of [...batch.instances.values()].sort((a, b) => a.lastSeenAt - b.lastSeenAt)) {
    const seenAt = iso(instance.lastSeenAt)
    // One row per instance and environment, whatever the scopes of the tokens it reported through.
    const key = `${instance.appName}\u0000${instance.instanceId}\u0000${instance.environment}`
    const known = instances.get(key)
    if (instance.instanceId !== UNRECORDED_INSTANCE)
      instances.set(key, [
        instance.appName,
        instance.instanceId,
        instance.environment,
        instance.sdkVersion ?? known?.[3] ?? null,
        instance.clientIp ?? known?.[4] ?? null,
        instance.startedAt ?? known?.[5] ?? null,
        instance.interval ?? known?.[6] ?? null,
        seenAt,
        instance.sdkType ?? known?.[8] ?? null,
      ])
    for (const project of instance.projects)
      usage.set(`${instance.appName}\u0000${project}\u0000${instance.environment}`, [instance.appName, project, instance.environment])
    const application = applications.get(instance.appName)
    applications.set(instance.appName, [
      instance.appName,
      instance.strategies === undefined ? (application?.[1] ?? null) : JSON.stringify(instance.strategies),
      instance.sdkVersion ?? application?.[2] ?? null,
      seenAt,
      application?.[4] ?? introducedBy(instance.appName),
    ])
  }

  // An application that only sent counts (an Edge bulk entry with no registration) is recorded too: every application counted is one the limits know of.
  for (const group of batch.groups.values()) {
    const seenAt = iso(group.lastSeenAt)
    const application = applications.get(group.appName)
    if (application === undefined) applications.set(group.appName, [group.appName, null, null, seenAt, introducedBy(group.appName)])
    else if (application[3] < seenAt) application[3] = seenAt
    for (const project of group.projects)
      usage.set(`${group.appName}\u0000${project}\u0000${group.environment}`, [group.appName, project, group.environment])
  }

  return {
    metrics: sortedValues(metrics),
    variants: sortedValues(variants),
    lastSeen: sortedValues(lastSeen),
    applications: sortedValues(applications),
    usage: sortedValues(usage),
    instances: sortedValues(instances),
  }
}
