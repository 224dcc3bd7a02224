/**
 * The console's exposure arithmetic (console/assets/js/exposure.js), from answers in the shape of
 * GET /api/admin/client-metrics/features/:name/raw.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { chartMaximum, exposureByEnvironment, timeAgo } from '../console/assets/js/exposure.js'

const H1 = '2030-01-01T10:00:00.000Z'
const H2 = '2030-01-01T11:00:00.000Z'
const count = (environment: string, appName: string, timestamp: string, yes: number, no: number) => ({
  featureName: 'f',
  appName,
  environment,
  timestamp,
  yes,
  no,
})

test("applications are added up per hour and environment; the flag's environments come first, with or without counts", () => {
  const data = [
    count('development', 'api', H1, 3, 1),
    count('development', 'web', H1, 2, 0),
    count('staging', 'api', H1, 0, 0),
    count('development', 'api', H2, 0, 0),
    count('development', 'web', H2, 10, 5),
    count('staging', 'api', H2, 1, 1),
  ]
  assert.deepEqual(exposureByEnvironment(data, ['production', 'development']), [
    {
      environment: 'production',
      hours: [
        { hour: H1, yes: 0, no: 0 },
        { hour: H2, yes: 0, no: 0 },
      ],
      yes: 0,
      no: 0,
    },
    {
      environment: 'development',
      hours: [
        { hour: H1, yes: 5, no: 1 },
        { hour: H2, yes: 10, no: 5 },
      ],
      yes: 15,
      no: 6,
    },
    {
      environment: 'staging',
      hours: [
        { hour: H1, yes: 0, no: 0 },
        { hour: H2, yes: 1, no: 1 },
      ],
      yes: 1,
      no: 1,
    },
  ])
  assert.deepEqual(exposureByEnvironment([], ['development']), [{ environment: 'development', hours: [], yes: 0, no: 0 }])
})

test("the chart's scale is a round number at or above the busiest hour", () => {
  const hours = (...totals: number[]) => totals.map((yes, i) => ({ hour: String(i), yes, no: 0 }))
  assert.equal(chartMaximum(hours()), 1)
  assert.equal(chartMaximum(hours(0, 0)), 1)
  assert.equal(chartMaximum(hours(3)), 5)
  assert.equal(chartMaximum(hours(10)), 10)
  assert.equal(chartMaximum(hours(11, 4)), 20)
  assert.equal(chartMaximum(hours(1000)), 1000)
  assert.equal(chartMaximum([{ hour: 'x', yes: 480, no: 520 }]), 1000)
  assert.equal(chartMaximum(hours(501)), 1000)
})

test('last seen in words', () => {
  const now = Date.parse('2030-01-02T12:00:00.000Z')
  assert.equal(timeAgo(null, now), 'never')
  assert.equal(timeAgo('2030-01-02T11:59:30.000Z', now), 'just now')
  assert.equal(timeAgo('2030-01-02T12:00:05.000Z', now), 'just now')
  assert.equal(timeAgo('2030-01-02T11:59:00.000Z', now), '1 minute ago')
  assert.equal(timeAgo('2030-01-02T10:30:00.000Z', now), '1 hour ago')
  assert.equal(timeAgo('2030-01-01T10:00:00.000Z', now), '1 day ago')
  assert.equal(timeAgo('2029-12-30T12:00:00.000Z', now), '3 days ago')
})
