/**
 * SDK reports move flags along their lifecycle, as the reference's: a flag counted in any
 * environment enters `pre-live`; counted in a production environment where it is on, `live`.
 * Written in the transaction that stores the counts (metrics-ingestion-service.ts).
 *
 * The hot path stays cheap: which flags are in those stages already (or archived, which a report
 * does not move) is remembered per `'flags'` version of the change watch (a revive, which starts a
 * flag's lifecycle over, writes its flag; so does a switch on or off); a flush whose flags are all
 * known so runs no query at all. While the watch cannot tell, the stages are read at each flush.
 */
import type { Kysely } from 'kysely'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Database } from '../../db/tables.ts'
import { environmentRows } from '../environments/environment-store.ts'
import { createFlagEnvironmentStore } from '../flag-environments/flag-environment-store.ts'
import { createFlagStore } from '../flags/flag-store.ts'
import { enterStages, stagesEntered, type StageEntry } from '../lifecycle/lifecycle-store.ts'
import type { LastSeenRow } from './metrics-aggregate.ts'

const key = (feature: string, what: string) => `${feature}\u0000${what}`

export function createLifecycleSightings({ changes }: { changes: ChangeWatch }) {
  let version: number | undefined
  // `flag\0stage` entered (pre-live, live, archived), and `flag\0env\0off`: seen off in a production environment.
  let known = new Set<string>()
  let environmentTypes: Map<string, string> | undefined

  return {
    /**
     * Moves the flags of these sightings (flag, environment) on, inside the metrics' transaction at
     * `at`; returns what it entered, for `remember` once that transaction committed.
     */
    async record(trx: Kysely<Database>, sightings: readonly LastSeenRow[], at: string): Promise<string[]> {
      const current = changes.version('flags')
      if (current === undefined || current !== version) {
        known = new Set()
        environmentTypes = undefined
        version = current
      }
      const preLive = new Set<string>()
      const production = new Map<string, Set<string>>()
      for (const [feature, environment] of sightings) {
        if (known.has(key(feature, 'archived'))) continue
        if (!known.has(key(feature, 'pre-live'))) preLive.add(feature)
        if (!known.has(key(feature, 'live')) && !known.has(key(feature, `${environment}\u0000off`))) {
          const names = production.get(environment) ?? new Set()
          production.set(environment, names.add(feature))
        }
      }
      if (preLive.size === 0 && production.size === 0) return []

      environmentTypes ??= new Map((await environmentRows(trx).execute()).map((row) => [row.name, row.type]))
      for (const environment of [...production.keys()])
        if (environmentTypes.get(environment) !== 'production') production.delete(environment)
      const names = [...new Set([...preLive, ...[...production.values()].flatMap((set) => [...set])])]
      if (names.length === 0) return []
      const entered = await stagesEntered(trx, names, ['pre-live', 'live', 'archived'])
      for (const entry of entered) known.add(entry)
      const isIn = (feature: string, stage: string) => entered.has(key(feature, stage))

      const entries: StageEntry[] = []
      for (const feature of preLive)
        if (!isIn(feature, 'archived') && !isIn(feature, 'pre-live')) entries.push({ feature, stage: 'pre-live' })
      const live = new Set<string>()
      for (const [environment, features] of production) {
        const candidates = [...features].filter((feature) => !isIn(feature, 'archived') && !isIn(feature, 'live') && !live.has(feature))
        const on = await createFlagEnvironmentStore(trx).enabledIn(candidates, environment)
        for (const feature of candidates) {
          if (on.has(feature)) live.add(feature)
          else known.add(key(feature, `${environment}\u0000off`))
        }
      }
      for (const feature of live) entries.push({ feature, stage: 'live' })
      if (entries.length === 0) return []
      // Only active flags that still exist, held until the commit: one deleted meanwhile would fail the whole flush.
      const held = await createFlagStore(trx).holdMany([...new Set(entries.map((entry) => entry.feature))])
      const existing = new Set(held.filter((flag) => !flag.archived).map((flag) => flag.name))
      const kept = entries.filter((entry) => existing.has(entry.feature))
      await enterStages(trx, kept, at)
      return kept.map((entry) => key(entry.feature, entry.stage))
    },

    /** What a committed transaction entered: known from now on (a failed one's is not: its flush is retried). */
    remember(entered: readonly string[]): void {
      for (const entry of entered) known.add(entry)
    },
  }
}

export type LifecycleSightings = ReturnType<typeof createLifecycleSightings>
