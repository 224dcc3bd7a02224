/**
 * Deletes of the last two admin credentials at once: each check passes alone, together they
 * would leave no credential that can administer Pennon. The check and the delete are
 * serialized (SQLite: BEGIN IMMEDIATE, across processes; PostgreSQL: the admin rows locked
 * FOR UPDATE), so exactly one succeeds and the other gets the 409.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import pg from 'pg'
import { startProcess, type Server } from '../bench/lib.ts'
import { call, createProcessDatabase, eventually, onEachDatabase, sql, useTestApp } from './test-app.ts'

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 15)
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

interface Answer {
  status: number
  body: any
}

async function send(server: Server, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${server.url}/api/admin${path}`, {
    method,
    headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

/** Deletes one credential, as its own holder (so the loser of a race is still authenticated when checked). */
type Retire = (server: Server) => Promise<Answer>

/** A new admin credential: an admin API token, or an Admin service account's token. Returns its secret and its delete. */
async function newAdmin(server: Server, token: string, kind: 'token' | 'account', name: string): Promise<[string, Retire]> {
  if (kind === 'token') {
    const created = await send(server, token, 'POST', '/api-tokens', { tokenName: name, type: 'admin' })
    assert.equal(created.status, 201)
    const secret: string = created.body.secret
    return [secret, (on) => send(on, secret, 'DELETE', `/api-tokens/${name}`)]
  }
  const account = await send(server, token, 'POST', '/service-account', { username: name, name, rootRole: 1 })
  assert.equal(account.status, 201)
  const created = await send(server, token, 'POST', `/service-account/${account.body.id}/token`, { description: name, expiresAt: null })
  assert.equal(created.status, 201)
  const secret: string = created.body.secret
  return [secret, (on) => send(on, secret, 'DELETE', `/service-account/${account.body.id}`)]
}

onEachDatabase('the last admin credential, raced', (database) => {
  test(`${ROUNDS} rounds: the last two admin credentials deleted at once from two processes, one 200 and one 409`, {
    timeout: 300_000,
  }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const common = { ...storage.env, INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0' }
    // Started one after the other only so that the first migrates alone; from then on they race.
    const a = await startProcess('src/main.ts', common)
    const b = await startProcess('src/main.ts', common)
    t.after(async () => {
      await a.stop()
      await b.stop()
    })
    // The one admin credential left after the previous round, and its delete.
    let survivor = TOKEN
    let retire: Retire = (on) => send(on, TOKEN, 'DELETE', '/api-tokens/admin')
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round the second is an Admin service account's token.
      const [x, xRetire] = await newAdmin(a, survivor, 'token', `x${round}`)
      const [y, yRetire] = await newAdmin(a, survivor, round % 2 === 0 ? 'token' : 'account', `y${round}`)
      assert.equal((await retire(a)).status, 200, `round ${round}: the previous survivor goes`)

      const [xGone, yGone] =
        round % 2 === 0 ? await Promise.all([xRetire(a), yRetire(b)]) : (await Promise.all([yRetire(b), xRetire(a)])).reverse()
      assert.deepEqual([xGone.status, yGone.status].sort(), [200, 409], `round ${round}: ${JSON.stringify([xGone, yGone])}`)
      const loser = xGone.status === 409 ? xGone : yGone
      assert.equal(loser.body.name, 'InvalidOperationError')
      ;[survivor, retire] = xGone.status === 409 ? [x, xRetire] : [y, yRetire]
      // The survivor still administers, through either process.
      assert.equal((await send(b, survivor, 'GET', '/api-tokens')).status, 200)
    }
  })

  if (database.name === 'postgres') {
    test('PostgreSQL: both deletes wait on the locked admin rows, then the second sees what the first left', async (t) => {
      const pennon = await useTestApp(t, database)
      const created = await Promise.all(
        ['x', 'y'].map((tokenName) => call(pennon, 'POST', '/api/admin/api-tokens', { tokenName, type: 'admin' })),
      )
      const [x, y] = created.map((response) => response.body.secret as string)
      assert.equal((await call({ ...pennon, adminToken: x! }, 'DELETE', '/api/admin/api-tokens/admin')).status, 200)

      // Another session holds every admin token's row, so both deletes must queue behind it.
      const {
        rows: [current],
      } = await sql<{ schema: string }>`select current_schema() as schema`.execute(pennon.database.db)
      const holder = new pg.Client({ connectionString: database.url, options: `-c search_path=${current!.schema}` })
      await holder.connect()
      t.after(() => holder.end())
      await holder.query('begin')
      await holder.query("select token_name from api_tokens where type = 'admin' order by secret_hash for update")
      const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid

      const deletes = Promise.all([
        call({ ...pennon, adminToken: x! }, 'DELETE', '/api/admin/api-tokens/x'),
        call({ ...pennon, adminToken: y! }, 'DELETE', '/api/admin/api-tokens/y'),
      ])
      // Both are blocked: by the holder, or behind the other one.
      await eventually(async () => {
        const { rows } = await holder.query<{ pid: number; blockers: number[] }>(
          'select pid, pg_blocking_pids(pid) as blockers from pg_stat_activity where cardinality(pg_blocking_pids(pid)) > 0',
        )
        const blocked = new Set<number>([holderPid])
        for (let grew = true; grew; ) {
          grew = false
          for (const row of rows) {
            if (!blocked.has(row.pid) && row.blockers.some((pid) => blocked.has(pid))) {
              blocked.add(row.pid)
              grew = true
            }
          }
        }
        return blocked.size - 1 >= 2
      }, 'both deletes wait on the locked rows')
      await holder.query('commit')
      const [xGone, yGone] = await deletes
      assert.deepEqual([xGone.status, yGone.status].sort(), [200, 409], `${xGone.text} ${yGone.text}`)
    })
  }
})
