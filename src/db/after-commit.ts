/**
 * Work that must wait for a transaction's commit, such as an email about what it changed: a
 * function deep inside the transaction registers it with `afterCommit`; the one that opened the
 * transaction with `runTransaction` runs it once the commit succeeded. A rollback drops it, so
 * nothing is ever said about a change that did not happen, and nothing slow runs inside.
 */
import type { Kysely } from 'kysely'
import type { Database } from './tables.ts'

type Task = () => void

const waiting = new WeakMap<Kysely<Database>, Task[]>()

/** `db.transaction().execute(body)`, then the tasks registered in it (after the commit, in order). */
export async function runTransaction<T>(db: Kysely<Database>, body: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  const tasks: Task[] = []
  const result = await db.transaction().execute((trx) => {
    waiting.set(trx, tasks)
    return body(trx)
  })
  for (const task of tasks) task()
  return result
}

/** Runs `task` once `trx` committed; `trx` must have been opened by runTransaction (a mistake otherwise). */
export function afterCommit(trx: Kysely<Database>, task: Task): void {
  const tasks = waiting.get(trx)
  if (!tasks) throw new Error('afterCommit needs a transaction opened by runTransaction')
  tasks.push(task)
}
