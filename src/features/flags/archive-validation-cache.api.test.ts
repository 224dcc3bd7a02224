import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createTestApp, eventually, onEachDatabase, sql, useTestApp, useTwoInstances, type TestApp } from '../../../test/test-app.ts'
import { archive, createFlags, depend, revive, validate } from '../../../test/helpers/flags.ts'

const answer = (parentsWithChildFeatures: string[], hasDeletedDependencies: boolean) =>
  JSON.stringify({ parentsWithChildFeatures, hasDeletedDependencies })

async function answerOf(pennon: TestApp, features: string[]): Promise<string> {
  const response = await validate(pennon, features)
  assert.equal(response.status, 200, response.text)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  return response.text
}

onEachDatabase('archive validation answers remembered', (database) => {
  test('a repeated batch is answered alike, and every change through the API shows at once', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['parent', 'child', 'other'])
    const batch = ['parent', 'other']
    assert.equal(await answerOf(pennon, batch), answer([], false))
    assert.equal(await answerOf(pennon, batch), answer([], false))

    await depend(pennon, 'child', 'parent')
    assert.equal(await answerOf(pennon, batch), answer(['parent'], true))
    assert.equal(await answerOf(pennon, batch), answer(['parent'], true))

    assert.equal((await archive(pennon, ['child'])).status, 202)
    assert.equal(await answerOf(pennon, batch), answer([], false))
    assert.equal((await revive(pennon, ['child'])).status, 200)
    // Archiving the child deleted the dependency: reviving it brings the flag back, not the dependency.
    assert.equal(await answerOf(pennon, batch), answer([], false))
    // The same names in another order, or in another project, are another question.
    assert.equal(await answerOf(pennon, ['other', 'parent']), answer([], false))
    const elsewhere = await validate(pennon, batch, 'nowhere')
    assert.equal(elsewhere.text, answer([], false))
  })

  test("a change by another instance, or by hand without an event, shows in this instance's answers", async (t) => {
    const { first, second, storage } = await useTwoInstances(t, database)
    await createFlags(first, ['p', 'c', 'hand-child'])
    const batch = ['p']
    // Another instance's commit counts a moment later: within 2 ms on SQLite, with the notification on PostgreSQL.
    const answered = (pennon: TestApp, expected: string) =>
      eventually(async () => (await answerOf(pennon, batch)) === expected, `${JSON.stringify(batch)} answers ${expected}`, 3_000)
    await answered(second, answer([], false))

    await depend(first, 'c', 'p')
    await answered(second, answer(['p'], true))

    // An operator's own statements, outside Pennon: they write no event.
    const byHand = await createTestApp(database, { storage })
    t.after(() => byHand.close())
    const { db } = byHand.database
    await sql`delete from feature_dependencies where child = 'c'`.execute(db)
    await answered(second, answer([], false))
    await sql`insert into feature_dependencies (child, parent, enabled, variants) values ('hand-child', 'p', ${true}, '[]')`.execute(db)
    await answered(second, answer(['p'], true))
    await sql`update features set archived_at = created_at where name = 'p'`.execute(db)
    await answered(second, answer([], false))
  })
})
