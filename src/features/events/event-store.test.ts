/**
 * The event reads are index range scans on both databases, read from the exact statements
 * the store and the cursor issue, on a table with realistic statistics: 20,000 events over
 * 10 projects and 500 flags, interleaved, then ANALYZE. (On PostgreSQL a plain cursor or an
 * equality filter gets a full sort or a filtered walk of the primary key here.)
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CompiledQuery, sql, type Kysely } from 'kysely'
import { onEachDatabase, useTestApp, type TestDatabase } from '../../../test/test-app.ts'
import { declareCursor } from '../../db/cursor.ts'
import type { Database } from '../../db/tables.ts'
import { auditContext, SYSTEM_ACTOR } from './audit.ts'
import { appendEvents, featureEventsQuery, latestEventsQuery, projectEventsQuery } from './event-store.ts'
import type { NewEvent } from './event-types.ts'
import { LATEST_EVENTS_LIMIT } from './event-service.ts'

/** The plan of a statement as one text: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN lines. */
async function planOf(
  db: Kysely<Database>,
  database: TestDatabase,
  query: CompiledQuery,
  { streamed }: { streamed: boolean },
): Promise<string> {
  if (database.name === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]))
    return rows.map((row) => row.detail).join('\n')
  }
  const statement = streamed ? declareCursor(query) : query
  // A cursor is declared inside a transaction; EXPLAIN shows the plan it would get (planned for a fast start).
  return db.transaction().execute(async (trx) => {
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${statement.sql}`, [...statement.parameters]),
    )
    return rows.map((row) => row['QUERY PLAN']).join('\n')
  })
}

onEachDatabase('event reads use the indexes', (database) => {
  test('last 100, per project, per flag: range scans of partial indexes, no sort', { timeout: 60_000 }, async (t) => {
    const pennon = await useTestApp(t, database)
    const { db, reader } = pennon.database
    // One event in four has no flag, one in eight no project either (segments, tokens): not in those indexes.
    const events: NewEvent[] = Array.from({ length: 20_000 }, (_, i) => ({
      type: 'feature-archived',
      ...(i % 4 === 0 ? {} : { featureName: `flag-${i % 500}` }),
      ...(i % 8 === 0 ? {} : { project: `project-${i % 10}` }),
    }))
    await db.transaction().execute((trx) => appendEvents(trx, auditContext(SYSTEM_ACTOR), events))
    await sql`analyze`.execute(db)
    const definitions =
      database.name === 'sqlite'
        ? await sql<{
            definition: string
          }>`select sql as definition from sqlite_master where name in ('events_project_id_idx', 'events_feature_name_id_idx') order by name`.execute(
            db,
          )
        : await sql<{
            definition: string
          }>`select indexdef as definition from pg_indexes where indexname in ('events_project_id_idx', 'events_feature_name_id_idx') and schemaname = current_schema() order by indexname`.execute(
            db,
          )
    assert.equal(definitions.rows.length, 2)
    assert.match(definitions.rows[0]!.definition, /where \(?"?feature_name"? is not null\)?$/i)
    assert.match(definitions.rows[1]!.definition, /where \(?"?project"? is not null\)?$/i)

    const latest = await planOf(db, database, latestEventsQuery(db, LATEST_EVENTS_LIMIT).compile(), { streamed: false })
    const project = await planOf(reader, database, projectEventsQuery(reader, 'project-3').compile(), { streamed: true })
    const feature = await planOf(reader, database, featureEventsQuery(reader, 'flag-42').compile(), { streamed: true })

    if (database.name === 'sqlite') {
      // The rowid table walked backward from its end, stopped by the LIMIT; the total from the counter's key (ids are gap-free).
      assert.match(latest, /^SCAN events$/m)
      assert.match(latest, /SEARCH counters USING INDEX sqlite_autoindex_counters_1 \(name=\?\)/)
      assert.match(project, /SEARCH events USING INDEX events_project_id_idx \(project>\? AND project<\?\)/)
      assert.match(feature, /SEARCH events USING INDEX events_feature_name_id_idx \(feature_name>\? AND feature_name<\?\)/)
      for (const plan of [latest, project, feature]) assert.doesNotMatch(plan, /TEMP B-TREE/, plan)
    } else {
      assert.match(latest, /Index Scan Backward using events_pkey on events/)
      assert.match(project, /Index Scan Backward using events_project_id_idx on events/)
      assert.match(feature, /Index Scan Backward using events_feature_name_id_idx on events/)
      // The total counts the events (ids may have gaps there), as the reference does: the one whole read.
      assert.match(latest, /InitPlan 1[\s\S]*Aggregate/)
      assert.doesNotMatch(latest, /Sort|Bitmap/, latest)
      for (const plan of [project, feature]) assert.doesNotMatch(plan, /Sort|Seq Scan on events|Bitmap/, plan)
    }
  })
})
