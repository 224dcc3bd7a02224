/**
 * A revert racing the admin route that changes the same thing: both lock the child and its parent
 * in one order (by name), so they queue; neither deadlocks, and the state is one of the two orders.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, onEachDatabase, useTestApp } from '../../../test/test-app.ts'
import { addDependency, createFlags, projectPath } from '../../../test/helpers/flags.ts'
import { lastEvent, revert } from '../../../test/helpers/revert.ts'

onEachDatabase('revert races', (database) => {
  test('"all dependencies removed" reverted while the same child gets the same parent again: 200 or 409 for the revert, 200 for the route, never a deadlock', async (t) => {
    const pennon = await useTestApp(t, database)
    // The parents sort before the child: the order a lock taken child-first would invert.
    await createFlags(pennon, ['a-parent', 'z-child'])
    const statuses = new Set<string>()
    for (let round = 0; round < 40; round++) {
      assert.equal((await addDependency(pennon, 'z-child', { feature: 'a-parent' })).status, 200)
      assert.equal((await call(pennon, 'DELETE', `${projectPath()}/features/z-child/dependencies`)).status, 200)
      const removed = await lastEvent(pennon, 'feature-dependencies-removed', 'z-child')
      const [reverted, added] = await Promise.all([
        revert(pennon, removed.id, '?force=true'),
        addDependency(pennon, 'z-child', { feature: 'a-parent', enabled: false }),
      ])
      assert.ok([200, 409].includes(reverted.status), reverted.text)
      assert.equal(added.status, 200, added.text)
      statuses.add(`${reverted.status}`)
      const parents = (await call(pennon, 'GET', `${projectPath()}/features/z-child`)).body.dependencies.map(
        (d: { feature: string }) => d.feature,
      )
      assert.equal(parents.length, 1, JSON.stringify(parents))
    }
    t.diagnostic(`revert statuses seen: ${[...statuses].sort().join(', ')}`)
  })
})
