/**
 * A filtered page of GET /search/events reads one range of the filter's (x, id) index (projects with
 * types: the ranges of the (project, type, id) index) on
 * both databases (backward, stopped by the LIMIT, when many match), read from the exact statements the store issues, on 20,000 events
 * with realistic statistics (ANALYZE): 10 projects, 500 flags, 40 types, 4 environments, 25 people.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CompiledQuery, sql, type Kysely } from 'kysely'
import { onEachDatabase, useTestApp, type TestDatabase } from '../../../test/test-app.ts'
import type { Database } from '../../db/tables.ts'
import { eventSearchQueries, type EventSearch } from './event-search-store.ts'

async function planOf(db: Kysely<Database>, database: TestDatabase, query: CompiledQuery): Promise<string> {
  if (database.name === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]))
    return rows.map((row) => row.detail).join('\n')
  }
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]))
  return rows.map((row) => row['QUERY PLAN']).join('\n')
}

onEachDatabase('event search uses the indexes', (database) => {
  test('each single-valued filter: a range of its index (walked backward when many match), never every event', {
    timeout: 60_000,
  }, async (t) => {
    const pennon = await useTestApp(t, database)
    const { db } = pennon.database
    const start = Date.parse('2025-01-01T00:00:00.000Z')
    const rows = Array.from({ length: 20_000 }, (_, i) => ({
      id: 1_000_000 + i,
      type: `type-${i % 40}`,
      created_by: `user-${i % 25}`,
      created_by_user_id: 100 + (i % 25),
      created_at: new Date(start + i * 60_000).toISOString(),
      feature_name: i % 4 === 0 ? null : `flag-${i % 500}`,
      project: i % 8 === 0 ? null : `project-${i % 10}`,
      environment: i % 3 === 0 ? null : `env-${i % 4}`,
      group_type: 'transaction',
      group_id: `group-${Math.floor(i / 3)}`,
      json: '{}',
    }))
    for (let i = 0; i < rows.length; i += 1000)
      await db
        .insertInto('events')
        .values(rows.slice(i, i + 1000))
        .execute()
    await sql`analyze`.execute(db)

    const page = { offset: 0, limit: 50 }
    const cases: Array<[string, EventSearch, string]> = [
      ['project', { ...page, projects: ['project-3'] }, 'events_project_id_idx'],
      ['feature', { ...page, featureNames: ['flag-42'] }, 'events_feature_name_id_idx'],
      ['type', { ...page, types: ['type-7'] }, 'events_type_id_idx'],
      ['environment', { ...page, environments: ['env-1'] }, 'events_environment_id_idx'],
      ['createdBy', { ...page, createdByUserIds: [107] }, 'events_created_by_user_id_id_idx'],
      ['groupId', { ...page, groupIds: ['group-77'] }, 'events_group_id_id_idx'],
    ]
    for (const [name, search, index] of cases) {
      const plan = await planOf(db, database, eventSearchQueries(db, search).page.compile())
      if (database.name === 'sqlite') {
        assert.match(plan, new RegExp(`SEARCH events USING (COVERING )?INDEX ${index} \\(`), `${name}:\n${plan}`)
        assert.doesNotMatch(plan, /TEMP B-TREE|SCAN events/, `${name}:\n${plan}`)
      } else {
        // Either the index walked backward, stopped by the LIMIT, or (a value with few events) the
        // index's range read and those few sorted; never every event.
        const page = plan.split('\n').slice(plan.split('\n').findIndex((line) => line.startsWith('  ->')))
        assert.match(page.join('\n'), new RegExp(`(Index Scan Backward using|Bitmap Index Scan on) ${index}`), `${name}:\n${plan}`)
        assert.doesNotMatch(plan, /Seq Scan on events|using events_pkey/, `${name}:\n${plan}`)
      }
    }
    // Projects with types (a single project and a list, or lists with a further filter): the ids
    // from the (project, type, id) index alone, one range per pair, for the count and the page
    // (each range walked backward and merged; with many pairs, the matches' ids sorted); rows only
    // for the page's ids, by key.
    const manyTypes = Array.from({ length: 9 }, (_, i) => `type-${i}`)
    for (const search of [
      { ...page, projects: ['project-3'], types: ['type-3', 'type-13'] },
      { ...page, offset: 1000, projects: ['project-3', 'project-4'], types: ['type-3'], environments: ['env-1'] },
      { ...page, projects: ['project-3', 'project-4'], types: manyTypes },
    ]) {
      const merged = search.projects.length * search.types.length <= 16
      const queries = eventSearchQueries(db, search)
      const pagePlan = await planOf(db, database, queries.page.compile())
      const countPlan = await planOf(db, database, queries.count.compile())
      const name = JSON.stringify(search)
      if (database.name === 'sqlite') {
        assert.match(
          pagePlan,
          /SEARCH by_project_type USING COVERING INDEX events_project_type_id_idx \(project=\? AND type=\?\)/,
          `${name}:\n${pagePlan}`,
        )
        assert.match(pagePlan, /SEARCH events USING INTEGER PRIMARY KEY \(rowid=\?\)/, `${name}:\n${pagePlan}`)
        if (merged) assert.match(pagePlan, /MERGE \(UNION ALL\)/, `${name}:\n${pagePlan}`)
        assert.match(
          countPlan,
          /^SEARCH events USING COVERING INDEX events_project_type_id_idx \(project=\? AND type=\?\)/,
          `${name}:\n${countPlan}`,
        )
        assert.doesNotMatch(pagePlan + countPlan, /SCAN (events|by_)/, `${name}:\n${pagePlan}`)
      } else {
        const ids = pagePlan.slice(pagePlan.indexOf('  ->  Nested Loop'))
        assert.match(
          ids,
          /(Index Only Scan Backward using events_project_type_id_idx on events by_project_type|Bitmap Index Scan on events_project_type_id_idx)/,
          `${name}:\n${pagePlan}`,
        )
        if (merged) assert.match(ids, /Merge Append/, `${name}:\n${pagePlan}`)
        assert.match(
          pagePlan,
          /using events_pkey on events\s+\(cost[^\n]*\n\s+Index Cond: \(id = by_project_type\.id\)/,
          `${name}:\n${pagePlan}`,
        )
        assert.match(countPlan, /on events_project_type_id_idx/, `${name}:\n${countPlan}`)
        assert.doesNotMatch(pagePlan + countPlan, /Seq Scan on events/, `${name}:\n${pagePlan}`)
      }
    }
    // A date range: the page and its count read that range of the created_at index, not every event.
    const dates = eventSearchQueries(db, { ...page, from: '2025-01-10T00:00:00.000Z', before: '2025-01-11T00:00:00.000Z' })
    const count = await planOf(db, database, dates.count.compile())
    const datePage = await planOf(db, database, dates.page.compile())
    assert.doesNotMatch(datePage, /Seq Scan on events|using events_pkey|SCAN events|TEMP B-TREE/, datePage)
    assert.match(datePage, /events_created_at_id_idx/, datePage)
    if (database.name === 'sqlite')
      assert.match(count, /SEARCH events USING (COVERING )?INDEX events_created_at_id_idx \(created_at>\? AND created_at<\?\)/, count)
    else assert.match(count, /events_created_at_id_idx/, count)
  })
})
