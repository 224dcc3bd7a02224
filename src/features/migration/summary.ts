/** What a migration run did, per kind of thing: the summary it prints. */
export interface Counts {
  created: number
  updated: number
  unchanged: number
}

export type Summary = Map<string, Counts>

export const createSummary = (): Summary => new Map()

export function count(summary: Summary, kind: string, outcome: keyof Counts, by = 1): void {
  const counts = summary.get(kind) ?? { created: 0, updated: 0, unchanged: 0 }
  counts[outcome] += by
  summary.set(kind, counts)
}

/** True when the run wrote nothing. */
export const changedNothing = (summary: Summary): boolean => [...summary.values()].every((c) => c.created === 0 && c.updated === 0)

export function formatSummary(summary: Summary): string {
  const width = Math.max(...[...summary.keys()].map((kind) => kind.length), 4)
  const lines = [`${'kind'.padEnd(width)}  created  updated  unchanged`]
  for (const [kind, c] of summary)
    lines.push(
      `${kind.padEnd(width)}  ${String(c.created).padStart(7)}  ${String(c.updated).padStart(7)}  ${String(c.unchanged).padStart(9)}`,
    )
  return lines.join('\n')
}
