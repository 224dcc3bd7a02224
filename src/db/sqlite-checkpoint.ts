/**
 * WAL checkpoints off the event loop, for the commits of long transactions.
 *
 * SQLite checkpoints on the committing connection once the WAL holds 1,000 pages: it copies
 * them into the database file and syncs it, synchronously. After a long transaction that is one
 * long piece: the commit of a maximal import (some 2,800 pages, 12 MB of WAL) spent 50–190 ms
 * checkpointing on the development machine, during which nothing else ran. So the writer's
 * automatic checkpoints are off from just before such a commit (sqlite-dialect.ts: a transaction
 * that let the event loop turn and changed LONG_COMMIT_ROWS rows or more) until a worker thread
 * has checkpointed instead. The worker is started for the purpose and ends when no long commit
 * waits for it: a thread costs about 20 MB while it lives, which an idle server does not pay.
 */
import { Worker } from 'node:worker_threads'

/** SQLite's default `wal_autocheckpoint`: the writer's setting whenever no worker is needed. */
export const AUTOCHECKPOINT_PAGES = 1000

// CommonJS, evaluated: no module of Pennon's to load. A PASSIVE checkpoint never waits for the
// writer or the readers; it copies what they leave it, and the writer restarts the WAL once all is copied.
const WORKER_SOURCE = `
const { DatabaseSync } = require('node:sqlite')
const { parentPort, workerData } = require('node:worker_threads')
const db = new DatabaseSync(workerData.file)
const checkpoint = () => {
  db.exec('PRAGMA wal_checkpoint(PASSIVE)')
  parentPort.postMessage('checkpointed')
}
parentPort.on('message', (message) => {
  if (message === 'checkpoint') return checkpoint()
  db.close()
  parentPort.close()
})
checkpoint()
`

export interface BackgroundCheckpoints {
  /** A long transaction is about to commit: from now its commit must not checkpoint. */
  beforeLongCommit(): void
  /** It has committed (or failed to): its pages are checkpointed by the worker. */
  afterLongCommit(): void
  /** Waits for a checkpoint under way; starts none. */
  close(): Promise<void>
}

/** `setAutomatic(on)` turns the writer's automatic checkpoints on or off (a connection setting, allowed mid-transaction). */
export function createBackgroundCheckpoints(file: string, setAutomatic: (on: boolean) => void): BackgroundCheckpoints {
  let automatic = true
  // Long commits between beforeLongCommit and afterLongCommit.
  let committing = 0
  // A long commit ended after the worker's latest checkpoint began: one more is needed.
  let pending = false
  let worker: Worker | undefined
  // A start is scheduled for the next turn of the event loop.
  let starting = false
  let exited: Promise<void> = Promise.resolve()
  let closed = false

  const update = () => {
    // Once closing, the connections are about to close: left as they are.
    if (closed) return
    const on = committing === 0 && worker === undefined && !starting
    if (on !== automatic) setAutomatic((automatic = on))
  }

  const start = () => {
    pending = false
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { file }, execArgv: [] })
    worker = started
    started.on('message', () => {
      if (pending && !closed) {
        pending = false
        started.postMessage('checkpoint')
      } else started.postMessage('end')
    })
    // A checkpoint that failed (the file gone, say) is not retried here: the writer's automatic ones take over.
    started.on('error', () => (pending = false))
    exited = new Promise((resolve) =>
      started.once('exit', () => {
        worker = undefined
        if (pending && !closed) start()
        update()
        resolve()
      }),
    )
  }

  return {
    beforeLongCommit() {
      committing++
      update()
    },
    afterLongCommit() {
      committing--
      pending = true
      // Starting a thread costs the event loop some 10 ms: not in the commit's turn.
      if (worker === undefined && !closed && !starting) {
        starting = true
        setImmediate(() => {
          starting = false
          if (worker === undefined && !closed && pending) start()
          update()
        })
      }
      update()
    },
    async close() {
      closed = true
      // Each exit may have started the next worker (not now: closed), so wait for the last.
      while (worker !== undefined) await exited
    },
  }
}
