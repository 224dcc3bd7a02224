import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { healthRating } from './project-health.ts'

const P = '/api/admin/projects'
const DAY = 86_400_000

/** Moves a flag's creation `days` into the past (as if it had lived that long). */
async function age(pennon: TestApp, name: string, days: number): Promise<void> {
  const createdAt = new Date(Date.now() - days * DAY).toISOString()
  await pennon.database.db.updateTable('features').set({ created_at: createdAt }).where('name', '=', name).execute()
}

test('the rating is 100 less the stale and potentially stale shares, rounded; 100 without flags', () => {
  assert.equal(healthRating({ activeCount: 0, staleCount: 0, potentiallyStaleCount: 0 }), 100)
  assert.equal(healthRating({ activeCount: 3, staleCount: 1, potentiallyStaleCount: 1 }), 50)
  assert.equal(healthRating({ activeCount: 2, staleCount: 1, potentiallyStaleCount: 0 }), 67)
  assert.equal(healthRating({ activeCount: 0, staleCount: 3, potentiallyStaleCount: 0 }), 0)
})

onEachDatabase("a project's health report", (database) => {
  test('counts active, stale and potentially stale flags and rates them as the reference', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', P, { id: 'shop', name: 'Shop', description: 'Things to buy' })).status, 201)
    const empty = await call(pennon, 'GET', `${P}/shop/health-report`)
    assert.equal(empty.status, 200)
    const project = (await call(pennon, 'GET', P)).body.projects.find((p: { id: string }) => p.id === 'shop')
    const base = {
      version: 1,
      name: 'Shop',
      description: 'Things to buy',
      defaultStickiness: 'default',
      mode: 'open',
      featureLimit: null,
      members: 0,
      environments: [{ environment: 'development' }, { environment: 'production' }],
      createdAt: project.createdAt,
      updatedAt: null,
      favorite: false,
    }
    assert.deepEqual(empty.body, {
      ...base,
      health: 100,
      technicalDebt: 0,
      features: [],
      potentiallyStaleCount: 0,
      activeCount: 0,
      staleCount: 0,
    })

    for (const [name, type] of [
      ['fresh', 'release'],
      ['old', 'release'],
      ['done', 'release'],
      ['gone', 'release'],
      ['switch', 'kill-switch'],
    ]) {
      assert.equal((await call(pennon, 'POST', `${P}/shop/features`, { name, type })).status, 201)
    }
    await age(pennon, 'old', 41)
    await age(pennon, 'done', 41)
    await age(pennon, 'switch', 1000)
    assert.equal((await call(pennon, 'POST', `${P}/shop/stale`, { features: ['done'], stale: true })).status, 202)
    assert.equal((await call(pennon, 'DELETE', `${P}/shop/features/gone`)).status, 202)

    // An environment taken from the project is no longer listed.
    assert.equal((await call(pennon, 'DELETE', `${P}/shop/environments/production`)).status, 200)
    base.environments = [{ environment: 'development' }]
    const report = await call(pennon, 'GET', `${P}/shop/health-report`)
    assert.equal(report.status, 200)
    const listed = (await call(pennon, 'GET', `${P}/shop/features`)).body.features
    assert.deepEqual(
      listed.map((flag: { name: string; stale: boolean; potentiallyStale: boolean }) => [flag.name, flag.stale, flag.potentiallyStale]),
      [
        ['done', true, false],
        ['fresh', false, false],
        ['old', false, true],
        ['switch', false, false],
      ],
    )
    // Four flags: one stale (25 %), one potentially stale (25 %).
    assert.deepEqual(report.body, {
      ...base,
      health: 50,
      technicalDebt: 50,
      features: listed,
      potentiallyStaleCount: 1,
      activeCount: 3,
      staleCount: 1,
    })
  })

  test('any admin-API credential may read it; an unknown project is a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    assert.equal((await call(pennon, 'GET', `${P}/default/health-report`, undefined, { token: viewer })).status, 200)
    const ghost = await call(pennon, 'GET', `${P}/ghost/health-report`)
    assert.equal(ghost.status, 404)
    assert.deepEqual(withoutId(ghost.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))
  })
})
