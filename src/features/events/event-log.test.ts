/**
 * The log read in commit order never skips an event, even one whose id was drawn before others
 * that committed first (PostgreSQL, where ids come from a sequence and no lock orders the commits),
 * and the plain "after the last id read" reading, which would, is shown to.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Kysely } from 'kysely'
import { onEachDatabase, useTestApp } from '../../../test/test-app.ts'
import type { Database } from '../../db/tables.ts'
import { auditContext, SYSTEM_ACTOR } from './audit.ts'
import { appendEvents } from './event-store.ts'
import { eventMark, eventsWrittenSince, LOG_START, readEventsAfter, type EventCursor } from './event-log.ts'

const append = (db: Kysely<Database>, project: string) =>
  appendEvents(db, auditContext(SYSTEM_ACTOR), [{ type: 'feature-archived', project }])

/** Every event after `cursor` in reads of 2 at a time; their projects and the cursor after them. */
async function readAll(db: Kysely<Database>, cursor: EventCursor): Promise<{ projects: string[]; cursor: EventCursor }> {
  const projects: string[] = []
  for (;;) {
    const page = await readEventsAfter(db, cursor, 2)
    projects.push(...page.events.map((event) => (JSON.parse(event.json) as { project: string }).project))
    if (page.events.length === 0) return { projects, cursor }
    cursor = page.cursor
  }
}

/**
 * PostgreSQL: the log holds back what is younger than the oldest transaction running in the whole
 * database, and other test files' apps share it (their own schemas): a read may come up short for a
 * moment. Reads again until `enough` holds (5 s at most), and answers the last read.
 */
async function settled<T>(read: () => Promise<T>, enough: (result: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const result = await read()
    if (enough(result) || Date.now() > deadline) return result
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The naive reader: events with an id above the last one read. */
async function readAfterId(db: Kysely<Database>, id: number): Promise<{ projects: string[]; id: number }> {
  const rows = await db.selectFrom('events').select(['id', 'json']).where('id', '>', id).orderBy('id').execute()
  return {
    projects: rows.map((row) => (JSON.parse(row.json) as { project: string }).project),
    id: rows.length === 0 ? id : Number(rows.at(-1)!.id),
  }
}

onEachDatabase('event log in commit order', (database) => {
  test('reads every event once, in order, across reads', async (t) => {
    const { db } = (await useTestApp(t, database)).database
    const start = await settled(
      () => readAll(db, LOG_START),
      (read) => read.projects.length >= 1,
    )
    assert.equal(start.projects.length, 1, 'the admin token of the test app')
    for (const project of ['a', 'b', 'c', 'd', 'e']) await db.transaction().execute((trx) => append(trx, project))
    const first = await settled(
      () => readEventsAfter(db, start.cursor, 3),
      (read) => read.events.length >= 3,
    )
    assert.deepEqual(
      first.events.map((event) => (JSON.parse(event.json) as { project: string }).project),
      ['a', 'b', 'c'],
    )
    const rest = await settled(
      () => readAll(db, first.cursor),
      (read) => read.projects.length >= 2,
    )
    assert.deepEqual(rest.projects, ['d', 'e'])
    assert.deepEqual(await readAll(db, rest.cursor), { projects: [], cursor: rest.cursor })
    await assert.rejects(readEventsAfter(db, 'nonsense', 1), /not an event cursor/)
  })

  test('a transaction reads back the events it wrote since a mark, not those of others', async (t) => {
    const { db } = (await useTestApp(t, database)).database
    await db.transaction().execute(async (trx) => {
      await append(trx, 'before')
      const mark = await eventMark(trx)
      await append(trx, 'mine-1')
      await append(trx, 'mine-2')
      const written = (await eventsWrittenSince(trx, mark)).map((json) => (JSON.parse(json) as { project: string }).project)
      assert.deepEqual(written, ['mine-1', 'mine-2'])
    })
  })

  if (database.name === 'postgres') {
    test('an event whose transaction commits after a later id is read, where reading after the last id loses it', async (t) => {
      const { db } = (await useTestApp(t, database)).database
      const start = await settled(
        () => readAll(db, LOG_START),
        (read) => read.projects.length >= 1,
      )
      const naiveStart = await readAfterId(db, 0)

      // "late" draws its id first and holds its transaction open; "early" draws the next id and commits.
      let written!: () => void
      let release!: () => void
      const lateWritten = new Promise<void>((resolve) => (written = resolve))
      const released = new Promise<void>((resolve) => (release = resolve))
      const late = db.transaction().execute(async (trx) => {
        await append(trx, 'late')
        written()
        await released
      })
      await lateWritten
      let during: { projects: string[]; cursor: EventCursor }
      let naiveDuring: { projects: string[]; id: number }
      try {
        await db.transaction().execute((trx) => append(trx, 'early'))
        // While "late" is open: the log holds back "early" (an older transaction is still running);
        // the naive reader takes it and moves past the id "late" will commit with.
        during = await readAll(db, start.cursor)
        assert.deepEqual(during.projects, [])
        naiveDuring = await readAfterId(db, naiveStart.id)
        assert.deepEqual(naiveDuring.projects, ['early'])
      } finally {
        // Also when an assertion failed: the open transaction would hold up the app's teardown.
        release()
        await late
      }
      const after = await settled(
        () => readAll(db, during.cursor),
        (read) => read.projects.length >= 2,
      )
      assert.deepEqual(after.projects, ['late', 'early'], 'both, in commit order of their transactions')
      const naiveAfter = await readAfterId(db, naiveDuring.id)
      assert.deepEqual(naiveAfter.projects, [], 'the naive reader never sees "late"')
    })
  }
})
