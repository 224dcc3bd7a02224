import assert from 'node:assert/strict'
import { test } from 'node:test'
import { summarizeLifecycles, type StageRow } from './lifecycle-summary.ts'

const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString()
const row = (feature: string, stage: StageRow['stage'], day: number): StageRow => ({ feature, stage, enteredAt: at(day) })

test('averages: days to the next stage entered strictly later, rounded; stages nobody left are null; archived is not averaged', () => {
  const rows = [
    row('a', 'initial', 1),
    row('b', 'initial', 1),
    row('a', 'pre-live', 2),
    row('a', 'live', 2),
    row('b', 'completed', 5),
    row('a', 'completed', 10),
    row('b', 'archived', 6),
  ]
  const summary = summarizeLifecycles(
    rows,
    [
      { name: 'a', archivedAt: null },
      { name: 'b', archivedAt: at(6) },
    ],
    Date.parse(at(20)),
  )
  assert.deepEqual(summary, {
    // a: 1 day, b: 4 days → 2.5 → 3.
    initial: { averageDays: 3, currentFlags: 0 },
    // a's pre-live and live entered at once: both last until completed, 8 days later.
    preLive: { averageDays: 8, currentFlags: 0 },
    live: { averageDays: 8, currentFlags: 0 },
    // b was completed for a day before its archiving; a is completed still.
    completed: { averageDays: 1, currentFlags: 1 },
    archived: { currentFlags: 1, last30Days: 1 },
  })
})

test('current stages: the latest entered of active flags; an active flag last archived counts as initial; old archivings are not recent', () => {
  const summary = summarizeLifecycles(
    [row('a', 'initial', 1), row('a', 'archived', 2), row('c', 'initial', 1), row('c', 'archived', 3)],
    [
      { name: 'a', archivedAt: null },
      { name: 'c', archivedAt: at(3) },
    ],
    Date.parse(at(3)) + 31 * 86_400_000,
  )
  assert.equal(summary.initial.currentFlags, 1)
  assert.deepEqual(summary.archived, { currentFlags: 1, last30Days: 0 })
})
