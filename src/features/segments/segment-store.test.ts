import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, onEachDatabase, useTestApp } from '../../../test/test-app.ts'
import { auditContext, SYSTEM_ACTOR } from '../events/audit.ts'
import { eventAroundIds } from '../events/event-store.ts'
import { insertCountedWithEvents } from './segment-store.ts'

onEachDatabase('segment store', (database) => {
  test('a batch of creates is written as if one by one — names once, the limit first, ids and events gap-free', async (t) => {
    const pennon = await useTestApp(t, database)
    const { db } = pennon.database
    const audit = auditContext(SYSTEM_ACTOR)
    const create = (name: string) => {
      const segment = { name, description: `about "${name}"`, constraints: [], createdBy: 'system', createdAt: audit.createdAt }
      return { segment, event: eventAroundIds(audit, { type: 'segment-created', project: null, data: { id: 0, ...segment } }) }
    }
    const creates = (...names: string[]) => names.map(create)

    assert.deepEqual(await insertCountedWithEvents(db, creates('a', 'b', 'a', 'c'), 3), [
      { id: 1 },
      { id: 2 },
      { refused: 'name taken' },
      { id: 3 },
    ])
    // A stored name, then the one place left, then the full count (reported before a taken name).
    assert.deepEqual(await insertCountedWithEvents(db, creates('b', 'd', 'e', 'a'), 4), [
      { refused: 'name taken' },
      { id: 4 },
      { refused: 'limit' },
      { refused: 'limit' },
    ])
    assert.deepEqual(await insertCountedWithEvents(db, creates('f'), 4), [{ refused: 'limit' }])

    // Event 1 is the admin token's creation (test-app.ts).
    const events = await allEvents(pennon)
    assert.deepEqual(
      events.slice(1).map((e) => [e.id, e.type, e.data.id, e.data.name, e.data.description]),
      [
        [2, 'segment-created', 1, 'a', 'about "a"'],
        [3, 'segment-created', 2, 'b', 'about "b"'],
        [4, 'segment-created', 3, 'c', 'about "c"'],
        [5, 'segment-created', 4, 'd', 'about "d"'],
      ],
    )
    const stored = await db.selectFrom('segments').select(['id', 'name', 'description']).orderBy('id').execute()
    assert.deepEqual(stored, [
      { id: 1, name: 'a', description: 'about "a"' },
      { id: 2, name: 'b', description: 'about "b"' },
      { id: 3, name: 'c', description: 'about "c"' },
      { id: 4, name: 'd', description: 'about "d"' },
    ])
    // SQLite draws ids from counters; PostgreSQL from sequences (migration 0015), so only the count is a counter there.
    const counters = await db
      .selectFrom('counters')
      .select(['name', 'value'])
      .where('name', 'in', ['segment_count', 'segment_id', 'event_id'])
      .orderBy('name')
      .execute()
    assert.deepEqual(
      counters.map((c) => [c.name, Number(c.value)]),
      database.name === 'sqlite'
        ? [
            ['event_id', 5],
            ['segment_count', 4],
            ['segment_id', 4],
          ]
        : [['segment_count', 4]],
    )
  })
})
