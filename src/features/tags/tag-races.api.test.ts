/**
 * Two instances on one database, tag requests racing each other: tagging with a type or a tag
 * that is being deleted, two requests creating the same tag, two changing the same flags' tags. Whichever wins, the tables are
 * what the events say: every flag's tags replay from its feature-tagged / feature-untagged events,
 * every tag from tag-created / tag-deleted, every tag type from its events.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { call, onEachDatabase, useTwoInstances } from '../../../test/test-app.ts'
import { createFlag, projectPath } from '../../../test/helpers/flags.ts'
import { flagTagsPath, TAG_TYPES, TAGS, tagPath } from '../../../test/helpers/tags.ts'

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 8)

/** What the events say the tables hold, against what they hold. */
async function tagViolations(db: Kysely<Database>): Promise<string[]> {
  const events = (await db.selectFrom('events').select('json').orderBy('id').execute()).map((row) => JSON.parse(row.json))
  const flagTags = new Set<string>()
  const tags = new Set<string>()
  const types = new Set<string>(['simple'])
  for (const event of events) {
    const tag = event.data ?? event.preData
    if (event.type === 'feature-tagged') flagTags.add(`${event.featureName} ${tag.type}:${tag.value}`)
    if (event.type === 'feature-untagged') flagTags.delete(`${event.featureName} ${tag.type}:${tag.value}`)
    if (event.type === 'tag-created') tags.add(`${tag.type}:${tag.value}`)
    if (event.type === 'tag-deleted') tags.delete(`${tag.type}:${tag.value}`)
    if (event.type === 'tag-type-created') types.add(event.data.name)
    if (event.type === 'tag-type-deleted') types.delete(event.preData.name)
  }
  const problems: string[] = []
  const compare = (what: string, replayed: Set<string>, stored: string[]) => {
    const sorted = (values: Iterable<string>) => [...values].sort()
    if (JSON.stringify(sorted(replayed)) !== JSON.stringify(sorted(stored)))
      problems.push(`${what}: events say ${JSON.stringify(sorted(replayed))}, tables hold ${JSON.stringify(sorted(stored))}`)
  }
  compare(
    'flag tags',
    flagTags,
    (await db.selectFrom('feature_tags').selectAll().execute()).map((row) => `${row.feature_name} ${row.tag_type}:${row.tag_value}`),
  )
  compare(
    'tags',
    tags,
    (await db.selectFrom('tags').selectAll().execute()).map((row) => `${row.type}:${row.value}`),
  )
  compare(
    'tag types',
    types,
    (await db.selectFrom('tag_types').select('name').execute()).map((row) => row.name),
  )
  return problems
}

onEachDatabase('tag races', (database) => {
  test(`${ROUNDS} rounds: tagging against deleting its type or tag, two requests creating one tag, two changing the same flags`, {
    timeout: 300_000,
  }, async (t) => {
    const { first: a, second: b } = await useTwoInstances(t, database)
    const tally = { typeDeletedFirst: 0, taggedFirst: 0 }
    for (let round = 0; round < ROUNDS; round++) {
      const flags = [`f${round}-1`, `f${round}-2`, `f${round}-3`]
      for (const flag of flags) await createFlag(a, flag)
      const type = `team${round}`
      assert.equal((await call(a, 'POST', TAG_TYPES, { name: type })).status, 201)

      // Tagging two flags with a new tag of a type that is being deleted.
      const [tagged, typeDeleted] = await Promise.all([
        call(a, 'PUT', `${projectPath()}/tags`, {
          features: flags.slice(0, 2),
          tags: { addedTags: [{ type, value: 'x1' }], removedTags: [] },
        }),
        call(b, 'DELETE', `${TAG_TYPES}/${type}`),
      ])
      assert.equal(typeDeleted.status, 200, typeDeleted.text)
      assert.ok(
        tagged.status === 200 || (tagged.status === 400 && tagged.body.details[0].path === '/body/tags/addedTags/0/type'),
        `round ${round}: ${tagged.status} ${tagged.text}`,
      )
      if (tagged.status === 200) tally.taggedFirst++
      else tally.typeDeletedFirst++

      // Tagging a flag with a tag that is being deleted: either order works, nothing is left half done.
      assert.equal((await call(a, 'POST', TAGS, { type: 'simple', value: `doomed-${round}` })).status, 201)
      const [added, tagDeleted] = await Promise.all([
        call(a, 'POST', flagTagsPath(flags[2]!), { type: 'simple', value: `doomed-${round}` }),
        call(b, 'DELETE', tagPath('simple', `doomed-${round}`)),
      ])
      assert.equal(added.status, 201, added.text)
      assert.ok(tagDeleted.status === 200 || tagDeleted.status === 404, tagDeleted.text)

      // Two requests creating one tag, on two flags: one tag-created event, both flags tagged.
      const same = { type: 'simple', value: `same-${round}` }
      const both = await Promise.all([call(a, 'POST', flagTagsPath(flags[0]!), same), call(b, 'POST', flagTagsPath(flags[1]!), same)])
      assert.deepEqual(
        both.map((response) => response.status),
        [201, 201],
      )
      const created = await a.database.db
        .selectFrom('events')
        .select('id')
        .where('type', '=', 'tag-created')
        .where('json', 'like', `%"value":"same-${round}"%`)
        .execute()
      assert.equal(created.length, 1, `round ${round}: tag-created events`)

      // Two requests changing the same flags' tags in opposite orders: they queue, neither fails.
      const tagA = { type: 'simple', value: `a-${round}` }
      const tagB = { type: 'simple', value: `b-${round}` }
      const opposite = await Promise.all([
        call(a, 'PUT', `${projectPath()}/tags`, { features: [flags[0], flags[1]], tags: { addedTags: [tagA, tagB], removedTags: [] } }),
        call(b, 'PUT', `${projectPath()}/tags`, { features: [flags[1], flags[0]], tags: { addedTags: [tagB, tagA], removedTags: [] } }),
        call(a, 'PUT', flagTagsPath(flags[2]!), { addedTags: [tagB], removedTags: [tagA] }),
        call(b, 'PUT', flagTagsPath(flags[2]!), { addedTags: [tagA], removedTags: [tagB] }),
      ])
      assert.deepEqual(
        opposite.map((response) => response.status),
        [200, 200, 200, 200],
        opposite.map((response) => response.text).join('\n'),
      )
    }
    assert.deepEqual(await tagViolations(a.database.db), [])
    t.diagnostic(`[${database.name}] the tagging won ${tally.taggedFirst} times, the type's deletion ${tally.typeDeletedFirst} times`)
  })
})
