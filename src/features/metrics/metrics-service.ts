/**
 * SDK metrics and registrations: accepted into memory (metrics-aggregate.ts) and answered at
 * once, written in one transaction per flush — every `flushIntervalMs`, sooner when much is
 * held, and when the app closes. A crash loses what arrived since the last flush
 * (docs/reliability.md). No audit event is written, as in the reference.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { AppError, invalid, quote } from '../../http/errors.ts'
import type { TokenScope } from '../../http/permissions.ts'
import { createMetricsAggregate, hourOf, toRows, type Batch, type Instance, type Reporter } from './metrics-aggregate.ts'
import type { ApplicationsQuery, BulkMetricsBody, ClientMetricsBody, DateValue, RegisterBody } from './metrics-schemas.ts'
import { createMetricsStore } from './metrics-store.ts'

/** The environment of metrics sent with an admin token (or AUTH_TYPE=none) that name none. */
export const DEFAULT_ENVIRONMENT = 'development'
/** A flush starts at once when this many entries are held (flags × hours × applications, variants, instances). */
export const FLUSH_AT = 20_000
/** Past this many entries held (flushes failing or slower than arrivals), reports get 429: the SDKs keep their counts and retry later. */
export const MAX_HELD = 200_000
const HOUR_MS = 3_600_000
/** Counts of older hours and instances not seen for as long are removed (hourly), as the reference keeps 48 hours. */
const RETENTION_MS = 48 * HOUR_MS

/** Who sent a report: the token's scope (none for an admin token or AUTH_TYPE=none) and the client address. */
export interface Caller {
  scope: TokenScope | undefined
  clientIp: string
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
  new AppError(429, 'TooManyRequestsError', 'Pennon is holding more metrics than it has stored yet: send these again in a few seconds.', { headers: { 'retry-after': '5' } })

export interface MetricsServiceOptions {
  db: Kysely<Database>
  log: FastifyBaseLogger
  flushIntervalMs: number
  now?: () => number
  /** FLUSH_AT and MAX_HELD unless given (tests). */
  limits?: { flushAt: number; maxHeld: number }
}

export function createMetricsService({ db, log, flushIntervalMs, now = Date.now, limits = { flushAt: FLUSH_AT, maxHeld: MAX_HELD } }: MetricsServiceOptions) {
  const aggregate = createMetricsAggregate()
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> | undefined
  let closed = false
  let cleanedAt = Number.NEGATIVE_INFINITY

  async function write(batch: Batch): Promise<void> {
    if (batch.size === 0) return
    try {
      const names = new Set<string>()
      for (const group of batch.groups.values()) for (const name of group.flags.keys()) names.add(name)
      // A read: which flags exist, in which project (outside the transaction, which then only writes).
      const projects = await createMetricsStore(db).flagProjects([...names])
      const rows = toRows(batch, (flag) => projects.get(flag))
      await db.transaction().execute((trx) => createMetricsStore(trx).write(rows))
    } catch (error) {
      aggregate.putBack(batch)
      log.error({ err: error }, 'SDK metrics could not be stored; they are kept for the next flush')
      return
    }
    if (now() - cleanedAt < HOUR_MS) return
    cleanedAt = now()
    try {
      await createMetricsStore(db).removeExpired(iso(now() - RETENTION_MS))
    } catch (error) {
      log.error({ err: error }, 'expired SDK metrics could not be removed')
    }
  }

  /** Writes what is held now, after any write under way. */
  async function flush(): Promise<void> {
    while (writing) await writing
    writing = write(aggregate.take()).finally(() => (writing = undefined))
    await writing
  }

  /** The timer's and the size trigger's flush: none if one is under way (the next tick takes what arrived). */
  function flushSoon(): void {
    if (!writing) void flush()
  }

  function accept(): void {
    if (aggregate.size >= limits.maxHeld) throw busy()
  }

  function accepted(): void {
    if (timer === undefined && !closed) {
      timer = setInterval(flushSoon, flushIntervalMs)
      timer.unref()
    }
    if (aggregate.size >= limits.flushAt || closed) flushSoon()
  }

  const store = () => createMetricsStore(db)

  return {
    /** POST /api/client/metrics, /api/frontend/client/metrics: the counts of a bucket, and the instance seen. */
    reportMetrics(caller: Caller, body: ClientMetricsBody): void {
      const at = now()
      const reporter = reporterOf(caller.scope, body.environment)
      let hour: string | undefined
      if (body.bucket) {
        millisecondsOf(body.bucket.start, '/body/bucket/start')
        // The hour of the bucket's end, as the reference stores it.
        hour = hourOf(millisecondsOf(body.bucket.stop, '/body/bucket/stop'))
      }
      accept()
      aggregate.seeInstance({
        ...reporter,
        appName: body.appName,
        instanceId: instanceIdOf(body.instanceId),
        sdkVersion: text(body.sdkVersion),
        clientIp: caller.clientIp,
        lastSeenAt: at,
      })
      if (body.bucket && hour !== undefined) aggregate.addCounts(reporter, body.appName, hour, at, body.bucket.toggles)
      accepted()
    },

    /** POST /api/client/register, /api/frontend/client/register. */
    register(caller: Caller, body: RegisterBody): void {
      const started = millisecondsOf(body.started, '/body/started')
      accept()
      aggregate.seeInstance({
        ...reporterOf(caller.scope, body.environment),
        appName: body.appName,
        instanceId: instanceIdOf(body.instanceId),
        sdkVersion: text(body.sdkVersion),
        clientIp: caller.clientIp,
        startedAt: iso(started),
        interval: Math.round(body.interval),
        strategies: body.strategies,
        lastSeenAt: now(),
      })
      accepted()
    },

    /**
     * POST /api/client/metrics/bulk (Unleash Edge): registrations and counts of many applications.
     * With a token of one environment, entries of other environments are ignored, as the reference does.
     */
    reportBulk(caller: Caller, body: BulkMetricsBody): void {
      const at = now()
      const scoped = caller.scope !== undefined && caller.scope.environment !== '*'
      const ours = (environment: string) => !scoped || environment === caller.scope!.environment
      const applications = body.applications.filter((application) => ours(application.environment))
      const metrics = body.metrics.filter((metric) => ours(metric.environment))
      // Every date is read before anything is kept: a 400 keeps nothing.
      const started = applications.map((application, i) => (application.started === undefined ? undefined : millisecondsOf(application.started, `/body/applications/${i}/started`)))
      const hours = metrics.map((metric, i) => hourOf(metric.timestamp === undefined ? at : millisecondsOf(metric.timestamp, `/body/metrics/${i}/timestamp`)))
      accept()
      applications.forEach((application, i) => {
        const instance: Instance = {
          ...reporterOf(caller.scope, application.environment),
          appName: application.appName,
          instanceId: instanceIdOf(application.instanceId),
          sdkVersion: text(application.sdkVersion),
          clientIp: caller.clientIp,
          ...(started[i] === undefined ? {} : { startedAt: iso(started[i]) }),
          ...(application.interval === undefined ? {} : { interval: Math.round(application.interval) }),
          ...(application.strategies === undefined ? {} : { strategies: application.strategies }),
          lastSeenAt: at,
        }
        aggregate.seeInstance(instance)
      })
      metrics.forEach((metric, i) => {
        aggregate.addCounts(reporterOf(caller.scope, metric.environment), metric.appName, hours[i]!, at, { [metric.featureName]: metric })
      })
      accepted()
    },

    /** Writes what is held now (tests, and the app's close). */
    flush,

    /** Stops the timer and writes what is held: the app's onClose. */
    async close(): Promise<void> {
      closed = true
      clearInterval(timer)
      await flush()
    },

    /** GET /api/admin/metrics/applications */
    async applications(query: ApplicationsQuery) {
      const page = { offset: wholeNumber(query.offset, '/query/offset', 0), limit: Math.min(wholeNumber(query.limit, '/query/limit', 1000, 1), 1000) }
      return store().applications(query.query ?? '', query.sortOrder === 'desc' ? 'desc' : 'asc', page)
    },

    /** GET /api/admin/client-metrics/features/:name: the last hour's counts per environment and the applications of the last day. */
    async featureUsage(featureName: string) {
      const at = now()
      const { lastHourUsage, seenApplications } = await store().featureUsage(featureName, iso(at - HOUR_MS), iso(at - 24 * HOUR_MS))
      return { version: 1 as const, maturity: 'stable' as const, featureName, lastHourUsage, seenApplications }
    },
  }
}

export type MetricsService = ReturnType<typeof createMetricsService>

function wholeNumber(value: string | undefined, path: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < min) throw invalid(`The \`${path}\` parameter must be a whole number of at least ${min}. You sent ${quote(value)}.`, path)
  return Number(value)
}
