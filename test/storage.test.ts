/** Storage guarantees on both databases: idempotent migrations, a change and its events in one transaction. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDb } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { isUniqueViolation, isForeignKeyViolation } from '../src/db/db-errors.ts'
import pg from 'pg'
import { allEvents, call, createTestStorage, eventually, onEachDatabase, useTestApp } from './test-app.ts'

onEachDatabase('storage', (database) => {
  test('migrations applied twice (and on PostgreSQL by two instances at once) are a no-op', async () => {
    const storage = await createTestStorage(database)
    const first = createDb({ ...storage.options, poolSize: 3 })
    const second = createDb({ ...storage.options, poolSize: 3 })
    try {
      // Two instances starting at once is a PostgreSQL deployment; SQLite is one process per file.
      if (database.name === 'postgres') await Promise.all([migrateToLatest(first.db), migrateToLatest(second.db)])
      else await migrateToLatest(first.db)
      await migrateToLatest(first.db)
      await migrateToLatest(second.db)
      const projects = await first.db.selectFrom('projects').select('id').execute()
      assert.deepEqual(projects, [{ id: 'default' }])
      const counters = await first.db.selectFrom('counters').select(['name', 'value']).orderBy('name').execute()
      // PostgreSQL draws event and segment ids from sequences (migration 0015).
      const idCounters = database.name === 'sqlite' ? ['event_id', 'segment_id'] : []
      assert.deepEqual(
        counters.map((c) => [c.name, Number(c.value)]),
        [
          ...idCounters,
          'change_request_change_id',
          'change_request_comment_id',
          'change_request_id',
          'personal_token_id',
          'segment_count',
          'service_account_id',
          'service_account_token_id',
        ]
          .sort()
          .map((name) => [name, 0]),
      )
    } finally {
      await first.close()
      await second.close()
      await storage.drop()
    }
  })

  test('a write whose event cannot be stored leaves nothing behind', async (t) => {
    const pennon = await useTestApp(t, database)
    const before = await allEvents(pennon)
    // Rewind the event ids (SQLite's counter, PostgreSQL's sequence): the next event collides with an existing id and its insert fails.
    if (database.name === 'sqlite')
      await pennon.database.db.updateTable('counters').set({ value: 0 }).where('name', '=', 'event_id').execute()
    else await sql`select setval('event_ids', 1, false)`.execute(pennon.database.db)
    const response = await call(pennon, 'POST', '/api/admin/projects', { id: 'doomed', name: 'Doomed' })
    assert.equal(response.status, 500)
    assert.equal(response.body.name, 'InternalError')
    assert.equal(await pennon.database.db.selectFrom('projects').select('id').where('id', '=', 'doomed').executeTakeFirst(), undefined)
    assert.deepEqual(await allEvents(pennon), before)
    if (database.name === 'sqlite') {
      const counter = await pennon.database.db
        .selectFrom('counters')
        .select('value')
        .where('name', '=', 'event_id')
        .executeTakeFirstOrThrow()
      assert.equal(Number(counter.value), 0, 'the counter update rolled back with the rest')
    }
  })

  test('unique and foreign-key violations are recognized from both drivers', async (t) => {
    const pennon = await useTestApp(t, database)
    const { db } = pennon.database
    const unique = await db
      .insertInto('projects')
      .values({ id: 'default', name: 'x', description: null, created_at: new Date().toISOString() })
      .execute()
      .catch((e) => e)
    assert.ok(isUniqueViolation(unique) && !isForeignKeyViolation(unique))
    const foreign = await db
      .insertInto('features')
      .values({
        name: 'f',
        project: 'ghost',
        description: null,
        type: 'release',
        stale: false,
        impression_data: false,
        created_at: new Date().toISOString(),
        archived_at: null,
      })
      .execute()
      .catch((e) => e)
    assert.ok(isForeignKeyViolation(foreign) && !isUniqueViolation(foreign))
  })

  test('timestamps, booleans and JSON text come back alike on both databases', async (t) => {
    const pennon = await useTestApp(t, database)
    const { db } = pennon.database
    const createdAt = '2026-01-02T03:04:05.678Z'
    await db
      .insertInto('features')
      .values({
        name: 'f',
        project: 'default',
        description: null,
        type: 'release',
        stale: true,
        impression_data: false,
        created_at: createdAt,
        archived_at: null,
      })
      .execute()
    const row = await db.selectFrom('features').selectAll().where('name', '=', 'f').executeTakeFirstOrThrow()
    assert.equal(row.created_at, createdAt)
    assert.equal(Boolean(row.stale), true)
    assert.equal(Boolean(row.impression_data), false)
    assert.equal(row.archived_at, null)
  })

  test('the change watch: reads leave its version alone; a write moves it the moment it is visible', async (t) => {
    const pennon = await useTestApp(t, database)
    const { db } = pennon.database
    const watch = pennon.database.watchChanges()
    await eventually(() => watch.version() !== undefined, 'the watch is ready')
    const initial = watch.version()

    await db.selectFrom('events').selectAll().execute()
    await sql`with named as (select id from projects) select id from named`.execute(db)
    await db.transaction().execute((trx) => trx.selectFrom('projects').selectAll().execute())
    await sleep(100) // room for a (wrong) notification to arrive
    assert.equal(watch.version(), initial)

    // Projects are not a watched table (no notification on PostgreSQL): only the write itself can tell.
    const project = (id: string) => ({ id, name: id, description: null, created_at: new Date().toISOString() })
    await db.transaction().execute((trx) => trx.insertInto('projects').values(project('in-a-transaction')).execute())
    const afterCommit = watch.version()
    assert.notEqual(afterCommit, initial, 'moved by the commit, at once')
    await db.insertInto('projects').values(project('autocommit')).execute()
    assert.notEqual(watch.version(), afterCommit, 'moved by an autocommit write, at once')

    if (database.name === 'postgres') {
      // Another deployment in another schema of the same database writes events: not our change.
      const other = await useTestApp(t, database)
      const settled = watch.version()
      await call(other, 'POST', '/api/admin/projects', { id: 'elsewhere', name: 'Elsewhere' })
      await sleep(200)
      assert.equal(watch.version(), settled)
    }
  })

  if (database.name === 'postgres') {
    test('a lost listening session turns the caches off until it is back, and nothing stale is served meanwhile', async (t) => {
      const storage = await createTestStorage(database)
      const pennon = await useTestApp(t, database, { storage })
      t.after(() => storage.drop()) // after the app's close, registered first
      const watch = pennon.database.watchChanges()
      await eventually(() => watch.version() !== undefined, 'listening')
      assert.equal((await call(pennon, 'GET', '/api/admin/events')).status, 200) // remembered from here

      const admin = new pg.Client({ connectionString: database.url })
      await admin.connect()
      try {
        const { rows } = await admin.query('select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = $1', [
          `pennon change watch ${storage.options.schema}`,
        ])
        assert.deepEqual(rows, [{ done: true }])
        await eventually(() => watch.version() === undefined, 'the loss is noticed')
        // A change nobody hears of: with the caches off it shows at once.
        await admin.query(`insert into ${storage.options.schema}.events (id, type, created_by, created_by_user_id, created_at, group_type, group_id, json)
          values (1000, 'feature-archived', 'x', 1, now(), 'x', 'x', '{"id":1000}')`)
      } finally {
        await admin.end()
      }
      const events = await call(pennon, 'GET', '/api/admin/events')
      assert.equal(events.body.events[0].id, 1000)
      await eventually(() => watch.version() !== undefined, 'listening again')
    })

    test('statements with parameters are prepared once per session, not parsed on every call', async (t) => {
      const pennon = await useTestApp(t, database)
      await pennon.database.db.connection().execute(async (session) => {
        for (const id of ['a', 'b', 'c']) await session.selectFrom('projects').select('id').where('id', '=', id).execute()
        const { rows } = await sql<{
          statement: string
        }>`select statement from pg_prepared_statements where statement like ${'%from "projects"%'}`.execute(session)
        assert.deepEqual(rows, [{ statement: 'select "id" from "projects" where "id" = $1' }])
      })
    })

    test('PostgreSQL sessions run without JIT (it delayed the first rows of long reads)', async (t) => {
      const pennon = await useTestApp(t, database)
      const { rows } = await sql<{ jit: string }>`show jit`.execute(pennon.database.db)
      assert.deepEqual(rows, [{ jit: 'off' }])
    })
  }
})
