/**
 * SDK metrics and registrations: accepted into memory (metrics-aggregate.ts) and answered at
 * once, written in one transaction per flush — every `flushIntervalMs`, sooner when much is
 * held, and when the app closes. A crash loses what arrived since the last flush
 * (docs/reliability.md). No audit event is written, as in the reference.
 *
 * Frontend tokens are public (they ship inside web and mobile apps), so anyone may post reports:
 * what a report may add is bounded before it is held (docs/metrics.md, "Limits"). Counts of flags
 * and environments that do not exist are dropped (metrics-names.ts), new applications are taken
 * within their limits (metrics-applications.ts), instances and variant names within theirs
 * (metrics-aggregate.ts, and metrics-store.ts for what is stored), and a bucket's hour is near the
 * time it arrives. What was already recorded is never refused for a limit. The admin API's reads
 of what was written: metrics-read-service.ts.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { AppError, invalid, quote } from '../../http/errors.ts'
import type { TokenScope } from '../../http/permissions.ts'
import { createApplicationAdmission, type Refusal } from './metrics-applications.ts'
import {
  createMetricsAggregate,
  hourOf,
  OTHER_VARIANTS,
  toRows,
  type Batch,
  type Instance,
  type Names,
  type Reporter,
} from './metrics-aggregate.ts'
import { createKnownNames, isOwnVariant, type KnownNames } from './metrics-names.ts'
import type { BulkMetricsBody, ClientMetricsBody, DateValue, RegisterBody } from './metrics-schemas.ts'
import { createMetricsStore, type Dropped } from './metrics-store.ts'
import { createLifecycleSightings } from './lifecycle-sightings.ts'
import {
  createUnknownFlagsHeld,
  removeExpiredUnknownFlags,
  UNKNOWN_FLAGS_HOURS,
  UNKNOWN_FLAGS_MAX,
  writeUnknownFlags,
  type UnknownRow,
} from './unknown-flags.ts'

/** The environment of metrics sent with an admin token (or AUTH_TYPE=none) that name none. */
export const DEFAULT_ENVIRONMENT = 'development'
/** A flush starts at once when this many entries are held (flags × hours × applications, variants, instances). */
export const FLUSH_AT = 20_000
/** Past this many entries held (flushes failing or slower than arrivals), reports get 429: the SDKs keep their counts and retry later. */
export const MAX_HELD = 200_000
/**
 * Of those, held for one client or frontend token's reports: past it that token's reports get 429
 * until the next flush, so one token alone (a public frontend token) cannot fill what all may hold
 * and have everyone's reports refused.
 */
export const MAX_HELD_PER_TOKEN = 50_000
const HOUR_MS = 3_600_000
/** Counts of older hours, and instances and applications not seen for as long, are removed (hourly), as the reference keeps 48 hours of counts. */
const RETENTION_MS = 48 * HOUR_MS

/** Who sent a report: the token's scope (none for an admin token or AUTH_TYPE=none), its name, and the client address. */
export interface Caller {
  scope: TokenScope | undefined
  /** A client or frontend token's name: the applications it introduces are counted against it. Null: an admin token, or AUTH_TYPE=none. */
  token: string | null
  clientIp: string
  /** The route's kind: frontend SDKs post to /api/frontend, server SDKs and Edge to /api/client (default). */
  sdkType?: 'frontend' | 'backend'
}

/**
 * The hour a report's counts go in: the hour of its `stop` (a bulk metric's `timestamp`), as the
 * reference stores it, when that is within the hour before it arrived; otherwise (a clock far
 * off, a date from another year) the hour it arrived. So a report adds to two hours at most.
 */
export function hourOfReport(stop: number, arrived: number): string {
  return hourOf(stop <= arrived && stop >= arrived - HOUR_MS ? stop : arrived)
}

/**
 * The environment and projects a report counts for: a client or frontend token's own; an admin
 * token (or AUTH_TYPE=none), or a token for every environment, says the environment in the body.
 */
export function reporterOf(scope: TokenScope | undefined, asked: string | undefined): Reporter {
  if (scope && scope.environment !== '*') return { environment: scope.environment, projects: scope.projects }
  return { environment: asked ?? DEFAULT_ENVIRONMENT, projects: scope?.projects ?? ['*'] }
}

/** Milliseconds of a date the schema accepted (RFC 3339 text, or Unix seconds); a 400 for one JavaScript cannot read (a leap second). */
function millisecondsOf(value: DateValue, path: string): number {
  const ms = typeof value === 'number' ? value * 1000 : Date.parse(value)
  if (Number.isNaN(ms)) throw invalid(`The \`${path}\` property must be a date-time that exists. You sent ${quote(value)}.`, path)
  return ms
}

// The reference stores an instance without an id as "default".
const instanceIdOf = (id: string | null | undefined) => (id === undefined || id === null || id === '' ? 'default' : id)
const text = (value: string | null | undefined) => (value === null || value === undefined ? undefined : value)
const iso = (ms: number) => new Date(ms).toISOString()

const busy = () =>
  new AppError(429, 'TooManyRequestsError', 'Pennon is holding more metrics than it has stored yet: send these again in a few seconds.', {
    headers: { 'retry-after': '5' },
  })

export interface MetricsLimits {
  /** Applications recorded in all (config: METRICS_MAX_APPLICATIONS) */
  maxApplications: number
  /** Of those, introduced by one client or frontend token (METRICS_APPLICATIONS_PER_TOKEN) */
  applicationsPerToken: number
  /** Instances recorded per application (METRICS_INSTANCES_PER_APPLICATION) */
  instancesPerApplication: number
  /** FLUSH_AT, MAX_HELD and MAX_HELD_PER_TOKEN unless given (tests). */
  flushAt?: number
  maxHeld?: number
  maxHeldPerToken?: number
}

export interface MetricsServiceOptions {
  db: Kysely<Database>
  /** What says the flags may have changed (the names a report may count: metrics-names.ts) */
  changes: ChangeWatch
  log: FastifyBaseLogger
  flushIntervalMs: number
  limits: MetricsLimits
  now?: () => number
}

const ALL = '*'
const mayRead = (projects: readonly string[], project: string) => projects.includes(ALL) || projects.includes(project)

/** Whether every one of these flags is among the names. */
function allKnown(names: KnownNames, flags: Iterable<string>): boolean {
  for (const flag of flags) if (!names.flags.has(flag)) return false
  return true
}

/** What a report's counts may name, for the token's projects. */
function namesFor(names: KnownNames, reporter: Reporter): Names {
  return {
    counted(flag) {
      const known = names.flags.get(flag)
      return known !== undefined && mayRead(reporter.projects, known.project)
    },
    ownVariant: (flag, variant) => isOwnVariant(names, flag, variant),
  }
}

const WARNINGS: Record<Refusal | keyof Dropped | 'unknown', (limits: MetricsLimits, token: string | null) => string> = {
  unknown: () =>
    `SDK metrics: ${UNKNOWN_FLAGS_MAX} unknown flag names are recorded (or held since the last flush); further names are not recorded until some expire (24 hours after their last report)`,
  applications: (limits) =>
    `SDK metrics: ${limits.maxApplications} applications are recorded (METRICS_MAX_APPLICATIONS); reports of new applications are ignored until some expire`,
  token: (limits, token) =>
    `SDK metrics: the token ${JSON.stringify(token)} introduced ${limits.applicationsPerToken} applications (METRICS_APPLICATIONS_PER_TOKEN); its reports of new applications are ignored until some expire`,
  instances: (limits) =>
    `SDK metrics: an application has ${limits.instancesPerApplication} instances recorded (METRICS_INSTANCES_PER_APPLICATION); further instances are not recorded, their counts are`,
  variants: () =>
    `SDK metrics: a flag was reported with more than ${OTHER_VARIANTS} variant names it does not have in one hour; those past it are not stored`,
}

export function createMetricsIngestionService({ db, changes, log, flushIntervalMs, now = Date.now, limits }: MetricsServiceOptions) {
  const flushAt = limits.flushAt ?? FLUSH_AT
  const maxHeld = limits.maxHeld ?? MAX_HELD
  const maxHeldPerToken = limits.maxHeldPerToken ?? MAX_HELD_PER_TOKEN
  // Entries each token's reports added since the aggregate was last taken.
  const heldBy = new Map<string, number>()
  const aggregate = createMetricsAggregate({ instancesPerApplication: limits.instancesPerApplication })
  // Names SDKs counted that are no flags: bounded apart from the aggregate (unknown-flags.ts).
  const unknown = createUnknownFlagsHeld()
  const known = createKnownNames({ db, changes, now })
  // Flags seen move along their lifecycle (pre-live, live), in the transaction that stores their counts.
  const sightings = createLifecycleSightings({ changes })
  const applications = createApplicationAdmission({
    db,
    limits: { maxApplications: limits.maxApplications, perToken: limits.applicationsPerToken },
    now,
  })
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> | undefined
  let closed = false
  let cleanedAt = Number.NEGATIVE_INFINITY
  // Each limit is logged at most once an hour: a flood of junk must not flood the log too.
  const warnedAt = new Map<keyof typeof WARNINGS, number>()

  function warn(kind: keyof typeof WARNINGS, token: string | null = null): void {
    const at = now()
    if (at - (warnedAt.get(kind) ?? Number.NEGATIVE_INFINITY) < HOUR_MS) return
    warnedAt.set(kind, at)
    log.warn(WARNINGS[kind](limits, token))
  }

  async function write(batch: Batch, unknownFlags: { rows: UnknownRow[]; dropped: number }, takenAt: number): Promise<void> {
    if (unknownFlags.rows.length > 0 || unknownFlags.dropped > 0) {
      try {
        if (unknownFlags.dropped + (await db.transaction().execute((trx) => writeUnknownFlags(trx, unknownFlags.rows))) > 0) warn('unknown')
      } catch (error) {
        unknown.putBack(unknownFlags.rows)
        log.error({ err: error }, 'unknown flag names could not be stored; they are kept for the next flush')
      }
    }
    if (batch.size > 0) {
      let dropped: Dropped
      try {
        // Which flags exist, in which project, with which variants: as remembered, or read (outside the transaction, which then only reads its keys and writes).
        const names = await known.current()
        const rows = toRows(
          batch,
          (flag) => names.flags.get(flag)?.project,
          (app) => applications.introducer(app),
        )
        const writeLimits = {
          ownVariant: (flag: string, variant: string) => isOwnVariant(names, flag, variant),
          otherVariants: OTHER_VARIANTS,
          instancesPerApplication: limits.instancesPerApplication,
        }
        let entered: string[] = []
        dropped = await db.transaction().execute(async (trx) => {
          const written = await createMetricsStore(trx).write(rows, writeLimits)
          entered = await sightings.record(trx, rows.lastSeen, iso(takenAt))
          return written
        })
        sightings.remember(entered)
      } catch (error) {
        aggregate.putBack(batch)
        log.error({ err: error }, 'SDK metrics could not be stored; they are kept for the next flush')
        return
      }
      if (dropped.instances > 0) warn('instances')
      if (dropped.variants > 0) warn('variants')
    }
    // Hourly, even when nothing was held: while every report is refused for a limit, what expires must still make room.
    try {
      await applications.reload(takenAt)
      if (now() - cleanedAt < HOUR_MS) return
      cleanedAt = now()
      await createMetricsStore(db).removeExpired(iso(now() - RETENTION_MS))
      await removeExpiredUnknownFlags(db, iso(now() - UNKNOWN_FLAGS_HOURS * HOUR_MS))
      await applications.reload(takenAt, true)
    } catch (error) {
      log.error({ err: error }, 'recorded SDK applications could not be read again, or expired SDK metrics removed')
    }
  }

  /** Writes what is held now, after any write under way. */
  async function flush(): Promise<void> {
    while (writing) await writing
    const takenAt = now()
    heldBy.clear()
    writing = write(aggregate.take(), unknown.take(), takenAt).finally(() => (writing = undefined))
    await writing
  }

  /** The timer's and the size trigger's flush: none if one is under way (the next tick takes what arrived). */
  function flushSoon(): void {
    if (!writing) void flush()
  }

  /**
   * The names a report may count — those last read if they hold every flag and environment it
   * names (`covers`), else the current ones — once what is recorded is known; then 429 if too much
   * is held, in all or for the caller's token.
   */
  async function accept(caller: Caller, covers: (names: KnownNames) => boolean): Promise<KnownNames> {
    // From the first report on, refused or not: expired applications are removed hourly even while every report is refused for a limit.
    if (timer === undefined && !closed) {
      timer = setInterval(flushSoon, flushIntervalMs)
      timer.unref()
    }
    const latest = known.latest()
    const names = latest !== undefined && covers(latest) ? latest : await known.current()
    await applications.ready()
    if (aggregate.size >= maxHeld || (caller.token !== null && (heldBy.get(caller.token) ?? 0) >= maxHeldPerToken)) throw busy()
    return names
  }

  /** Whether a report of this application in this environment may be held. */
  function admitted(names: KnownNames, caller: Caller, appName: string, environment: string): boolean {
    if (!names.environments.has(environment)) return false
    const verdict = applications.admit(appName, caller.token)
    if (verdict !== true) warn(verdict, caller.token)
    return verdict === true
  }

  /** After a report was added (`before`: the entries held until then). */
  function accepted(caller: Caller, before: number): void {
    if (caller.token !== null) heldBy.set(caller.token, (heldBy.get(caller.token) ?? 0) + aggregate.size - before)
    if (aggregate.size >= flushAt || closed) flushSoon()
  }

  return {
    /** POST /api/client/metrics, /api/frontend/client/metrics: the counts of a bucket, and the instance seen. */
    async reportMetrics(caller: Caller, body: ClientMetricsBody): Promise<void> {
      const at = now()
      const reporter = reporterOf(caller.scope, body.environment)
      let hour: string | undefined
      if (body.bucket) {
        millisecondsOf(body.bucket.start, '/body/bucket/start')
        hour = hourOfReport(millisecondsOf(body.bucket.stop, '/body/bucket/stop'), at)
      }
      const toggles = body.bucket?.toggles ?? {}
      const names = await accept(
        caller,
        (latest) => latest.environments.has(reporter.environment) && allKnown(latest, Object.keys(toggles)),
      )
      const before = aggregate.size
      if (!admitted(names, caller, body.appName, reporter.environment)) return
      aggregate.seeInstance({
        ...reporter,
        appName: body.appName,
        instanceId: instanceIdOf(body.instanceId),
        sdkVersion: text(body.sdkVersion),
        clientIp: caller.clientIp,
        sdkType: caller.sdkType ?? 'backend',
        lastSeenAt: at,
      })
      if (body.bucket && hour !== undefined)
        aggregate.addCounts(reporter, body.appName, hour, at, body.bucket.toggles, namesFor(names, reporter))
      for (const flag of Object.keys(toggles)) if (!names.flags.has(flag)) unknown.see(flag, body.appName, reporter.environment, iso(at))
      accepted(caller, before)
    },

    /** POST /api/client/register, /api/frontend/client/register. */
    async register(caller: Caller, body: RegisterBody): Promise<void> {
      const started = millisecondsOf(body.started, '/body/started')
      const reporter = reporterOf(caller.scope, body.environment)
      const names = await accept(caller, (latest) => latest.environments.has(reporter.environment))
      const before = aggregate.size
      if (!admitted(names, caller, body.appName, reporter.environment)) return
      aggregate.seeInstance({
        ...reporter,
        appName: body.appName,
        instanceId: instanceIdOf(body.instanceId),
        sdkVersion: text(body.sdkVersion),
        clientIp: caller.clientIp,
        sdkType: caller.sdkType ?? 'backend',
        startedAt: iso(started),
        interval: Math.round(body.interval),
        strategies: body.strategies,
        lastSeenAt: now(),
      })
      accepted(caller, before)
    },

    /**
     * POST /api/client/metrics/bulk (Unleash Edge): registrations and counts of many applications.
     * With a token of one environment, entries of other environments are ignored, as the reference does.
     */
    async reportBulk(caller: Caller, body: BulkMetricsBody): Promise<void> {
      const at = now()
      const scoped = caller.scope !== undefined && caller.scope.environment !== '*'
      const ours = (environment: string) => !scoped || environment === caller.scope!.environment
      const applicationsSeen = body.applications.filter((application) => ours(application.environment))
      const metrics = body.metrics.filter((metric) => ours(metric.environment))
      // Every date is read before anything is kept: a 400 keeps nothing.
      const started = applicationsSeen.map((application, i) =>
        application.started === undefined ? undefined : millisecondsOf(application.started, `/body/applications/${i}/started`),
      )
      const hours = metrics.map((metric, i) =>
        metric.timestamp === undefined ? hourOf(at) : hourOfReport(millisecondsOf(metric.timestamp, `/body/metrics/${i}/timestamp`), at),
      )
      const environments = [...applicationsSeen, ...metrics].map((entry) => reporterOf(caller.scope, entry.environment).environment)
      const names = await accept(
        caller,
        (latest) =>
          environments.every((environment) => latest.environments.has(environment)) &&
          allKnown(
            latest,
            metrics.map((metric) => metric.featureName),
          ),
      )
      const before = aggregate.size
      applicationsSeen.forEach((application, i) => {
        const reporter = reporterOf(caller.scope, application.environment)
        if (!admitted(names, caller, application.appName, reporter.environment)) return
        const instance: Instance = {
          ...reporter,
          appName: application.appName,
          instanceId: instanceIdOf(application.instanceId),
          sdkVersion: text(application.sdkVersion),
          clientIp: caller.clientIp,
          sdkType: caller.sdkType ?? 'backend',
          ...(started[i] === undefined ? {} : { startedAt: iso(started[i]) }),
          ...(application.interval === undefined ? {} : { interval: Math.round(application.interval) }),
          ...(application.strategies === undefined ? {} : { strategies: application.strategies }),
          lastSeenAt: at,
        }
        aggregate.seeInstance(instance)
      })
      metrics.forEach((metric, i) => {
        const reporter = reporterOf(caller.scope, metric.environment)
        if (!admitted(names, caller, metric.appName, reporter.environment)) return
        aggregate.addCounts(reporter, metric.appName, hours[i]!, at, { [metric.featureName]: metric }, namesFor(names, reporter))
        if (!names.flags.has(metric.featureName)) unknown.see(metric.featureName, metric.appName, reporter.environment, iso(at))
      })
      accepted(caller, before)
    },

    /** Writes what is held now (tests, and the app's close). */
    flush,

    /** Flag, variant and instance entries held until the next flush (what bounds memory: tests, docs/metrics.md). */
    get held(): number {
      return aggregate.size
    },

    /** Stops the timer and writes what is held: the app's onClose. */
    async close(): Promise<void> {
      closed = true
      clearInterval(timer)
      await flush()
    },
  }
}

export type MetricsIngestionService = ReturnType<typeof createMetricsIngestionService>
