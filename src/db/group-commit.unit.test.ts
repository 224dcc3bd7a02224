import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createGroupCommit, RetryAlone } from './group-commit.ts'

/** A writer that records each call, finishing when the test says so. */
function recorder(options: { failTogether?: (items: number[]) => unknown; schedule?: (start: () => void) => void } = {}) {
  const calls: { kind: 'alone' | 'together'; items: number[]; finish(): void }[] = []
  const call = (kind: 'alone' | 'together', items: number[]) => new Promise<void>((finish) => calls.push({ kind, items, finish }))
  const write = createGroupCommit<number, string>({
    alone: async (item) => {
      await call('alone', [item])
      if (item < 0) throw new Error(`refused ${item}`)
      return `alone ${item}`
    },
    together: async (items) => {
      await call('together', items)
      const failure = options.failTogether?.(items)
      if (failure !== undefined) throw failure
      return items.map((item) => `together ${item}`)
    },
    maxItems: 3,
    schedule: options.schedule,
  })
  /** Lets every call made so far finish, and the writer go on. */
  const finishAll = async () => {
    for (let round = 0; round < 10; round++) {
      for (const c of calls) c.finish()
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return { calls, write, finishAll }
}

test('a write with nothing under way goes at once, alone; those arriving meanwhile go together, at most maxItems at a time', async () => {
  const { calls, write, finishAll } = recorder()
  const first = write(1)
  assert.deepEqual(
    calls.map((c) => [c.kind, c.items]),
    [['alone', [1]]],
  )
  const later = [2, 3, 4, 5].map((item) => write(item))
  await finishAll()
  assert.equal(await first, 'alone 1')
  assert.deepEqual(await Promise.all(later), ['together 2', 'together 3', 'together 4', 'alone 5'])
  assert.deepEqual(
    calls.map((c) => [c.kind, c.items]),
    [
      ['alone', [1]],
      ['together', [2, 3, 4]],
      ['alone', [5]],
    ],
  )

  // Idle again: the next write goes at once.
  const next = write(6)
  assert.deepEqual(calls.at(-1)!.items, [6])
  await finishAll()
  assert.equal(await next, 'alone 6')
})

test('RetryAlone writes each item of the batch alone, each with its own outcome', async () => {
  const { calls, write, finishAll } = recorder({ failTogether: () => new RetryAlone(new Error('unique violation')) })
  const first = write(1)
  const batch = [write(2), write(-3), write(4)].map((p) =>
    p.then(
      (value) => ({ value }),
      (error: Error) => ({ error: error.message }),
    ),
  )
  await finishAll()
  await first
  assert.deepEqual(await Promise.all(batch), [{ value: 'alone 2' }, { error: 'refused -3' }, { value: 'alone 4' }])
  assert.deepEqual(
    calls.map((c) => [c.kind, c.items]),
    [
      ['alone', [1]],
      ['together', [2, -3, 4]],
      ['alone', [2]],
      ['alone', [-3]],
      ['alone', [4]],
    ],
  )
})

test("any other failure of a batch is every item's error, and nothing is written again", async () => {
  const lost = new Error('connection lost during commit')
  const { calls, write, finishAll } = recorder({ failTogether: () => lost })
  const first = write(1)
  const batch = [write(2), write(3)].map((p) =>
    p.then(
      () => 'written',
      (error: unknown) => error,
    ),
  )
  await finishAll()
  await first
  assert.deepEqual(await Promise.all(batch), [lost, lost])
  assert.deepEqual(
    calls.map((c) => c.kind),
    ['alone', 'together'],
  )
  // The writer goes on with later writes.
  const after = write(7)
  await finishAll()
  assert.equal(await after, 'alone 7')
})

test('with a schedule, a write that finds nothing under way waits for it: the writes that arrive meanwhile go with it', async () => {
  const starts: (() => void)[] = []
  const { calls, write, finishAll } = recorder({ schedule: (start) => starts.push(start) })
  const written = [1, 2, 3, 4].map((item) => write(item))
  assert.equal(starts.length, 1, 'one start is scheduled, however many writes arrive')
  assert.equal(calls.length, 0, 'nothing is written before it')
  starts[0]!()
  await finishAll()
  assert.deepEqual(await Promise.all(written), ['together 1', 'together 2', 'together 3', 'alone 4'])
  assert.deepEqual(
    calls.map((c) => [c.kind, c.items]),
    [
      ['together', [1, 2, 3]],
      ['alone', [4]],
    ],
  )

  // Idle again: the next write is scheduled anew.
  const next = write(5)
  assert.equal(starts.length, 2)
  starts[1]!()
  await finishAll()
  assert.equal(await next, 'alone 5')
})
