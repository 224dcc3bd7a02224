/**
 * Which writes end remembered principals: only those that may touch a token table. Every other
 * write still moves the version that event answers and archive validations are kept at.
 */
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { test } from 'node:test'
import { createTestStorage, eventually, onEachDatabase, type TestDatabase, type TestStorage } from '../../test/test-app.ts'
import { mayWriteTokens, SCOPES, writeScope, type LocalChangeWatch, type WriteScope } from './change-watch.ts'

/** A write scope naming these. */
const scope = (...named: (typeof SCOPES)[number][]): WriteScope =>
  Object.fromEntries(SCOPES.map((name) => [name, named.includes(name)])) as unknown as WriteScope
import { createDb, type Db } from './database.ts'
import { migrateToLatest } from './migrate.ts'

test('a statement may write a token table when it names one, or when it is not a plain insert, update or delete', () => {
  const cases: Array<[string, boolean]> = [
    ['insert into "segments" ("id", "name") values (?, ?)', false],
    ['update "counters" set "value" = value + 1 where "name" in (?, ?, ?) returning "name", "value"', false],
    ['delete from "feature_dependencies" where "child" = ?', false],
    ['with item as (select 1) insert into segments (id) select 1 from item', false],
    ['delete from "api_tokens" where "token_name" = ?', true],
    ['insert into "service_accounts" ("id") values (?)', true],
    ['update service_account_tokens set expires_at = $1', true],
    ['with gone as (delete from "api_tokens" returning 1) select count(*) from gone', true],
    // People: a user's role and email make their principal, their personal tokens too; sign-in
    // bookkeeping and sessions do not (a session's end is a scope of its own).
    ['update "users" set "name" = ?, "email" = ?, "root_role" = ? where "id" = ?', true],
    ['delete from "personal_access_tokens" where "id" = ? and "user_id" = ? returning *', true],
    [
      'insert into "user_activity" ("user_id", "login_attempts", "seen_at") values (?, ?, ?) on conflict ("user_id") do update set "login_attempts" = "user_activity"."login_attempts" + ?',
      false,
    ],
    ['update "user_sessions" set "seen_at" = ? where "secret_hash" = ?', false],
    ['drop table "segments"', true],
    ['pragma foreign_keys = off', true],
  ]
  assert.deepEqual(
    cases.map(([sql]) => [sql, mayWriteTokens(sql)]),
    cases,
  )
})

test('a statement may end sessions when it writes user_sessions or may change a principal; a new session or the inactivity clock moved forward does not', () => {
  const cases: Array<[string, boolean]> = [
    ['delete from "user_sessions" where "secret_hash" = ?', true],
    ['delete from "user_sessions" where "user_id" = ?', true],
    ['delete from "users" where "id" = ?', true],
    ['update "users" set "root_role" = ? where "id" = ?', true],
    ['update "user_sessions" set "seen_at" = ? where "secret_hash" = ?', false],
    ['insert into "user_sessions" ("secret_hash", "user_id") values (?, ?)', false],
    ['insert into "user_activity" ("user_id", "login_attempts", "seen_at") values (?, ?, ?)', false],
    ['update "feature_environments" set "enabled" = ?', false],
    ['update "user_sessions" set "seen_at" = $1 where "secret_hash" = $2', false],
    ['update user_sessions set seen_at = ?', true],
    ['update "user_sessions" set "expires_at" = ? where "secret_hash" = ?', true],
    ['truncate "user_sessions"', true],
  ]
  assert.deepEqual(
    cases.map(([sql]) => [sql, writeScope(sql).sessions]),
    cases,
  )
})

test('a statement may change served flags when it names a flag table, or when it is not a plain insert, update or delete', () => {
  const cases: Array<[string, boolean]> = [
    ['insert into "events" ("id", "type", "feature_name", "project", "environment") values (?, ?, ?, ?, ?)', false],
    ['update "counters" set "value" = value + 1 where "name" = ?', false],
    ['delete from "api_tokens" where "token_name" = ?', false],
    ['update "feature_environments" set "enabled" = ? where "feature" = ?', true],
    ['insert into "feature_strategies" ("id") values (?)', true],
    ['delete from "features" where "name" in (select value from json_each(?))', true],
    ['update "segments" set "name" = ?', true],
    ['insert into "project_environments" ("project", "environment") values (?, ?)', true],
    // A flag's tags (the client API's tag filter), and what cascades into them.
    ['insert into "feature_tags" ("feature_name", "tag_type", "tag_value") values (?, ?, ?)', true],
    ['delete from "tag_types" where "name" = ?', true],
    ['delete from "tags" where "type" = ? and "value" = ?', true],
    ['drop table "metrics"', true],
  ]
  assert.deepEqual(
    cases.map(([sql]) => [sql, writeScope(sql).flags]),
    cases,
  )
})

test('context fields, settings and integrations are scopes of their own; the event log, a scope of all events', () => {
  const cases: Array<[string, WriteScope]> = [
    ['insert into "context_fields" ("name", "legal_values") values (?, ?)', scope('contextFields')],
    ['update "settings" set "content" = ? where "name" = ?', scope('settings')],
    ['delete from "change_request_settings" where "project" = ?', scope('settings')],
    ['update "addons" set "cursor" = ?, "leased_until" = ? where "id" = ?', scope('integrations')],
    ['insert into "integration_events" ("addon_id", "state") values (?, ?)', scope()],
    ['insert into "events" ("id", "type") values (?, ?)', scope('events')],
    ['delete from "oidc_sessions" where "sid" = ?', scope()],
  ]
  assert.deepEqual(
    cases.map(([sql]) => [sql, writeScope(sql)]),
    cases,
  )
})

/** A migrated database and its watch, once the watch can tell (PostgreSQL: once its LISTEN is in place). */
async function openWatched(t: { after(fn: () => Promise<void>): void }, storage: TestStorage) {
  const database: Db = createDb(storage.options)
  t.after(() => database.close())
  await migrateToLatest(database.db)
  // A file or a schema, never :memory:: the watch is the one writes are announced to.
  const watch = database.watchChanges() as LocalChangeWatch
  await eventually(() => watch.version() !== undefined, 'the watch can tell')
  const versions = () => ({
    any: watch.version(),
    tokens: watch.version('tokens'),
    flags: watch.version('flags'),
    sessions: watch.version('sessions'),
    events: watch.version('events'),
    contextFields: watch.version('contextFields'),
    settings: watch.version('settings'),
    integrations: watch.version('integrations'),
  })
  return { db: database.db, watch, versions }
}

async function useStorage(t: { after(fn: () => Promise<void>): void }, database: TestDatabase): Promise<TestStorage> {
  const storage = await createTestStorage(database)
  t.after(() => storage.drop())
  return storage
}

const project = (id: string) => ({ id, name: id, description: null, created_at: new Date().toISOString() })
const token = (name: string) => ({
  secret_hash: name,
  token_name: name,
  type: 'admin',
  environment: '*',
  projects: '["*"]',
  expires_at: null,
  created_at: new Date().toISOString(),
})

onEachDatabase('change watch', (database) => {
  test('this instance announces each write once it is visible, and whether it may have touched a token or a flag table', async (t) => {
    const { db, watch } = await openWatched(t, await useStorage(t, database))
    const announced: WriteScope[] = []
    const wrote = watch.wrote
    watch.wrote = (scope) => {
      announced.push(scope)
      wrote(scope)
    }

    await db.insertInto('projects').values(project('p1')).execute()
    await db.selectFrom('api_tokens').selectAll().execute()
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('projects').values(project('p2')).execute()
      await trx.insertInto('api_tokens').values(token('t1')).execute()
      assert.deepEqual(announced, [scope('flags')], 'nothing while the transaction is open')
    })
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('projects').selectAll().execute()
    })
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('api_tokens').values(token('t2')).execute()
        throw new Error('rolled back')
      })
      .catch(() => {})
    await db.deleteFrom('api_tokens').where('token_name', '=', 't1').execute()
    await db.insertInto('counters').values({ name: 'scratch', value: 0 }).execute()
    assert.deepEqual(announced, [scope('flags'), scope('tokens', 'flags', 'sessions'), scope('tokens', 'sessions'), scope()])
    if (database.name !== 'postgres') return
    // A setting of the transaction writes no table (the integrations' worker sets one on every commit).
    await db.transaction().execute(async (trx) => {
      await sql`set local synchronous_commit = off`.execute(trx)
      await trx.updateTable('counters').set({ value: 1 }).where('name', '=', 'scratch').execute()
    })
    assert.deepEqual(announced.at(-1), scope())
  })

  test('a write moves the version of what it may touch (tokens, flags, sessions) and the first; any other, only the first', async (t) => {
    const { watch, versions } = await openWatched(t, await useStorage(t, database))
    const before = versions()
    watch.wrote(scope())
    const afterOther = versions()
    assert.notEqual(afterOther.any, before.any)
    assert.deepEqual([afterOther.tokens, afterOther.flags, afterOther.sessions], [before.tokens, before.flags, before.sessions])
    watch.wrote(scope('tokens'))
    const afterTokens = versions()
    assert.notEqual(afterTokens.any, afterOther.any)
    assert.notEqual(afterTokens.tokens, afterOther.tokens)
    assert.notEqual(afterTokens.sessions, afterOther.sessions, 'a principal changing ends remembered sessions too')
    assert.equal(afterTokens.flags, afterOther.flags)
    watch.wrote(scope('flags'))
    const afterFlags = versions()
    assert.equal(afterFlags.tokens, afterTokens.tokens)
    assert.equal(afterFlags.sessions, afterTokens.sessions)
    assert.notEqual(afterFlags.flags, afterTokens.flags)
    watch.wrote(scope('sessions'))
    const afterSessions = versions()
    assert.deepEqual([afterSessions.tokens, afterSessions.flags], [afterFlags.tokens, afterFlags.flags])
    assert.notEqual(afterSessions.sessions, afterFlags.sessions)
    for (const name of ['events', 'contextFields', 'settings', 'integrations'] as const) {
      const beforeIt = versions()
      watch.wrote(scope(name))
      const afterIt = versions()
      const moved = (Object.keys(afterIt) as (keyof typeof afterIt)[]).filter((key) => afterIt[key] !== beforeIt[key])
      assert.deepEqual(moved, ['any', name])
    }
  })

  test("another instance's change to a token table moves the tokens version", async (t) => {
    const storage = await useStorage(t, database)
    const { versions } = await openWatched(t, storage)
    const other = await openWatched(t, storage)
    const before = versions()
    await other.db.insertInto('api_tokens').values(token('t3')).execute()
    await eventually(() => versions().tokens !== before.tokens, 'the tokens version moved')
  })
})
