/**
 * Two Pennon processes on one database, requests racing each other: exactly one
 * winner, the loser gets the documented 409 (or 404), and no invariant breaks.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { createDb } from '../src/db/database.ts'
import { startProcess, type Server } from '../bench/lib.ts'
import { createProcessDatabase, onEachDatabase } from './test-app.ts'
import { dependencyViolations, eventViolations, flagStateViolations } from './invariants.ts'

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 15)
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

async function send(server: Server, method: string, path: string, body?: unknown): Promise<{ status: number; name?: string }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, name: text ? JSON.parse(text).name : undefined }
}

onEachDatabase('two processes, one database', (database) => {
  test(`${ROUNDS} rounds of racing creates, chains and archive-vs-dependency`, { timeout: 300_000 }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const { env } = storage
    const common = { ...env, INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0', SEGMENTS_LIMIT: '100000' }
    // Started one after the other only so that the first migrates alone; from then on they race.
    const a = await startProcess('src/main.ts', common)
    const b = await startProcess('src/main.ts', common)
    t.after(async () => {
      await a.stop()
      await b.stop()
    })
    const features = '/api/admin/projects/default/features'
    const tally = { flagNames: 0, segmentNames: 0, chains: 0, archiveVsDependency: 0 }

    for (let round = 0; round < ROUNDS; round++) {
      const flag = await Promise.all([
        send(a, 'POST', features, { name: `same-${round}` }),
        send(b, 'POST', features, { name: `same-${round}` }),
      ])
      assert.deepEqual(flag.map((r) => r.status).sort(), [201, 409], `flag name race ${round}`)
      assert.equal(flag.find((r) => r.status === 409)!.name, 'NameExistsError')
      tally.flagNames++

      const segment = { name: `seg-${round}`, constraints: [] }
      const segments = await Promise.all([send(a, 'POST', '/api/admin/segments', segment), send(b, 'POST', '/api/admin/segments', segment)])
      assert.deepEqual(segments.map((r) => r.status).sort(), [201, 409], `segment name race ${round}`)
      assert.equal(segments.find((r) => r.status === 409)!.name, 'NameExistsError')
      tally.segmentNames++

      for (const name of ['x', 'y', 'z']) assert.equal((await send(a, 'POST', features, { name: `${name}-${round}` })).status, 201)
      const chain = await Promise.all([
        send(a, 'POST', `${features}/y-${round}/dependencies`, { feature: `x-${round}` }),
        send(b, 'POST', `${features}/z-${round}/dependencies`, { feature: `y-${round}` }),
      ])
      assert.deepEqual(chain.map((r) => r.status).sort(), [200, 409], `chain race ${round}`)
      assert.equal(chain.find((r) => r.status === 409)!.name, 'InvalidOperationError')
      tally.chains++

      for (const name of ['p', 'c']) assert.equal((await send(a, 'POST', features, { name: `${name}-${round}` })).status, 201)
      const [archive, dependency] = await Promise.all([
        send(a, 'POST', '/api/admin/projects/default/archive', { features: [`p-${round}`] }),
        send(b, 'POST', `${features}/c-${round}/dependencies`, { feature: `p-${round}` }),
      ])
      const outcome = `${archive.status}/${dependency.status}`
      // Either the archive won (the dependency then finds no active parent) or the dependency won (the archive would orphan c).
      assert.ok(outcome === '202/404' || outcome === '409/200', `archive vs dependency race ${round}: ${outcome}`)
      tally.archiveVsDependency++
    }

    const { db, close } = createDb({ databaseUrl: env.DATABASE_URL, databaseFile: env.DATABASE_FILE })
    try {
      assert.deepEqual(await dependencyViolations(db), [])
      assert.deepEqual(await eventViolations(db), [])
    } finally {
      await close()
    }
    console.log(`races (${database.name}): ${JSON.stringify(tally)} — one winner each, invariants intact`)
  })
})

onEachDatabase('two processes, one flag', (database) => {
  test(`${ROUNDS} rounds of switching and editing one flag's strategies from two processes: no update or event lost`, {
    timeout: 300_000,
  }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const common = { ...storage.env, INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0' }
    const a = await startProcess('src/main.ts', common)
    const b = await startProcess('src/main.ts', common)
    t.after(async () => {
      await a.stop()
      await b.stop()
    })
    const place = '/api/admin/projects/default/features/contended/environments/production'
    assert.equal((await send(a, 'POST', '/api/admin/projects/default/features', { name: 'contended' })).status, 201)
    assert.equal((await send(a, 'POST', `${place}/on`)).status, 200)
    const strategies = await (await fetch(`${a.url}${place}/strategies`, { headers: { authorization: TOKEN } })).json()
    const strategy = `${place}/strategies/${strategies[0].id}`
    const append = (value: string) => [
      { op: 'add', path: '/constraints/-', value: { contextName: 'userId', operator: 'IN', values: [value] } },
    ]

    // Each round: both processes append a constraint to the same strategy (a read-modify-write each),
    // and switch the flag, at once. Every append must survive, and every change must have its event.
    const switches: boolean[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const on = round % 2 === 0
      const results = await Promise.all([
        send(a, 'PATCH', strategy, append(`a-${round}`)),
        send(b, 'PATCH', strategy, append(`b-${round}`)),
        send(a, 'POST', `${place}/${on ? 'off' : 'on'}`),
        send(b, 'POST', `${place}/${on ? 'on' : 'off'}`),
      ])
      assert.deepEqual(
        results.map((r) => r.status),
        [200, 200, 200, 200],
        `round ${round}`,
      )
      switches.push(on)
    }

    const { db, close } = createDb({ databaseUrl: storage.env.DATABASE_URL, databaseFile: storage.env.DATABASE_FILE })
    try {
      const row = await db.selectFrom('feature_strategies').select('constraints').executeTakeFirstOrThrow()
      const values = (JSON.parse(row.constraints) as Array<{ values: string[] }>).map((c) => c.values[0]).sort()
      const expected = Array.from({ length: ROUNDS }, (_, round) => [`a-${round}`, `b-${round}`])
        .flat()
        .sort()
      assert.deepEqual(values, expected, 'every append survived')
      const updates = await db.selectFrom('events').select('id').where('type', '=', 'feature-strategy-update').execute()
      assert.equal(updates.length, 2 * ROUNDS, 'one update event per append')
      assert.deepEqual(await flagStateViolations(db), [])
      assert.deepEqual(await eventViolations(db), [])
    } finally {
      await close()
    }
    console.log(`races (${database.name}): ${2 * ROUNDS} concurrent strategy edits and ${2 * ROUNDS} switches, nothing lost`)
  })
})
