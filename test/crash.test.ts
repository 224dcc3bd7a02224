/**
 * Crash safety: Pennon runs as a child process under concurrent writes and is killed
 * with SIGKILL at random moments, again and again. After every restart, every write
 * that was acknowledged with a 2xx is there with its events, every event's change is
 * there, and the invariants hold.
 *   CRASH_ROUNDS=50 node --test test/crash.test.ts
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { createDb } from '../src/db/database.ts'
import { startProcess } from '../bench/lib.ts'
import { createProcessDatabase, onEachDatabase } from './test-app.ts'
import { dependencyViolations, eventViolations, flagStateViolations } from './invariants.ts'

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20)
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

const SERVER_ENV = { INIT_ADMIN_API_TOKENS: TOKEN, AUTH_FAILURES_PER_MINUTE: '0', SEGMENTS_LIMIT: '100000' }

interface Acknowledged {
  flags: string[]
  dependencies: Array<{ child: string; parent: string }>
  archived: string[]
  segments: string[]
  /** Flags switched on in production (which adds the default strategy). */
  switchedOn: string[]
  /** Flags given a strategy in development, with the segment named after them. */
  strategies: string[]
}

/** The answer's body when the request was acknowledged with a 2xx; undefined when it was not (or the outcome is unknown). */
async function sendForBody(url: string, method: string, body: unknown): Promise<any> {
  try {
    const json =
      body === undefined ? {} : { headers: { authorization: TOKEN, 'content-type': 'application/json' }, body: JSON.stringify(body) }
    const response = await fetch(url, { method, headers: { authorization: TOKEN }, ...json })
    const text = await response.text()
    if (response.status >= 500) throw new Error(`${method} ${url} → ${response.status}`)
    return response.ok ? (text === '' ? {} : JSON.parse(text)) : undefined
  } catch (error) {
    if (error instanceof Error && error.message.includes('→')) throw error
    return undefined // killed mid-request: the outcome is unknown, so nothing is claimed
  }
}

const send = async (url: string, method: string, body: unknown): Promise<boolean> => (await sendForBody(url, method, body)) !== undefined

/** One writer: a parent and a child flag, their dependency, a flag to archive, a segment; repeated until killed. */
async function writer(base: string, prefix: string, acknowledged: Acknowledged, stop: { killed: boolean }): Promise<void> {
  for (let n = 0; !stop.killed; n++) {
    const parent = `${prefix}-${n}-p`
    const child = `${prefix}-${n}-c`
    const doomed = `${prefix}-${n}-a`
    const features = `${base}/api/admin/projects/default/features`
    if (!(await send(features, 'POST', { name: parent }))) continue
    acknowledged.flags.push(parent)
    if (!(await send(features, 'POST', { name: child }))) continue
    acknowledged.flags.push(child)
    if (await send(`${features}/${child}/dependencies`, 'POST', { feature: parent })) acknowledged.dependencies.push({ child, parent })
    if (await send(`${features}/${parent}/environments/production/on`, 'POST', undefined)) acknowledged.switchedOn.push(parent)
    if (await send(features, 'POST', { name: doomed })) {
      acknowledged.flags.push(doomed)
      if (await send(`${base}/api/admin/projects/default/archive`, 'POST', { features: [doomed] })) acknowledged.archived.push(doomed)
    }
    const segment = `${prefix}-${n}-s`
    const created = await sendForBody(`${base}/api/admin/segments`, 'POST', {
      name: segment,
      constraints: [{ contextName: 'userId', operator: 'IN', values: [segment] }],
    })
    if (created) {
      acknowledged.segments.push(segment)
      const strategy = {
        name: 'flexibleRollout',
        parameters: { rollout: 50 },
        segments: [created.id],
        constraints: [{ contextName: 'appName', operator: 'IN', values: [child] }],
      }
      if (await send(`${features}/${child}/environments/development/strategies`, 'POST', strategy)) acknowledged.strategies.push(child)
    }
  }
}

onEachDatabase('crash safety', (database) => {
  test(`${ROUNDS} SIGKILLs under concurrent writes lose nothing acknowledged`, { timeout: 600_000 }, async (t) => {
    const storage = await createProcessDatabase(database)
    t.after(() => storage.drop())
    const { env } = storage
    const acknowledged: Acknowledged = { flags: [], dependencies: [], archived: [], segments: [], switchedOn: [], strategies: [] }
    let killedMidWrite = 0

    for (let round = 0; round < ROUNDS; round++) {
      const server = await startProcess('src/main.ts', { ...SERVER_ENV, ...env })
      const base = server.url
      const stop = { killed: false }
      const writers = Array.from({ length: 4 }, (_, w) => writer(base, `r${round}w${w}`, acknowledged, stop))
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400))
      const exited = new Promise((resolve) => server.child.on('exit', resolve))
      server.child.kill('SIGKILL')
      stop.killed = true
      await exited
      await Promise.all(writers)
      killedMidWrite++
    }

    // One last clean start proves the server starts after the final crash; then check the data directly.
    await (await startProcess('src/main.ts', { ...SERVER_ENV, ...env })).stop()

    const { db, close } = createDb({ databaseUrl: env.DATABASE_URL, databaseFile: env.DATABASE_FILE })
    try {
      const flags = new Map((await db.selectFrom('features').select(['name', 'archived_at']).execute()).map((f) => [f.name, f.archived_at]))
      for (const name of acknowledged.flags) assert.ok(flags.has(name), `acknowledged flag ${name} is missing`)
      for (const name of acknowledged.archived) assert.ok(flags.get(name), `acknowledged archive of ${name} is missing`)
      const dependencies = new Set(
        (await db.selectFrom('feature_dependencies').select(['child', 'parent']).execute()).map((d) => `${d.child}→${d.parent}`),
      )
      for (const d of acknowledged.dependencies)
        assert.ok(dependencies.has(`${d.child}→${d.parent}`), `acknowledged dependency ${d.child}→${d.parent} is missing`)
      const segments = new Set((await db.selectFrom('segments').select('name').execute()).map((s) => s.name))
      for (const name of acknowledged.segments) assert.ok(segments.has(name), `acknowledged segment ${name} is missing`)

      // Every change has its events, and every event its change.
      const events = (await db.selectFrom('events').select('json').execute()).map((e) => JSON.parse(e.json))
      const has = (type: string, featureName: string) => events.some((e) => e.type === type && e.featureName === featureName)
      for (const name of acknowledged.archived) assert.ok(has('feature-archived', name), `no feature-archived event for ${name}`)
      for (const d of acknowledged.dependencies) assert.ok(has('feature-dependency-added', d.child), `no dependency event for ${d.child}`)
      for (const event of events) {
        if (event.type === 'feature-created') assert.ok(flags.has(event.featureName), `event without its flag: ${event.featureName}`)
        if (event.type === 'segment-created') assert.ok(segments.has(event.data.name), `event without its segment: ${event.data.name}`)
        if (event.type === 'feature-archived')
          assert.ok(flags.get(event.featureName), `archive event without the archive: ${event.featureName}`)
      }
      const on = new Set(
        (
          await db
            .selectFrom('feature_environments')
            .select('feature')
            .where('environment', '=', 'production')
            .where('enabled', '=', true)
            .execute()
        ).map((r) => r.feature),
      )
      for (const name of acknowledged.switchedOn) assert.ok(on.has(name), `acknowledged switch-on of ${name} is missing`)
      const withSegment = new Set(
        (
          await db
            .selectFrom('feature_strategies')
            .innerJoin('feature_strategy_segments', 'feature_strategy_segments.strategy_id', 'feature_strategies.id')
            .select('feature_name')
            .where('environment', '=', 'development')
            .execute()
        ).map((r) => r.feature_name),
      )
      for (const name of acknowledged.strategies) assert.ok(withSegment.has(name), `acknowledged strategy of ${name} is missing`)
      assert.deepEqual(await dependencyViolations(db), [])
      assert.deepEqual(await eventViolations(db), [])
      assert.deepEqual(await flagStateViolations(db), [])
      console.log(
        `crash safety (${database.name}): ${killedMidWrite} SIGKILLs survived; acknowledged ${acknowledged.flags.length} flags, ` +
          `${acknowledged.dependencies.length} dependencies, ${acknowledged.archived.length} archives, ${acknowledged.segments.length} segments, ` +
          `${acknowledged.switchedOn.length} switches on, ${acknowledged.strategies.length} strategies; 0 lost`,
      )
    } finally {
      await close()
    }
  })
})
