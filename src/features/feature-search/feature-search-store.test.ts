/**
 * The first page of GET /search/features in its default order (oldest first, then by name) walks
 * features_active_created_at_name_idx (migration 0021), stopped by the LIMIT, rather than sorting
 * every flag: read from the exact statement the store issues, on 10,000 flags with statistics.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CompiledQuery, sql, type Kysely } from 'kysely'
import { onEachDatabase, useTestApp, type TestDatabase } from '../../../test/test-app.ts'
import type { Database } from '../../db/tables.ts'
import { featureSearchQueries, type FeatureSearch } from './feature-search-store.ts'

async function planOf(db: Kysely<Database>, database: TestDatabase, query: CompiledQuery): Promise<string> {
  const explain = database.name === 'sqlite' ? 'explain query plan' : 'explain'
  const { rows } = await db.executeQuery<Record<string, string>>(CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]))
  return rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n')
}

onEachDatabase('flag search uses the index', (database) => {
  test('the default page walks the (created_at, name) index of active flags; filters keep to it', { timeout: 60_000 }, async (t) => {
    const pennon = await useTestApp(t, database)
    const { db } = pennon.database
    const start = Date.parse('2025-01-01T00:00:00.000Z')
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      name: `flag-${i}`,
      project: 'default',
      description: `Flag number ${i}`,
      type: i % 4 === 0 ? 'experiment' : 'release',
      stale: i % 7 === 0,
      impression_data: false,
      created_at: new Date(start + i * 60_000).toISOString(),
      archived_at: i % 50 === 0 ? new Date(start).toISOString() : null,
    }))
    for (let i = 0; i < rows.length; i += 1000)
      await db
        .insertInto('features')
        .values(rows.slice(i, i + 1000))
        .execute()
    await sql`analyze`.execute(db)

    const page: FeatureSearch = { archived: false, sortBy: 'createdAt', sortOrder: 'asc', offset: 0, limit: 50 }
    for (const search of [page, { ...page, sortOrder: 'desc' as const }, { ...page, types: { exclude: false, values: ['release'] } }]) {
      const plan = await planOf(db, database, featureSearchQueries(db, search).page.compile())
      assert.match(plan, /features_active_created_at_name_idx/, plan)
      if (database.name === 'sqlite') assert.doesNotMatch(plan, /SCAN features\b(?! USING)|USE TEMP B-TREE FOR ORDER BY/, plan)
      else assert.doesNotMatch(plan, /Seq Scan on features|^\s*->\s*Sort\b/m, plan)
    }
  })
})
