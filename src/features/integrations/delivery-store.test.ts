import assert from 'node:assert/strict'
import { test } from 'node:test'
import { onEachDatabase, useTestApp } from '../../../test/test-app.ts'
import { createAddonStore } from './addon-store.ts'
import { createDeliveryStore, type Attempt } from './delivery-store.ts'

onEachDatabase('delivery store', (database) => {
  test("pruning keeps an integration's newest tries, and no other integration's are touched", async (t) => {
    const pennon = await useTestApp(t, database)
    const { db } = pennon.database
    const addons = createAddonStore(db)
    const fields = { provider: 'webhook', description: null, enabled: false, parameters: {}, events: [], projects: [], environments: [] }
    const [first, second] = [
      await addons.insert(fields, '2026-01-01T00:00:00.000Z', '0:0'),
      await addons.insert(fields, '2026-01-01T00:00:00.000Z', '0:0'),
    ]
    const tries = (integrationId: number, from: number, count: number): Attempt[] =>
      Array.from({ length: count }, (_, index) => ({
        integrationId,
        createdAt: '2026-01-01T00:00:00.000Z',
        state: 'success',
        stateDetails: `try ${from + index}`,
        event: '{}',
        details: {},
      }))
    const store = createDeliveryStore(db)
    // Interleaved, as two integrations' commits are.
    await store.recordAll(tries(first!.id, 1, 20))
    await store.recordAll(tries(second!.id, 1, 5))
    await store.recordAll(tries(first!.id, 21, 10))
    await store.prune(first!.id, 12)
    const logOf = async (id: number) => (await store.attempts(id, 100, 0)).map((attempt) => attempt.stateDetails)
    assert.deepEqual(
      await logOf(first!.id),
      Array.from({ length: 12 }, (_, index) => `try ${30 - index}`),
    )
    assert.deepEqual(await logOf(second!.id), ['try 5', 'try 4', 'try 3', 'try 2', 'try 1'])
    // Fewer than kept: nothing goes.
    await store.prune(second!.id, 12)
    assert.equal((await logOf(second!.id)).length, 5)
  })
})
