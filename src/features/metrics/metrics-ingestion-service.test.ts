/**
 * The service alone, over a real database: a flush that fails keeps its counts for the next one,
 * and past MAX_HELD held entries (here a smaller limit) a report is refused with 429 rather than held;
 * one token's reports past MAX_HELD_PER_TOKEN are refused the same way, and no one else's;
 * applications not seen for 48 hours make room for new ones (a clock of the test's).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import type { DialectName } from '../../db/dialect.ts'
import { call, onEachDatabase, sql, useTestApp } from '../../../test/test-app.ts'
import { AppError } from '../../http/errors.ts'
import { createMetricsIngestionService } from './metrics-ingestion-service.ts'

const HOUR = 3_600_000

const bucket = (toggles: Record<string, { yes?: number; no?: number }>) => ({
  appName: 'service-test',
  bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles },
})

/** Makes every insert and update of client_metrics_env fail (a trigger that raises), until allowWrites. */
async function refuseWrites(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    for (const event of ['insert', 'update']) {
      await sql
        .raw(`create trigger refuse_${event} before ${event} on client_metrics_env begin select raise(abort, 'refused by the test'); end`)
        .execute(db)
    }
    return
  }
  await sql`create function refuse_writes() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`.execute(
    db,
  )
  await sql`create trigger refuse_writes before insert or update on client_metrics_env for each row execute function refuse_writes()`.execute(
    db,
  )
}

async function allowWrites(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    for (const event of ['insert', 'update']) await sql.raw(`drop trigger refuse_${event}`).execute(db)
    return
  }
  await sql`drop trigger refuse_writes on client_metrics_env`.execute(db)
  await sql`drop function refuse_writes()`.execute(db)
}

onEachDatabase('metrics service', (database) => {
  test('a failed flush keeps its counts; too much held is refused with 429, and accepted again once written', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const name of ['kept', 'filler'])
      assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name })).status, 201)
    const { db } = pennon.database
    const errors: unknown[] = []
    const log = { error: (...args: unknown[]) => errors.push(args), warn: () => {} } as unknown as FastifyBaseLogger
    const maxHeld = 2_000
    const metrics = createMetricsIngestionService({
      db,
      changes: pennon.database.watchChanges(),
      log,
      flushIntervalMs: 3_600_000,
      limits: { flushAt: maxHeld, maxHeld, maxApplications: 100_000, applicationsPerToken: 100_000, instancesPerApplication: 100 },
    })
    t.after(() => metrics.close())
    const caller = { scope: undefined, token: null, clientIp: '127.0.0.1' }
    const stored = async () =>
      (
        await db
          .selectFrom('client_metrics_env')
          .select(['yes', 'no'])
          .where('feature_name', '=', 'kept')
          .where('app_name', '=', 'service-test')
          .execute()
      ).map((r) => [r.yes, r.no])

    // Writes to the counts table refused for a while: flushes fail. (A trigger, not a rename: renaming
    // a table races with the catalog reads of migrations running in other test schemas at the same time.)
    await refuseWrites(db, pennon.database.dialect)
    await metrics.reportMetrics(caller, bucket({ kept: { yes: 1 } }))
    await metrics.flush()
    assert.equal(errors.length, 1, 'the failed flush is logged')
    await metrics.reportMetrics(caller, bucket({ kept: { yes: 2, no: 1 } }))

    // Fill up past maxHeld with flushes failing: each Edge post holds 250 new applications, and a count of each.
    const perPost = 250
    let round = 0
    while (true) {
      const apps = Array.from({ length: perPost }, (_, i) => `app-${round}-${i}`)
      try {
        await metrics.reportBulk(caller, {
          applications: apps.map((appName) => ({ appName, instanceId: 'i', environment: 'development' })),
          metrics: apps.map((appName) => ({ featureName: 'filler', appName, environment: 'development', yes: 1 })),
        })
      } catch (error) {
        assert.ok(error instanceof AppError)
        assert.equal(error.status, 429)
        assert.equal(error.headers?.['retry-after'], '5')
        break
      }
      await metrics.flush()
      assert.ok(++round * 2 * perPost <= maxHeld + 2 * perPost, 'refused once maxHeld entries are held')
    }
    assert.equal(round, Math.ceil(maxHeld / (2 * perPost)))
    assert.ok(metrics.held >= maxHeld)

    await allowWrites(db, pennon.database.dialect)
    await metrics.flush()
    assert.equal(metrics.held, 0)
    assert.deepEqual(await stored(), [[3, 1]], 'the counts of every failed flush, written once')
    await metrics.reportMetrics(caller, bucket({ kept: { yes: 1 } }))
    await metrics.flush()
    assert.deepEqual(await stored(), [[4, 1]])
    assert.equal(
      (await db.selectFrom('client_metrics_env').select('app_name').where('feature_name', '=', 'filler').execute()).length,
      round * perPost,
    )
  })

  test('an application not seen for 48 hours is removed, and makes room for a new one', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'kept' })).status, 201)
    const { db } = pennon.database
    let clock = Date.now()
    const log = { error: (...args: unknown[]) => assert.fail(String(args)), warn: () => {} } as unknown as FastifyBaseLogger
    const metrics = createMetricsIngestionService({
      db,
      changes: pennon.database.watchChanges(),
      log,
      flushIntervalMs: 3_600_000,
      now: () => clock,
      limits: { maxApplications: 1, applicationsPerToken: 1, instancesPerApplication: 1 },
    })
    t.after(() => metrics.close())
    const caller = { scope: undefined, token: null, clientIp: '127.0.0.1' }
    const report = (appName: string) => metrics.reportMetrics(caller, { ...bucket({ kept: { yes: 1 } }), appName })
    const recorded = async () => (await db.selectFrom('client_applications').select('app_name').execute()).map((row) => row.app_name)

    await report('old')
    await metrics.flush()
    clock += HOUR
    await report('new')
    await metrics.flush()
    assert.deepEqual(await recorded(), ['old'], 'the one application there may be')
    clock += 48 * HOUR
    // Nothing held: the flush still removes what expired.
    await metrics.flush()
    assert.deepEqual(await recorded(), [])
    await report('new')
    await metrics.flush()
    assert.deepEqual(await recorded(), ['new'])
    assert.deepEqual(
      (await db.selectFrom('client_applications_usage').select('app_name').execute()).map((row) => row.app_name),
      ['new'],
    )
  })

  test("one token's reports past what it may hold get 429 until the next flush; other tokens' are taken", async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'filler' })).status, 201)
    const log = {
      error: (_context: { err: unknown }, message: string) => assert.fail(`${message}: ${String(_context.err)}`),
      warn: () => {},
    } as unknown as FastifyBaseLogger
    const metrics = createMetricsIngestionService({
      db: pennon.database.db,
      changes: pennon.database.watchChanges(),
      log,
      flushIntervalMs: 3_600_000,
      limits: {
        flushAt: 10_000,
        maxHeld: 10_000,
        maxHeldPerToken: 300,
        maxApplications: 100_000,
        applicationsPerToken: 100_000,
        instancesPerApplication: 100,
      },
    })
    t.after(() => metrics.close())
    const scope = { environment: 'development', projects: ['*'] }
    const [junk, other, admin] = [
      { scope, token: 'junk', clientIp: '10.0.0.1' },
      { scope, token: 'other', clientIp: '10.0.0.2' },
      { scope: undefined, token: null, clientIp: '10.0.0.3' },
    ]
    let post = 0
    // 100 new applications, each an instance and a count: 200 entries.
    const bulk = () => {
      const apps = Array.from({ length: 100 }, (_, i) => `app-${post}-${i}`)
      post++
      return {
        applications: apps.map((appName) => ({ appName, instanceId: 'i', environment: 'development' })),
        metrics: apps.map((appName) => ({ featureName: 'filler', appName, environment: 'development', yes: 1 })),
      }
    }
    const status = async (caller: typeof junk | typeof admin) => {
      try {
        await metrics.reportBulk(caller, bulk())
        return 202
      } catch (error) {
        assert.ok(error instanceof AppError)
        return error.status
      }
    }
    assert.deepEqual([await status(junk), await status(junk), await status(junk)], [202, 202, 429], 'past 300 entries')
    assert.deepEqual([await status(other), await status(admin), await status(other), await status(junk)], [202, 202, 202, 429])
    await metrics.flush()
    assert.equal(await status(junk), 202)
    await metrics.close()
  })
})
