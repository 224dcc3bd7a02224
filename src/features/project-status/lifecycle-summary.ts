/**
 * A project's lifecycle summary, as the reference computes it (pure): for each stage, how many of
 * the project's active flags are in it now (the stage each entered last) and the average days a
 * flag stayed in it (from entering it to entering any later stage, rounded; null without such a
 * flag); archived flags counted apart, and those archived in the last 30 days.
 */
import type { Stage } from '../lifecycle/lifecycle-store.ts'

const DAY_MS = 86_400_000

export interface StageRow {
  feature: string
  stage: Stage
  enteredAt: string
}

export interface FlagArchiveTime {
  name: string
  archivedAt: string | null
}

type Summary = { averageDays: number | null; currentFlags: number }

export interface LifecycleSummary {
  initial: Summary
  preLive: Summary
  live: Summary
  completed: Summary
  archived: { currentFlags: number; last30Days: number }
}

/** `rows`: the stages of the project's flags (archived ones too), in the order entered. */
export function summarizeLifecycles(rows: readonly StageRow[], flags: readonly FlagArchiveTime[], now: number): LifecycleSummary {
  const byFlag = new Map<string, StageRow[]>()
  for (const row of rows) byFlag.set(row.feature, [...(byFlag.get(row.feature) ?? []), row])

  const days = new Map<Stage, number[]>()
  for (const stages of byFlag.values()) {
    for (const row of stages) {
      if (row.stage === 'archived') continue
      const entered = Date.parse(row.enteredAt)
      // The next stage entered strictly later (stages entered at the same moment count as one).
      const next = stages.map((later) => Date.parse(later.enteredAt)).filter((at) => at > entered)
      if (next.length === 0) continue
      days.set(row.stage, [...(days.get(row.stage) ?? []), (Math.min(...next) - entered) / DAY_MS])
    }
  }
  const average = (stage: Stage) => {
    const spans = days.get(stage)
    return spans === undefined ? null : Math.round(spans.reduce((sum, span) => sum + span, 0) / spans.length)
  }

  const current: Record<Exclude<Stage, 'archived'>, number> = { initial: 0, 'pre-live': 0, live: 0, completed: 0 }
  const active = new Set(flags.filter((flag) => flag.archivedAt === null).map((flag) => flag.name))
  for (const [feature, stages] of byFlag) {
    if (!active.has(feature)) continue
    const latest = stages.at(-1)!.stage
    // An active flag whose last stage is archived is being revived: initial, as the reference counts it.
    current[latest === 'archived' ? 'initial' : latest]++
  }
  const archived = flags.filter((flag) => flag.archivedAt !== null)
  const since = now - 30 * DAY_MS
  return {
    initial: { averageDays: average('initial'), currentFlags: current.initial },
    preLive: { averageDays: average('pre-live'), currentFlags: current['pre-live'] },
    live: { averageDays: average('live'), currentFlags: current.live },
    completed: { averageDays: average('completed'), currentFlags: current.completed },
    archived: {
      currentFlags: archived.length,
      last30Days: archived.filter((flag) => Date.parse(flag.archivedAt!) >= since).length,
    },
  }
}
