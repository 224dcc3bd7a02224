import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMetricsAggregate, hourOf, OTHER_VARIANTS, toRows, type Names } from './metrics-aggregate.ts'

const HOUR = '2026-11-24T10:00:00.000Z'
const development = { environment: 'development', projects: ['*'] }
const projects: Record<string, string> = { a: 'default', b: 'default', c: 'other' }
// The flags above exist; `a` has the variants blue and green (and every flag `disabled`, as metrics-names.ts says).
const names: Names = {
  counted: (flag) => flag in projects,
  ownVariant: (flag, variant) => variant === 'disabled' || (flag === 'a' && (variant === 'blue' || variant === 'green')),
}

test('hourOf: the start of the hour, before 1970 too', () => {
  assert.equal(hourOf(Date.parse('2026-11-24T10:59:59.999Z')), HOUR)
  assert.equal(hourOf(Date.parse('1926-05-08T12:30:00Z')), '1926-05-08T12:00:00.000Z')
})

test('reports add up per hour, application, environment and flag; empty counts and names of no flag are skipped', () => {
  const aggregate = createMetricsAggregate()
  for (let i = 0; i < 3; i++) {
    aggregate.addCounts(
      development,
      'app',
      HOUR,
      1000 + i,
      { a: { yes: 1, no: 2, variants: { x: 1 } }, b: { yes: 0, no: 0 }, ['n'.repeat(101)]: { yes: 1 } },
      names,
    )
  }
  aggregate.addCounts(development, 'app', '2026-11-24T11:00:00.000Z', 2000, { a: { yes: 5 } }, names)
  assert.equal(aggregate.size, 3, 'a in two hours, one variant')
  const rows = toRows(aggregate.take(), (flag) => projects[flag])
  assert.equal(aggregate.size, 0)
  assert.deepEqual(rows.metrics, [
    ['a', 'app', 'development', HOUR, 3, 6],
    ['a', 'app', 'development', '2026-11-24T11:00:00.000Z', 5, 0],
  ])
  assert.deepEqual(rows.variants, [['a', 'app', 'development', HOUR, 'x', 3]])
  assert.deepEqual(rows.lastSeen, [['a', 'development', new Date(2000).toISOString()]])
  assert.deepEqual(
    rows.applications,
    [['app', null, null, new Date(2000).toISOString(), null]],
    'an application that only sent counts is recorded too',
  )
})

test('only flags that exist and that the reporting token may read become rows; one row whatever the scopes', () => {
  const aggregate = createMetricsAggregate()
  aggregate.addCounts(
    { environment: 'production', projects: ['default'] },
    'app',
    HOUR,
    1,
    { a: { yes: 1 }, c: { yes: 1 }, ghost: { yes: 1 } },
    names,
  )
  aggregate.addCounts({ environment: 'production', projects: ['*'] }, 'app', HOUR, 2, { a: { yes: 10 }, c: { no: 1 } }, names)
  const rows = toRows(aggregate.take(), (flag) => projects[flag])
  assert.deepEqual(rows.metrics, [
    ['a', 'app', 'production', HOUR, 11, 0],
    ['c', 'app', 'production', HOUR, 0, 1],
  ])
})

test("instances: later reports win field by field; the application shows its most recently seen instance's strategies and SDK version", () => {
  const aggregate = createMetricsAggregate()
  aggregate.seeInstance({
    ...development,
    appName: 'app',
    instanceId: 'i',
    sdkVersion: 'sdk:1',
    strategies: ['default'],
    startedAt: HOUR,
    interval: 10,
    lastSeenAt: 1,
  })
  aggregate.seeInstance({ ...development, appName: 'app', instanceId: 'i', clientIp: '10.0.0.1', sdkType: 'backend', lastSeenAt: 3 })
  aggregate.seeInstance({
    environment: 'development',
    projects: ['p'],
    appName: 'app',
    instanceId: 'j',
    sdkVersion: 'sdk:2',
    lastSeenAt: 2,
  })
  const rows = toRows(aggregate.take(), () => undefined)
  assert.deepEqual(rows.instances, [
    ['app', 'i', 'development', 'sdk:1', '10.0.0.1', HOUR, 10, new Date(3).toISOString(), 'backend'],
    ['app', 'j', 'development', 'sdk:2', null, null, null, new Date(2).toISOString(), null],
  ])
  assert.deepEqual(rows.applications, [['app', '["default"]', 'sdk:1', new Date(3).toISOString(), null]])
  assert.deepEqual(rows.usage, [
    ['app', '*', 'development'],
    ['app', 'p', 'development'],
  ])
})

test('a batch put back adds to what arrived meanwhile', () => {
  const aggregate = createMetricsAggregate()
  aggregate.addCounts(development, 'app', HOUR, 1, { a: { yes: 1, variants: { x: 1 } } }, names)
  aggregate.seeInstance({ ...development, appName: 'app', instanceId: 'i', sdkVersion: 'old', lastSeenAt: 1 })
  const failed = aggregate.take()
  aggregate.addCounts(development, 'app', HOUR, 5, { a: { yes: 2, variants: { x: 2, y: 1 } } }, names)
  aggregate.seeInstance({ ...development, appName: 'app', instanceId: 'i', lastSeenAt: 5 })
  aggregate.putBack(failed)
  assert.equal(aggregate.size, 4)
  const rows = toRows(aggregate.take(), (flag) => projects[flag])
  assert.deepEqual(rows.metrics, [['a', 'app', 'development', HOUR, 3, 0]])
  assert.deepEqual(rows.variants, [
    ['a', 'app', 'development', HOUR, 'x', 3],
    ['a', 'app', 'development', HOUR, 'y', 1],
  ])
  assert.deepEqual(rows.lastSeen, [['a', 'development', new Date(5).toISOString()]])
  assert.deepEqual(rows.instances, [['app', 'i', 'development', 'old', null, null, null, new Date(5).toISOString(), null]])
})

test(`a flag entry holds its own variant names and at most ${OTHER_VARIANTS} others; a batch put back is held whole`, () => {
  const aggregate = createMetricsAggregate()
  const others = (prefix: string, from: number, count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}-${from + i}`, 1]))
  aggregate.addCounts(development, 'app', HOUR, 1, { a: { yes: 1, variants: { blue: 1, ...others('x', 0, 8) } } }, names)
  aggregate.addCounts(
    development,
    'app',
    HOUR,
    2,
    { a: { yes: 1, variants: { green: 1, disabled: 1, 'x-0': 1, ...others('x', 8, 30) } } },
    names,
  )
  assert.equal(aggregate.size, 1 + 3 + OTHER_VARIANTS)
  const taken = aggregate.take()
  aggregate.addCounts(development, 'app', HOUR, 3, { a: { yes: 1, variants: others('y', 0, 30) } }, names)
  aggregate.putBack(taken)
  const held = toRows(aggregate.take(), (flag) => projects[flag]).variants.map((row) => [row[4], row[5]])
  assert.deepEqual(
    held.filter(([name]) => !/^[xy]-/.test(String(name))),
    [
      ['blue', 1],
      ['disabled', 1],
      ['green', 1],
    ],
  )
  assert.deepEqual(
    held.filter(([name]) => String(name).startsWith('x-')).map(([name]) => name),
    ['x-0', 'x-1', 'x-2', 'x-3', 'x-4', 'x-5', 'x-6', 'x-7', 'x-8', 'x-9'],
  )
  assert.equal(
    held.filter(([name]) => String(name).startsWith('y-')).length,
    OTHER_VARIANTS,
    'the batch put back whole, and the first 10 others of the later report',
  )
  assert.deepEqual(
    held.find(([name]) => name === 'x-0'),
    ['x-0', 2],
  )
})

test('past the instances of an application held, a report is a sighting: the application is seen, no instance recorded', () => {
  const aggregate = createMetricsAggregate({ instancesPerApplication: 2 })
  for (let i = 0; i < 5; i++)
    aggregate.seeInstance({ ...development, appName: 'app', instanceId: `i-${i}`, sdkVersion: `sdk:${i}`, lastSeenAt: i })
  aggregate.seeInstance({ ...development, appName: 'app', instanceId: 'i-0', lastSeenAt: 10 })
  aggregate.seeInstance({ ...development, appName: 'other', instanceId: 'i-0', lastSeenAt: 10 })
  assert.equal(aggregate.size, 4, 'two instances of app, one sighting of it (sdk:2…4), one instance of other')
  const rows = toRows(
    aggregate.take(),
    () => undefined,
    (app) => (app === 'app' ? 'web-token' : null),
  )
  assert.deepEqual(
    rows.instances.map((row) => [row[0], row[1], row[3], row[7]]),
    [
      ['app', 'i-0', 'sdk:0', new Date(10).toISOString()],
      ['app', 'i-1', 'sdk:1', new Date(1).toISOString()],
      ['other', 'i-0', null, new Date(10).toISOString()],
    ],
  )
  assert.deepEqual(rows.applications, [
    ['app', null, 'sdk:0', new Date(10).toISOString(), 'web-token'],
    ['other', null, null, new Date(10).toISOString(), null],
  ])
})
