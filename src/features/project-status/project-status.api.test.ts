/**
 * GET /projects/:projectId/status through the real app on each database: an empty project, then
 * one with flags (stale, archived), a token, a segment and lifecycle stages of known times; any
 * admin caller may read it; an unknown project is a 404.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, apiToken, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { createFlag, createProject } from '../../../test/helpers/flags.ts'

const STATUS = '/api/admin/projects/shop/status'
const nothingYet = { averageDays: null, currentFlags: 0 }

onEachDatabase('project status', (database) => {
  test('an empty project, then one with flags, a token, a segment and lifecycle stages: the exact answer', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    const today = new Date().toISOString().slice(0, 10)
    const empty = await call(pennon, 'GET', STATUS)
    assert.equal(empty.status, 200, empty.text)
    assert.deepEqual(empty.body, {
      activityCountByDate: [{ date: today, count: 1 }],
      resources: { apiTokens: 0, members: 0, segments: 0 },
      health: { current: 100 },
      technicalDebt: { current: 0 },
      lifecycleSummary: {
        initial: nothingYet,
        preLive: nothingYet,
        live: nothingYet,
        completed: nothingYet,
        archived: { currentFlags: 0, last30Days: 0 },
      },
      staleFlags: { total: 0 },
    })

    for (const name of ['a', 'b', 'c', 'd']) await createFlag(pennon, name, 'shop')
    await createFlag(pennon, 'elsewhere')
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/shop/stale', { features: ['b'], stale: true })).status, 202)
    assert.equal((await call(pennon, 'DELETE', '/api/admin/projects/shop/features/c')).status, 202)
    const token = await call(pennon, 'POST', '/api/admin/api-tokens', { tokenName: 'shop-sdk', type: 'client', projects: ['shop'] })
    assert.equal(token.status, 201, token.text)
    await apiToken(pennon, 'client', 'everywhere')
    assert.equal((await call(pennon, 'POST', '/api/admin/segments', { name: 'vip', constraints: [], project: 'shop' })).status, 201)
    assert.equal((await call(pennon, 'POST', '/api/admin/segments', { name: 'global', constraints: [] })).status, 201)
    // Stages of known times (SDK reports move them in lifecycle.api.test.ts): a 2 days initial, 5 pre-live, then live;
    // b 4 days initial, then pre-live; c 1 day initial, then archived; d initial since now.
    const { db } = pennon.database
    const at = (day: string) => `2026-01-${day}T00:00:00.000Z`
    for (const [feature, stage, day] of [
      ['a', 'initial', '01'],
      ['b', 'initial', '01'],
      ['c', 'initial', '01'],
      ['c', 'archived', '02'],
    ] as const)
      await db
        .updateTable('feature_lifecycles')
        .set({ created_at: at(day) })
        .where('feature', '=', feature)
        .where('stage', '=', stage)
        .execute()
    await db
      .insertInto('feature_lifecycles')
      .values(
        (
          [
            ['a', 'pre-live', '03'],
            ['a', 'live', '08'],
            ['b', 'pre-live', '05'],
          ] as const
        ).map(([feature, stage, day]) => ({ feature, stage, status: null, status_value: null, created_at: at(day) })),
      )
      .execute()

    const response = await call(pennon, 'GET', STATUS)
    assert.equal(response.status, 200, response.text)
    const shopEvents = (await allEvents(pennon)).filter((event) => event.project === 'shop')
    assert.deepEqual(response.body, {
      activityCountByDate: [{ date: today, count: shopEvents.length }],
      resources: { apiTokens: 1, members: 0, segments: 1 },
      // One of three active flags stale: 100 - 33.3.
      health: { current: 67 },
      technicalDebt: { current: 33 },
      lifecycleSummary: {
        initial: { averageDays: 2, currentFlags: 1 },
        preLive: { averageDays: 5, currentFlags: 1 },
        live: { averageDays: null, currentFlags: 1 },
        completed: nothingYet,
        archived: { currentFlags: 1, last30Days: 1 },
      },
      staleFlags: { total: 1 },
    })
  })

  test('any admin caller may read it; an unknown project is a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'GET', STATUS, undefined, { token: viewer })).status, 200)
    const client = await apiToken(pennon, 'client')
    assert.equal((await call(pennon, 'GET', STATUS, undefined, { token: client })).status, 403)
    const unknown = await call(pennon, 'GET', '/api/admin/projects/nowhere/status')
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Project "nowhere" does not exist.'))
  })
})
