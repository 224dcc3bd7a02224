/**
 * Group commit: writes that arrive while one is being committed wait, and then go together in
 * one transaction. On PostgreSQL each commit waits for its flush to disk (and rows it locked stay
 * locked until then), so writes one by one are bounded by one flush each; together, one flush
 * serves them all. A write that finds nothing under way goes at once, alone: no
 * added wait when the load is light. Where a short write never leaves the event loop (SQLite: a
 * transaction lets it turn only after 10 ms, sqlite-dialect.ts), nothing can arrive while one is
 * written; `schedule` then delays the start to the end of the loop's current turn, so the writes
 * that arrived in that turn go together.
 *
 * `together` writes a batch in one transaction and returns each item's result in order. When
 * it throws `RetryAlone` (a statement failed, so the transaction rolled back and wrote nothing:
 * a race lost to another instance, say), each item is written again with `alone`, which reports
 * its own outcome. Any other error (a lost connection, a failed commit: whether it took effect
 * is unknown) is every item's error: retrying could write twice.
 */
export class RetryAlone extends Error {
  constructor(cause: unknown) {
    super('a write of the batch failed; each is written alone', { cause })
  }
}

export interface GroupCommitOptions<Item, Result> {
  together(items: Item[]): Promise<Result[]>
  alone(item: Item): Promise<Result>
  /** Most items in one transaction: bounds one statement's size and how long its locks are held. */
  maxItems: number
  /** When a write that finds nothing under way starts: at once unless given. */
  schedule?: (start: () => void) => void
}

export function createGroupCommit<Item, Result>({
  together,
  alone,
  maxItems,
  schedule = (start) => start(),
}: GroupCommitOptions<Item, Result>): (item: Item) => Promise<Result> {
  let waiting: { item: Item; resolve(result: Result): void; reject(error: unknown): void }[] = []
  // A write is under way, or scheduled to start.
  let writing = false

  const writeBatches = async () => {
    while (waiting.length > 0) {
      const batch = waiting.slice(0, maxItems)
      waiting = waiting.slice(batch.length)
      const writeAlone = (entry: (typeof batch)[number]) => alone(entry.item).then(entry.resolve, entry.reject)
      if (batch.length === 1) {
        await writeAlone(batch[0]!)
        continue
      }
      try {
        const results = await together(batch.map((entry) => entry.item))
        for (const [index, entry] of batch.entries()) entry.resolve(results[index]!)
      } catch (error) {
        if (error instanceof RetryAlone) await Promise.all(batch.map(writeAlone))
        else for (const entry of batch) entry.reject(error)
      }
    }
    writing = false
  }

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      waiting.push({ item, resolve, reject })
      if (writing) return
      writing = true
      schedule(() => void writeBatches())
    })
}
