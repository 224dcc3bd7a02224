/**
 * The cost of archive validation does not grow with the number of statements: one
 * statement whatever the batch size, and (on SQLite, whose plans are stable) every
 * table reached through an index.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type KyselyPlugin } from 'kysely'
import { onEachDatabase, useTestApp } from '../../../test/test-app.ts'
import { validateArchive, validationQuery } from './archive-validation.ts'
import { createFlags, depend } from '../../../test/helpers/flags.ts'

function countingPlugin(): { plugin: KyselyPlugin; statements: string[] } {
  const statements: string[] = []
  return {
    statements,
    plugin: {
      transformQuery: (args) => {
        statements.push(args.node.kind)
        return args.node
      },
      transformResult: async (args) => args.result,
    },
  }
}

onEachDatabase('archive validation queries', (database) => {
  test('one statement for any batch size, none for an empty batch', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlags(pennon, ['p1', 'c1', 'lone'])
    await depend(pennon, 'c1', 'p1')
    const unknown = Array.from({ length: 50_000 }, (_, i) => `ghost-${i}`)
    for (const [names, expected, statements] of [
      [[], { parentsWithChildFeatures: [], hasDeletedDependencies: false }, 0],
      [['lone'], { parentsWithChildFeatures: [], hasDeletedDependencies: false }, 1],
      [['p1'], { parentsWithChildFeatures: ['p1'], hasDeletedDependencies: true }, 1],
      [['c1', ...unknown], { parentsWithChildFeatures: [], hasDeletedDependencies: true }, 1],
      [[...unknown, 'p1', 'lone'], { parentsWithChildFeatures: ['p1'], hasDeletedDependencies: true }, 1],
    ] as const) {
      const counter = countingPlugin()
      assert.deepEqual(await validateArchive(pennon.database.db.withPlugin(counter.plugin), 'default', names), expected)
      assert.equal(counter.statements.length, statements, `${names.length} names`)
    }
  })

  if (database.name === 'sqlite') {
    test('SQLite reaches features and dependencies through their indexes only', async (t) => {
      const pennon = await useTestApp(t, database)
      const db = pennon.database.db
      const { rows } = await sql<{ detail: string }>`explain query plan ${validationQuery(db, 'default', ['a', 'b'])}`.execute(db)
      const plan = rows.map((row) => row.detail)
      assert.ok(
        plan.some((line) => /^SEARCH f USING .*INDEX/.test(line)),
        plan.join('\n'),
      )
      assert.ok(
        plan.some((line) => /^SEARCH d USING .*INDEX feature_dependencies_parent_idx/.test(line)),
        plan.join('\n'),
      )
      assert.ok(
        plan.some((line) => /^SEARCH d .*USING .*INDEX sqlite_autoindex_feature_dependencies_1 \(child=\?\)/.test(line)),
        plan.join('\n'),
      )
      assert.ok(!plan.some((line) => /^SCAN (f|d|features|feature_dependencies)\b/.test(line)), plan.join('\n'))
    })
  }
})
