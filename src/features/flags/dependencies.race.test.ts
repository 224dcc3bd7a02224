/**
 * Two instances on one database race requests whose checks pass one at a time but
 * whose writes together would break the invariant. The rule check and the write are
 * serialized, so at most one of each pair may succeed.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, onEachDatabase, useTwoInstances, type TestApp, type TestDatabase } from '../../../test/test-app.ts'
import { addDependency, archive, assertInvariant, createFlags, dependencyRows, depend, projectPath } from '../../../test/helpers/flags.ts'

const ROUNDS = 25

async function twoInstances(t: { after(fn: () => Promise<void>): void }, database: TestDatabase): Promise<[TestApp, TestApp]> {
  const { first, second } = await useTwoInstances(t, database)
  return [first, second]
}

onEachDatabase('dependency races', (database) => {
  test('b→a and c→b at once on two instances never both succeed', async (t) => {
    const [first, second] = await twoInstances(t, database)
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b, c] = [`a${round}`, `b${round}`, `c${round}`]
      await createFlags(first, [a, b, c])
      // Alternate which request starts first, so either may win.
      const [bOnA, cOnB] =
        round % 2 === 0
          ? await Promise.all([addDependency(first, b, { feature: a }), addDependency(second, c, { feature: b })])
          : (await Promise.all([addDependency(second, c, { feature: b }), addDependency(first, b, { feature: a })])).reverse()
      const statuses = [bOnA.status, cOnB.status]
      assert.ok(statuses.includes(200) && statuses.includes(409), `round ${round}: ${statuses} ${bOnA.text} ${cOnB.text}`)
    }
    await assertInvariant(first)
  })

  test('archiving a parent while a child is being added never leaves a dependency on an archived flag', async (t) => {
    const [first, second] = await twoInstances(t, database)
    for (let round = 0; round < ROUNDS; round++) {
      const [parent, child] = [`p${round}`, `k${round}`]
      await createFlags(first, [parent, child])
      const [archived, added] = await Promise.all([
        call(first, 'DELETE', `${projectPath()}/features/${parent}`),
        addDependency(second, child, { feature: parent }),
      ])
      // Either the archive went first (the dependency then finds no active parent: 404)
      // or the dependency did (the archive then refuses to orphan the child: 409).
      assert.ok(
        (archived.status === 202 && added.status === 404) || (archived.status === 409 && added.status === 200),
        `round ${round}: archive ${archived.status}, add ${added.status}`,
      )
    }
    await assertInvariant(first)
  })

  test('archiving a batch while one of its flags gets a parent outside it keeps the invariant', async (t) => {
    const [first, second] = await twoInstances(t, database)
    for (let round = 0; round < ROUNDS; round++) {
      const [parent, child, outside] = [`bp${round}`, `bc${round}`, `bo${round}`]
      await createFlags(first, [parent, child, outside])
      await depend(first, child, parent)
      // The batch holds the whole family; meanwhile another request moves the child under `outside`.
      const [archived, moved] = await Promise.all([archive(first, [parent, child]), addDependency(second, child, { feature: outside })])
      assert.equal(archived.status, 202, archived.text)
      assert.ok([200, 404].includes(moved.status), `round ${round}: ${moved.status} ${moved.text}`)
    }
    await assertInvariant(first)
    assert.deepEqual(
      (await dependencyRows(first)).filter((row) => row.child.startsWith('bc')).every((row) => row.parent.startsWith('bo')),
      true,
    )
  })
})
