import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, createTestApp, eventually, onEachDatabase, useTestApp, useTwoInstances, type TestApp } from '../../../test/test-app.ts'
import { appendEvents } from './event-store.ts'
import { auditContext, SYSTEM_ACTOR } from './audit.ts'

onEachDatabase('event read cache', (database) => {
  test('a repeated read is answered alike, and a new event shows at once in every read', async (t) => {
    const pennon = await useTestApp(t, database)
    const append = (featureName: string) =>
      pennon.database.db
        .transaction()
        .execute((trx) => appendEvents(trx, auditContext(SYSTEM_ACTOR), [{ type: 'feature-archived', featureName, project: 'default' }]))
    await append('cached-flag')
    const reads = ['/api/admin/events', '/api/admin/events?project=default', '/api/admin/events/cached-flag']
    const first = await Promise.all(reads.map((url) => call(pennon, 'GET', url)))
    const again = await Promise.all(reads.map((url) => call(pennon, 'GET', url)))
    assert.deepEqual(
      again.map((r) => r.text),
      first.map((r) => r.text),
    )

    await append('cached-flag')
    const after = await Promise.all(reads.map((url) => call(pennon, 'GET', url)))
    for (const [index, response] of after.entries()) {
      assert.equal(response.status, 200)
      assert.equal(response.body.totalEvents, first[index]!.body.totalEvents + 1, reads[index])
      assert.equal(response.body.events.length, first[index]!.body.events.length + 1, reads[index])
      assert.equal(response.body.events[0].featureName, 'cached-flag')
    }
  })

  test("an event written by another instance, or by hand, shows in this instance's reads too", async (t) => {
    const { first, second, storage } = await useTwoInstances(t, database)
    // Another instance's commit counts a moment later: within 2 ms on SQLite, with the notification on PostgreSQL.
    const totalSeen = (pennon: TestApp, url: string, expected: number) =>
      eventually(async () => (await call(pennon, 'GET', url)).body.totalEvents === expected, `${url} counts ${expected}`, 3_000)
    const reads = ['/api/admin/events', '/api/admin/events?project=default', '/api/admin/events/shared-flag']
    const before = await Promise.all(reads.map((url) => call(second, 'GET', url)))

    const created = await call(first, 'POST', '/api/admin/projects/default/features', { name: 'shared-flag' })
    assert.equal(created.status, 201)
    for (const [index, url] of reads.entries()) await totalSeen(second, url, before[index]!.body.totalEvents + 1)

    // An operator's own statement, outside Pennon.
    const byHand = await createTestApp(database, { storage })
    await byHand.database.db
      .transaction()
      .execute((trx) =>
        appendEvents(trx, auditContext(SYSTEM_ACTOR), [{ type: 'feature-archived', featureName: 'shared-flag', project: 'default' }]),
      )
    await byHand.close()
    for (const [index, url] of reads.entries()) await totalSeen(second, url, before[index]!.body.totalEvents + 2)
  })
})
