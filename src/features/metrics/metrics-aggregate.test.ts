import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMetricsAggregate, hourOf, toRows } from './metrics-aggregate.ts'

const HOUR = '2026-11-24T10:00:00.000Z'
const development = { environment: 'development', projects: ['*'] }
const projects: Record<string, string> = { a: 'default', b: 'default', c: 'other' }

test('hourOf: the start of the hour, before 1970 too', () => {
  assert.equal(hourOf(Date.parse('2026-11-24T10:59:59.999Z')), HOUR)
  assert.equal(hourOf(Date.parse('1926-05-08T12:30:00Z')), '1926-05-08T12:00:00.000Z')
})

test('reports add up per hour, application, environment and flag; empty counts and impossible names are skipped', () => {
  const aggregate = createMetricsAggregate()
  for (let i = 0; i < 3; i++) {
    aggregate.addCounts(development, 'app', HOUR, 1000 + i, { a: { yes: 1, no: 2, variants: { x: 1 } }, b: { yes: 0, no: 0 }, ['n'.repeat(101)]: { yes: 1 } })
  }
  aggregate.addCounts(development, 'app', '2026-11-24T11:00:00.000Z', 2000, { a: { yes: 5 } })
  assert.equal(aggregate.size, 3, 'a in two hours, one variant')
  const rows = toRows(aggregate.take(), (flag) => projects[flag])
  assert.equal(aggregate.size, 0)
  assert.deepEqual(rows.metrics, [
    ['a', 'app', 'development', HOUR, 3, 6],
    ['a', 'app', 'development', '2026-11-24T11:00:00.000Z', 5, 0],
  ])
  assert.deepEqual(rows.variants, [['a', 'app', 'development', HOUR, 'x', 3]])
  assert.deepEqual(rows.lastSeen, [['a', 'development', new Date(2000).toISOString()]])
})

test('only flags that exist and that the reporting token may read become rows; one row whatever the scopes', () => {
  const aggregate = createMetricsAggregate()
  aggregate.addCounts({ environment: 'production', projects: ['default'] }, 'app', HOUR, 1, { a: { yes: 1 }, c: { yes: 1 }, ghost: { yes: 1 } })
  aggregate.addCounts({ environment: 'production', projects: ['*'] }, 'app', HOUR, 2, { a: { yes: 10 }, c: { no: 1 } })
  const rows = toRows(aggregate.take(), (flag) => projects[flag])
  assert.deepEqual(rows.metrics, [
    ['a', 'app', 'production', HOUR, 11, 0],
    ['c', 'app', 'production', HOUR, 0, 1],
  ])
})

test("instances: later reports win field by field; the application shows its most recently seen instance's strategies and SDK version", () => {
  const aggregate = createMetricsAggregate()
  aggregate.seeInstance({ ...development, appName: 'app', instanceId: 'i', sdkVersion: 'sdk:1', strategies: ['default'], startedAt: HOUR, interval: 10, lastSeenAt: 1 })
  aggregate.seeInstance({ ...development, appName: 'app', instanceId: 'i', clientIp: '10.0.0.1', lastSeenAt: 3 })
  aggregate.seeInstance({ environment: 'development', projects: ['p'], appName: 'app', instanceId: 'j', sdkVersion: 'sdk:2', lastSeenAt: 2 })
  const rows = toRows(aggregate.take(), () => undefined)
  assert.deepEqual(rows.instances, [
    ['app', 'i', 'development', 'sdk:1', '10.0.0.1', HOUR, 10, new Date(3).toISOString()],
    ['app', 'j', 'development', 'sdk:2', null, null, null, new Date(2).toISOString()],
  ])
  assert.deepEqual(rows.applications, [['app', '["default"]', 'sdk:1', new Date(3).toISOString()]])
  assert.deepEqual(rows.usage, [['app', '*', 'development'], ['app', 'p', 'development']])
})

test('a batch put back adds to what arrived meanwhile', () => {
  const aggregate = createMetricsAggregate()
  aggregate.addCounts(development, 'app', HOUR, 1, { a: { yes: 1, variants: { x: 1 } } })
  aggregate.seeInstance({ ...development, appName: 'app', instanceId: 'i', sdkVersion: 'old', lastSeenAt: 1 })
  const failed = aggregate.take()
  aggregate.addCounts(development, 'app', HOUR, 5, { a: { yes: 2, variants: { x: 2, y: 1 } } })
  aggregate.seeInstance({ ...development, appName: 'app', instanceId: 'i', lastSeenAt: 5 })
  aggregate.putBack(failed)
  assert.equal(aggregate.size, 4)
  const rows = toRows(aggregate.take(), (flag) => projects[flag])
  assert.deepEqual(rows.metrics, [['a', 'app', 'development', HOUR, 3, 0]])
  assert.deepEqual(rows.variants, [['a', 'app', 'development', HOUR, 'x', 3], ['a', 'app', 'development', HOUR, 'y', 1]])
  assert.deepEqual(rows.lastSeen, [['a', 'development', new Date(5).toISOString()]])
  assert.deepEqual(rows.instances, [['app', 'i', 'development', 'old', null, null, null, new Date(5).toISOString()]])
})
