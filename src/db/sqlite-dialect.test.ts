/**
 * SQLite (node:sqlite runs statements synchronously): a long transaction lets the event loop turn
 * between its statements, and the WAL checkpoint after it runs on a worker thread, not on the
 * committing connection. Rows are plain objects, made from the arrays node:sqlite is asked for.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { createTestStorage, eventually } from '../../test/test-app.ts'
import { createDb } from './database.ts'
import { YIELD_AFTER_MS } from './sqlite-dialect.ts'

async function sqliteDb(t: { after(fn: () => Promise<void>): void }) {
  const storage = await createTestStorage({ name: 'sqlite' })
  const database = createDb(storage.options)
  t.after(async () => {
    await database.close()
    await storage.drop()
  })
  await sql`create table rows (id integer primary key, text text not null)`.execute(database.db)
  return database
}

/** One transaction of `count` inserts (about 1 KB each), timed by how often the event loop turned meanwhile. */
async function longTransaction(db: Kysely<any>, count: number): Promise<{ turns: number; longestMs: number }> {
  let turns = 0
  let longestMs = 0
  let last = performance.now()
  let running = true
  const turn = () => {
    const now = performance.now()
    longestMs = Math.max(longestMs, now - last)
    last = now
    turns++
    if (running) setImmediate(turn)
  }
  setImmediate(turn)
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) await sql`insert into rows (text) values (${'x'.repeat(1000)})`.execute(trx)
  })
  running = false
  return { turns, longestMs }
}

const pragma = async (db: Kysely<any>, statement: string) =>
  (await sql.raw(`pragma ${statement}`).execute(db)).rows[0] as Record<string, number>

test('a long transaction lets the event loop turn every few milliseconds; its checkpoint runs off the event loop', async (t) => {
  const { db } = await sqliteDb(t)
  const started = performance.now()
  const { turns, longestMs } = await longTransaction(db, 20_000)
  const elapsed = performance.now() - started
  assert.ok(elapsed > 5 * YIELD_AFTER_MS, `the transaction took ${elapsed.toFixed(0)} ms: too short to show anything`)
  assert.ok(turns >= elapsed / (YIELD_AFTER_MS * 10), `${turns} turns of the event loop in ${elapsed.toFixed(0)} ms`)
  assert.ok(longestMs < elapsed / 2, `the longest time without a turn was ${longestMs.toFixed(0)} ms of ${elapsed.toFixed(0)}`)

  // Its commit did not checkpoint (the writer's automatic checkpoints were off); a worker thread does, then they are on again.
  assert.equal((await pragma(db, 'wal_autocheckpoint')).wal_autocheckpoint, 0)
  await eventually(async () => (await pragma(db, 'wal_autocheckpoint')).wal_autocheckpoint === 1000, 'automatic checkpoints on again')
  const checkpoint = await pragma(db, 'wal_checkpoint(PASSIVE)')
  assert.equal(checkpoint.busy, 0)
  assert.ok(checkpoint.log > 1000, `${checkpoint.log} pages in the WAL`)
  assert.equal(checkpoint.checkpointed, checkpoint.log)
})

test('a short transaction leaves the checkpoints to SQLite; closing right after a long one is clean', async (t) => {
  const database = await sqliteDb(t)
  // In a turn of its own: what ran before it (opening, the table) does not count towards its 10 ms.
  await new Promise((resolve) => setTimeout(resolve, 20))
  await database.db.transaction().execute((trx) => sql`insert into rows (text) values ('one')`.execute(trx))
  assert.equal((await pragma(database.db, 'wal_autocheckpoint')).wal_autocheckpoint, 1000)
  await longTransaction(database.db, 20_000)
  // The worker is starting or checkpointing: closing waits for it, and nothing is left running.
  await database.close()
})

test('a transaction that let the event loop turn but changed few rows leaves the checkpoints to SQLite: no worker thread', async (t) => {
  const { db } = await sqliteDb(t)
  await new Promise((resolve) => setTimeout(resolve, 20))
  let turned = false
  await db.transaction().execute(async (trx) => {
    await sql`insert into rows (text) values ('one')`.execute(trx)
    setImmediate(() => (turned = true))
    // Other work keeps this turn of the event loop busy (requests under load): the next statement lets the loop turn first.
    const busyUntil = performance.now() + YIELD_AFTER_MS * 2
    while (performance.now() < busyUntil);
    await sql`insert into rows (text) values ('two')`.execute(trx)
    assert.equal(turned, true, 'the event loop turned inside the transaction')
  })
  // A commit sent to a worker turns the writer's automatic checkpoints off until the worker is done.
  assert.equal((await pragma(db, 'wal_autocheckpoint')).wal_autocheckpoint, 1000)
})

test("a write that finds another connection's transaction waits for it without holding the event loop", async (t) => {
  const storage = await createTestStorage({ name: 'sqlite' })
  // Two writers on one file, as two apps of one process (or two processes) have.
  const [holder, waiter] = [createDb(storage.options), createDb(storage.options)]
  t.after(async () => {
    await holder.close()
    await waiter.close()
    await storage.drop()
  })
  await sql`create table rows (id integer primary key, text text not null)`.execute(holder.db)
  let ticks = 0
  const ticking = setInterval(() => ticks++, 5)
  t.after(() => clearInterval(ticking))
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  // The holder's transaction awaits something other than a statement (as one that let the event loop turn does).
  let began = false
  const holding = holder.db.transaction().execute(async (trx) => {
    await sql`insert into rows (text) values ('first')`.execute(trx)
    began = true
    await released
  })
  await eventually(() => began, 'the holder began')
  const waiting = waiter.db.transaction().execute((trx) => sql`insert into rows (text) values ('second')`.execute(trx))
  const ticksBefore = ticks
  await new Promise((resolve) => setTimeout(resolve, 200))
  assert.ok(ticks - ticksBefore >= 10, `the event loop turned ${ticks - ticksBefore} times in 200 ms while the second writer waited`)
  release()
  await holding
  await waiting
  assert.deepEqual(
    (await sql<{ text: string }>`select text from rows order by id`.execute(waiter.db)).rows.map((row) => row.text),
    ['first', 'second'],
  )
})

test('rows are plain objects named by their columns, read whole or streamed: a repeated name keeps its last value, __proto__ is a field', async (t) => {
  const { db } = await sqliteDb(t)
  await sql`insert into rows (id, text) values (1, 'one'), (2, 'two')`.execute(db)
  const query = sql<Record<string, unknown>>`select id, text, id * 10 as id, text as "__proto__" from rows order by id`
  const read = (await query.execute(db)).rows
  const streamed: Record<string, unknown>[] = []
  for await (const row of (db as Kysely<any>).selectFrom('rows').select(['id', 'text']).orderBy('id').stream(1)) streamed.push(row)
  for (const row of read) {
    assert.equal(Object.getPrototypeOf(row), Object.prototype)
    assert.deepEqual(Object.keys(row), ['id', 'text', '__proto__'])
  }
  assert.deepEqual(
    read.map((row) => [row.id, row.text, Object.getOwnPropertyDescriptor(row, '__proto__')?.value]),
    [
      [10, 'one', 'one'],
      [20, 'two', 'two'],
    ],
  )
  assert.deepEqual(streamed, [
    { id: 1, text: 'one' },
    { id: 2, text: 'two' },
  ])
  assert.equal(Object.getPrototypeOf(streamed[0]), Object.prototype)
})
