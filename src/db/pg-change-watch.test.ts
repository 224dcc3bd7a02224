/**
 * PostgreSQL: Pennon's writes notify other instances after their commit, from the change watch's
 * session, never inside the writing transaction (whose commit would then take the notification
 * queue's lock until its flush); anyone else's writes still notify from the change triggers. A
 * commit whose notification never comes (its instance died first) is seen by the other instances'
 * poll of the newest committed change. (SQLite has no notifications: its data_version is read.)
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import pg from 'pg'
import { createTestStorage, eventually, onEachDatabase, type TestStorage } from '../../test/test-app.ts'
import { mustTellOthers, writeScope, type LocalChangeWatch } from './change-watch.ts'
import { createDb, type DbOptions } from './database.ts'
import { migrateToLatest } from './migrate.ts'
import { CHANGE_POLL_MS } from './pg-change-watch.ts'

type After = { after(fn: () => Promise<void>): void }

/** An instance's database on `storage`, migrated, once its watch listens. */
async function openInstance(t: After, storage: TestStorage, options: Pick<DbOptions, 'notifyOthers'> = {}) {
  const database = createDb({ ...storage.options, ...options })
  t.after(() => database.close())
  await migrateToLatest(database.db)
  const watch = database.watchChanges() as LocalChangeWatch
  await eventually(() => watch.version() !== undefined, 'the watch listens')
  return { db: database.db, watch }
}

/**
 * A session of `storage`'s schema that is not Pennon's (an operator's), and the notifications it
 * hears about that schema. The channel is the database's: other test files' schemas notify on it too.
 */
async function operator(t: After, storage: TestStorage) {
  const schema = storage.options.schema!
  const client = new pg.Client({ connectionString: storage.options.databaseUrl, options: `-c search_path=${schema}` })
  await client.connect()
  t.after(() => client.end())
  const heard: { pid: number; payload: string | undefined }[] = []
  client.on('notification', (message) => {
    const { payload } = message
    if (payload === schema || payload?.startsWith(`${schema} `)) heard.push({ pid: message.processId, payload })
  })
  await client.query('listen pennon_changes')
  return { client, heard }
}

const tokenRow = (name: string) => ({
  secret_hash: name,
  token_name: name,
  type: 'admin',
  environment: '*',
  projects: '["*"]',
  expires_at: null,
  created_at: new Date().toISOString(),
})
const insertToken = (name: string) =>
  `insert into api_tokens (secret_hash, token_name, type, environment, projects, created_at) values ('${name}', '${name}', 'admin', '*', '["*"]', now())`

onEachDatabase('change watch after the commit', (database) => {
  if (database.name !== 'postgres') return

  test('every table with a change trigger is one whose writes Pennon tells the other instances of', async (t) => {
    const storage = await createTestStorage(database)
    t.after(() => storage.drop())
    const { db } = await openInstance(t, storage)
    const { rows } = await sql<{ table: string }>`select distinct c.relname as table from pg_trigger t
      join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
      where p.proname = 'pennon_notify_change' and c.relnamespace = current_schema()::regnamespace order by 1`.execute(db)
    const tables = rows.map((row) => row.table)
    assert.ok(tables.includes('events') && tables.includes('user_sessions'), tables.join())
    // A new session notifies no one (migration 0014): its trigger is on updates and deletes only.
    const verbs = (table: string) => (table === 'user_sessions' ? ['update', 'delete from'] : ['insert into', 'update', 'delete from'])
    const untold = tables.filter((table) =>
      verbs(table).some((verb) => !mustTellOthers(writeScope(`${verb} "${table}" x where "id" = $1`))),
    )
    assert.deepEqual(untold, [])
  })

  test("Pennon's write is told after its commit by the watch's session; an operator's from the trigger, by the writer", async (t) => {
    const storage = await createTestStorage(database)
    t.after(() => storage.drop())
    const { db } = await openInstance(t, storage)
    const { client, heard } = await operator(t, storage)
    const schema = storage.options.schema

    let writer = 0
    await db.transaction().execute(async (trx) => {
      writer = (await trx.selectNoFrom((eb) => eb.fn<number>('pg_backend_pid').as('pid')).executeTakeFirstOrThrow()).pid
      await trx.insertInto('api_tokens').values(tokenRow('t1')).execute()
    })
    await eventually(() => heard.length > 0, "Pennon's write heard")
    const watcher = await client.query<{ name: string }>('select application_name as name from pg_stat_activity where pid = $1', [
      heard[0]!.pid,
    ])
    assert.deepEqual(
      { payload: heard[0]!.payload, from: watcher.rows[0]?.name },
      { payload: `${schema} tokens,flags,sessions`, from: `pennon change watch ${schema}` },
    )
    assert.ok(
      heard.every((notification) => notification.pid !== writer),
      'nothing from the writing session',
    )

    heard.length = 0
    await client.query(insertToken('t2'))
    await eventually(() => heard.length > 0, "the operator's write heard")
    const own = await client.query<{ pid: number }>('select pg_backend_pid() as pid')
    assert.deepEqual(heard[0], { pid: own.rows[0]!.pid, payload: schema })
  })

  test('a commit no one is told of moves the other instances within a poll: a token table written, an event, events deleted', async (t) => {
    const storage = await createTestStorage(database)
    t.after(() => storage.drop())
    const silent = await openInstance(t, storage, { notifyOthers: false })
    const other = await openInstance(t, storage)
    const { heard } = await operator(t, storage)

    const moves = async (what: string, write: () => Promise<unknown>) => {
      const before = other.watch.version('tokens')
      await write()
      await eventually(() => other.watch.version('tokens') !== before, what, 3 * CHANGE_POLL_MS)
    }
    // A token table: a change mark (migration 0027). An event: the event itself.
    await moves('a token written', () => silent.db.insertInto('api_tokens').values(tokenRow('t3')).execute())
    await moves('an event written', () =>
      silent.db
        .insertInto('events')
        .values({
          id: 1_000,
          type: 'test',
          created_by: 'test',
          created_by_user_id: 1,
          created_at: new Date().toISOString(),
          feature_name: null,
          project: null,
          environment: null,
          group_type: '',
          group_id: '',
          json: '{}',
        })
        .execute(),
    )
    await moves('events deleted', () => silent.db.deleteFrom('events').where('id', '=', 1_000).execute())
    assert.deepEqual(heard, [], 'no notification at all')
  })

  test("another instance's change moves what it names when heard, every version once more at the next poll, and then nothing", async (t) => {
    const storage = await createTestStorage(database)
    t.after(() => storage.drop())
    const watching = await openInstance(t, storage)
    const writing = await openInstance(t, storage)
    // Past the first polls, which may find the other's migration.
    await sleep(2.5 * CHANGE_POLL_MS)
    const versions = () => ({
      any: watching.watch.version('any'),
      flags: watching.watch.version('flags'),
      tokens: watching.watch.version('tokens'),
    })
    const before = versions()
    await sql`insert into features (name, project, description, type, stale, impression_data, created_at)
      values ('f4', 'default', null, 'release', false, false, now())`.execute(writing.db)
    await eventually(() => versions().flags !== before.flags, 'the change heard')
    const heard = versions()
    // Heard: flags and any moved, tokens did not (the notification named what the commit changed)…
    assert.deepEqual(
      { any: heard.any !== before.any, flags: heard.flags !== before.flags, tokens: heard.tokens !== before.tokens },
      { any: true, flags: true, tokens: false },
    )
    await sleep(1.5 * CHANGE_POLL_MS)
    // … unless the poll ran first (it finds the commit and moves everything): by now it has.
    const polled = versions()
    assert.equal(polled.tokens, before.tokens === heard.tokens ? before.tokens! + 1 : heard.tokens)
    await sleep(2.5 * CHANGE_POLL_MS)
    assert.deepEqual(versions(), polled, 'the polls after it find nothing new')
  })
})
