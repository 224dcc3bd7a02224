/**
 * OFREP evaluations as usage metrics. OpenFeature's providers report nothing themselves, so the
 * server counts what it answered, per token and application, and hands the counts to the metrics
 * service as a frontend SDK's report (metrics/: the same limits, the same tables), every flush
 * interval. Counting is one map increment per answer: answers are shared decision objects.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { Decision } from '../evaluation/evaluate.ts'
import type { Caller, MetricsIngestionService } from '../metrics/metrics-ingestion-service.ts'

/** Applications counted at once: the caller names them (`appName`), so what one window may hold is bounded. */
const MAX_BUCKETS = 1000
const MAX_APP_NAME_LENGTH = 255

/** Where counted decisions come from: an evaluator, whose decisions are numbered. */
export interface DecisionSource {
  decisionById(id: number): Decision
}

interface Bucket {
  caller: Caller
  appName: string
  /** Per evaluator, a count per decision id: an increment per answer, no hashing. */
  counts: Map<DecisionSource, Uint32Array>
  /** Decisions always answered together (an evaluator's flags that are off), with how often: one increment per request. */
  blocks: Map<readonly Decision[], number>
}

const NO_BLOCK: readonly Decision[] = []

export function createOfrepUsage({
  metrics,
  flushIntervalMs,
  log,
}: {
  metrics: Pick<MetricsIngestionService, 'reportMetrics'>
  flushIntervalMs: number
  log: FastifyBaseLogger
}) {
  let buckets = new Map<string, Bucket>()
  let since = Date.now()
  let timer: NodeJS.Timeout | undefined

  async function flush(): Promise<void> {
    timer = undefined
    const taken = buckets
    const start = since
    buckets = new Map()
    since = Date.now()
    const stop = new Date().toISOString()
    for (const { caller, appName, counts, blocks } of taken.values()) {
      const toggles: Record<string, { yes: number; no: number; variants: Record<string, number> }> = {}
      const add = (decision: Decision, count: number) => {
        const toggle = (toggles[decision.name] ??= { yes: 0, no: 0, variants: {} })
        if (decision.enabled) toggle.yes += count
        else toggle.no += count
        toggle.variants[decision.variant.name] = (toggle.variants[decision.variant.name] ?? 0) + count
      }
      for (const [source, table] of counts) {
        for (let id = 0; id < table.length; id++) if (table[id]! > 0) add(source.decisionById(id), table[id]!)
      }
      for (const [block, times] of blocks) for (const decision of block) add(decision, times)
      try {
        await metrics.reportMetrics(caller, {
          appName,
          instanceId: 'ofrep',
          sdkVersion: 'openfeature-ofrep',
          bucket: { start: new Date(start).toISOString(), stop, toggles },
        })
      } catch (error) {
        // Past the metrics service's limits (a 429 while it holds too much): these counts are dropped, as an SDK's would wait.
        log.warn({ err: error }, 'openfeature: usage counts not taken by the metrics service')
      }
    }
  }

  return {
    /**
     * Counts the answers given to a caller for an application: `decisions`, and `block`, decisions
     * answered together on every request (kept by identity, so the same array each time).
     */
    count(
      caller: Caller,
      appName: string,
      source: DecisionSource,
      decisions: readonly Decision[],
      block: readonly Decision[] = NO_BLOCK,
    ): void {
      const name = appName.slice(0, MAX_APP_NAME_LENGTH)
      const key = `${caller.token ?? ''}\u0000${caller.scope?.environment ?? ''}\u0000${name}`
      let bucket = buckets.get(key)
      if (bucket === undefined) {
        if (buckets.size >= MAX_BUCKETS) return
        bucket = { caller, appName: name, counts: new Map(), blocks: new Map() }
        buckets.set(key, bucket)
      }
      let table = bucket.counts.get(source)
      let highest = 0
      for (let i = 0; i < decisions.length; i++) if (decisions[i]!.id > highest) highest = decisions[i]!.id
      if (table === undefined || table.length <= highest) {
        // Grown by doubling: an evaluator makes a few decisions per flag, then no more.
        const grown = new Uint32Array(Math.max(highest + 1, (table?.length ?? 0) * 2, 64))
        if (table !== undefined) grown.set(table)
        bucket.counts.set(source, (table = grown))
      }
      for (let i = 0; i < decisions.length; i++) table[decisions[i]!.id]!++
      if (block.length > 0) bucket.blocks.set(block, (bucket.blocks.get(block) ?? 0) + 1)
      timer ??= setTimeout(() => void flush(), flushIntervalMs).unref()
    },
    /** Hands over what is counted now (on close, and in tests). */
    async flush(): Promise<void> {
      clearTimeout(timer)
      await flush()
    },
  }
}

export type OfrepUsage = ReturnType<typeof createOfrepUsage>
