/**
 * Streamed reads against a real listening server: incremental delivery, backpressure
 * (a paused client keeps the query open), writes beside an open stream, clients that
 * leave, and a database failure mid-stream.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import pg from 'pg'
import { call, eventually, onEachDatabase, sql, useTestApp, type TestApp, type TestDatabase } from '../../../test/test-app.ts'
import { CHANGE_POLL_MS } from '../../db/pg-change-watch.ts'
import { auditContext, SYSTEM_ACTOR } from './audit.ts'
import { appendEvents } from './event-store.ts'
import type { NewEvent } from './event-types.ts'

const LARGE = 20_000
const TIMEOUT = { timeout: 120_000 }

/** LARGE events of about 600 bytes each (12 MB of JSON) in one project, in one transaction. */
async function seedProject(pennon: TestApp, project: string, count = LARGE): Promise<void> {
  const description = 'x'.repeat(300)
  const events: NewEvent[] = Array.from({ length: count }, (_, i) => ({
    type: 'feature-created',
    featureName: `flag-${i}`,
    project,
    data: {
      name: `flag-${i}`,
      description,
      type: 'release',
      project,
      stale: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      impressionData: false,
      archived: false,
    },
  }))
  await pennon.database.db.transaction().execute((trx) => appendEvents(trx, auditContext(SYSTEM_ACTOR), events))
}

async function expectedBody(pennon: TestApp, project: string): Promise<string> {
  const rows = await pennon.database.db.selectFrom('events').select('json').where('project', '=', project).orderBy('id', 'desc').execute()
  return `{"version":1,"events":[${rows.map((row) => row.json).join(',')}],"totalEvents":${rows.length}}`
}

interface OpenStream {
  request: http.ClientRequest
  response: http.IncomingMessage
  chunks: Buffer[]
}

// Requests a test leaves open (it failed half-way) would keep the app from closing: cut them first.
const openRequests = new Set<http.ClientRequest>()

/** GETs from the listening server; resolves when the first body bytes are in, with the response paused. */
function openStream(url: string, token: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: token }, agent: false }, (response) => {
      response.on('error', () => {}) // a cut connection is observed through `complete` below
      response.once('data', (chunk: Buffer) => {
        response.pause()
        resolve({ request, response, chunks: [chunk] })
      })
    })
    openRequests.add(request)
    request.on('close', () => openRequests.delete(request))
    request.on('error', reject)
  })
}

/** Reads the rest of an open stream: its whole text, and whether it ended properly. */
function readRest(stream: OpenStream): Promise<{ text: string; complete: boolean; chunks: number }> {
  return new Promise((resolve) => {
    stream.response.on('data', (chunk: Buffer) => stream.chunks.push(chunk))
    stream.response.on('close', () =>
      resolve({ text: Buffer.concat(stream.chunks).toString('utf8'), complete: stream.response.complete, chunks: stream.chunks.length }),
    )
    stream.response.resume()
  })
}

function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  const timeout = sleep(ms, undefined, { ref: false }).then(() => Promise.reject(new Error(`${what} took more than ${ms} ms`)))
  return Promise.race([promise, timeout])
}

/**
 * Whether some read is still open, seen from the database itself. SQLite: after a write
 * (a bump of user_version), a passive checkpoint cannot copy that write's frames while a
 * reader holds an older snapshot. PostgreSQL: a lock held on this schema's events table
 * by another session, looked at from a connection of its own.
 */
async function readerOpen(pennon: TestApp, database: TestDatabase, schema: string): Promise<boolean> {
  if (database.name === 'sqlite') {
    const { db } = pennon.database
    const version = (await sql<{ user_version: number }>`pragma user_version`.execute(db)).rows[0]!.user_version
    await sql.raw(`pragma user_version = ${version + 1}`).execute(db)
    for (;;) {
      const { rows } = await sql<{ busy: number; log: number; checkpointed: number }>`pragma wal_checkpoint(PASSIVE)`.execute(db)
      // Busy: the checkpoint after the seeding's long transaction runs on its worker thread (sqlite-checkpoint.ts).
      if (rows[0]!.busy === 0) return rows[0]!.checkpointed < rows[0]!.log
      await sleep(10)
    }
  }
  return withPgClient(database, async (client) => (await client.query(pgLockHolders, [schema])).rows.length > 0)
}

const pgLockHolders = `select l.pid from pg_locks l join pg_class c on c.oid = l.relation join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = $1 and c.relname = 'events' and l.mode = 'AccessShareLock' and l.granted and l.pid <> pg_backend_pid()`

async function withPgClient<T>(database: TestDatabase, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

async function start(t: Parameters<typeof useTestApp>[0], database: TestDatabase) {
  // Registered before the app's own close, so it runs first.
  t.after(async () => {
    for (const request of openRequests) request.destroy()
  })
  const pennon = await useTestApp(t, database)
  await seedProject(pennon, 'big')
  const base = await pennon.app.listen({ host: '127.0.0.1', port: 0 })
  const schema =
    database.name === 'postgres'
      ? String((await sql<{ s: string }>`select current_schema() as s`.execute(pennon.database.db)).rows[0]!.s)
      : ''
  return { pennon, url: `${base}/api/admin/events?project=big`, schema }
}

onEachDatabase('events streaming', (database) => {
  test('a large project is streamed: chunked, first bytes before the end, the body equal to the stored events', TIMEOUT, async (t) => {
    const { pennon, url } = await start(t, database)
    const expected = await expectedBody(pennon, 'big')

    const stream = await within(5_000, openStream(url, pennon.adminToken), 'first bytes')
    assert.equal(stream.response.statusCode, 200)
    assert.equal(stream.response.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(stream.response.headers['transfer-encoding'], 'chunked')
    assert.equal(stream.response.headers['content-length'], undefined)
    assert.ok(stream.chunks[0]!.length < expected.length / 10, 'the first chunk is a small part of the body')

    const rest = await within(30_000, readRest(stream), 'the whole body')
    assert.ok(rest.complete)
    assert.ok(rest.chunks > 10, `read incrementally, in ${rest.chunks} chunks`)
    assert.equal(rest.text.length, expected.length)
    assert.equal(rest.text, expected)
    assert.equal(JSON.parse(rest.text).totalEvents, LARGE + 0)
  })

  test('writes complete while a slow stream is open, and the stream keeps its snapshot', TIMEOUT, async (t) => {
    const { pennon, url, schema } = await start(t, database)
    const expected = await expectedBody(pennon, 'big')
    const stream = await within(5_000, openStream(url, pennon.adminToken), 'first bytes')

    // The client reads nothing more: backpressure holds the query mid-way. Writes go on beside it.
    const created = await within(
      3_000,
      call(pennon, 'POST', '/api/admin/projects', { id: 'during', name: 'During' }),
      'a write during the stream',
    )
    assert.equal(created.status, 201)
    await within(
      3_000,
      pennon.database.db
        .transaction()
        .execute((trx) =>
          appendEvents(trx, auditContext(SYSTEM_ACTOR), [{ type: 'feature-archived', featureName: 'late', project: 'big' }]),
        ),
      'an event for the streamed project',
    )
    assert.equal(await readerOpen(pennon, database, schema), true, 'the stream is still reading when the writes commit')

    const rest = await within(30_000, readRest(stream), 'the rest of the body')
    assert.ok(rest.complete)
    assert.equal(rest.text, expected, 'one snapshot: the event written meanwhile is not in this answer')

    const after = await call(pennon, 'GET', '/api/admin/events?project=big')
    assert.equal(after.body.totalEvents, LARGE + 1)
    assert.equal(after.body.events[0].featureName, 'late')
    await eventually(async () => !(await readerOpen(pennon, database, schema)), 'the snapshot is released')
  })

  test('clients that leave mid-stream release the cursor and the connection', TIMEOUT, async (t) => {
    const { pennon, url, schema } = await start(t, database)

    // More aborted streams than connections in the pool (4): a leak would block the later ones.
    for (let i = 0; i < 6; i++) {
      const stream = await within(5_000, openStream(url, pennon.adminToken), `aborted stream ${i + 1}`)
      stream.request.destroy()
    }
    // Four streams hold every connection; a fifth request waits for one and leaves while waiting.
    const held = await Promise.all(Array.from({ length: 4 }, () => within(5_000, openStream(url, pennon.adminToken), 'held stream')))
    const waiting = http.get(url, { headers: { authorization: pennon.adminToken }, agent: false })
    waiting.on('error', () => {})
    await sleep(200)
    waiting.destroy()
    for (const stream of held) stream.request.destroy()

    assert.equal((await within(3_000, call(pennon, 'POST', '/api/admin/projects', { id: 'after', name: 'After' }), 'a write')).status, 201)
    await eventually(async () => !(await readerOpen(pennon, database, schema)), 'every aborted stream is closed')
    for (let i = 0; i < 5; i++) {
      const stream = await within(5_000, openStream(url, pennon.adminToken), 'a later stream')
      const rest = await within(30_000, readRest(stream), 'a later body')
      assert.ok(rest.complete)
      assert.equal(JSON.parse(rest.text).totalEvents, LARGE)
    }
  })

  test(
    'a long answer that fits in memory is read once for clients asking together, then sent from memory until a write',
    TIMEOUT,
    async (t) => {
      const pennon = await useTestApp(t, database)
      // The watch the app follows (one per Db). A write of this process moves its version at commit;
      // on PostgreSQL again when the watch hears the write's notification, and once more at the
      // poll's next look, which finds the commit too (within CHANGE_POLL_MS). A write is settled
      // once the version has moved and then stayed still for longer than a poll interval: the reads
      // below then share one version, as reads long after a write do.
      const changes = pennon.database.watchChanges()
      const settledWrite = async (write: () => Promise<unknown>) => {
        await eventually(async () => changes.version() !== undefined, 'the change watch is ready')
        const before = changes.version()!
        await write()
        let last = changes.version()!
        let stillSince = performance.now()
        await eventually(
          async () => {
            const now = changes.version()!
            if (now !== last) [last, stillSince] = [now, performance.now()]
            return last !== before && performance.now() - stillSince > CHANGE_POLL_MS + 250
          },
          'the write is seen, and nothing moves the version after it',
          5 * CHANGE_POLL_MS,
        )
      }
      // About 1.2 MB: streamed rather than read before sending, and short enough to be remembered.
      await settledWrite(() => seedProject(pennon, 'long', 2_000))
      const url = '/api/admin/events?project=long'
      const streamed = (responses: { headers: Record<string, unknown> }[]) =>
        responses.filter((r) => r.headers['content-length'] === undefined).length

      const together = await Promise.all(Array.from({ length: 10 }, () => call(pennon, 'GET', url)))
      const expected = await expectedBody(pennon, 'long')
      for (const response of together) {
        assert.equal(response.status, 200)
        assert.equal(response.text, expected)
      }
      assert.equal(streamed(together), 1, 'one read streamed from the database; the nine others were sent its bytes')

      const again = await call(pennon, 'GET', url)
      assert.equal(again.headers['content-length'], String(Buffer.byteLength(expected)))
      assert.equal(again.text, expected)

      await settledWrite(() =>
        pennon.database.db
          .transaction()
          .execute((trx) =>
            appendEvents(trx, auditContext(SYSTEM_ACTOR), [{ type: 'feature-archived', featureName: 'late', project: 'long' }]),
          ),
      )
      const after = await Promise.all(Array.from({ length: 3 }, () => call(pennon, 'GET', url)))
      const expectedAfter = await expectedBody(pennon, 'long')
      for (const response of after) assert.equal(response.text, expectedAfter)
      assert.equal(JSON.parse(expectedAfter).totalEvents, 2_001)
      assert.equal(streamed(after), 1, 'read again once after the write')
    },
  )

  if (database.name === 'postgres') {
    test('a database failure mid-stream cuts that response and nothing else', TIMEOUT, async (t) => {
      const { pennon, url, schema } = await start(t, database)
      const stream = await within(5_000, openStream(url, pennon.adminToken), 'first bytes')

      // The session serving the stream dies (a restart, an operator's pg_terminate_backend).
      const killed = await withPgClient(database, async (client) => {
        const { rows } = await client.query(pgLockHolders, [schema])
        for (const { pid } of rows) await client.query('select pg_terminate_backend($1)', [pid])
        return rows.length
      })
      assert.equal(killed, 1)

      const rest = await within(30_000, readRest(stream), 'the cut body')
      assert.equal(rest.complete, false, 'the client sees a cut response, not a short valid one')
      assert.throws(() => JSON.parse(rest.text))
      assert.ok(
        pennon.logs.some((line) => line.includes('"level":50') && line.includes('the response was cut')),
        'the failure is logged',
      )

      assert.equal((await call(pennon, 'GET', '/health')).status, 200)
      const again = await within(5_000, openStream(url, pennon.adminToken), 'a new stream')
      const body = await within(30_000, readRest(again), 'a new body')
      assert.ok(body.complete)
      assert.equal(JSON.parse(body.text).totalEvents, LARGE)
    })
  }
})
