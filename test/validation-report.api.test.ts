/**
 * A 400 lists every violation of a body: a wrong type in one field no longer hides a broken
 * field rule in another (the rules run on every field the schema found no fault in).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, onEachDatabase, useTestApp, withoutId } from './test-app.ts'

const URL_FRIENDLY = `must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or "..")`

/** The whole 400 body expected for these details: the first one's message, and how many more. */
function report(...details: Array<[path: string, message: string]>) {
  const more = details.length > 1 ? ` (${details.length - 1} more problem${details.length > 2 ? 's' : ''} listed in details)` : ''
  return { name: 'ValidationError', message: details[0]![1] + more, details: details.map(([path, message]) => ({ path, message })) }
}

onEachDatabase('validation reports', (database) => {
  test('schema faults and field rules are reported together, on every route with rules', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'flag' })).status, 201)
    const expect400 = async (url: string, body: unknown, expected: ReturnType<typeof report>) => {
      const response = await call(pennon, 'POST', url, body)
      assert.equal(response.status, 400, url)
      assert.deepEqual(withoutId(response.body), expected, url)
    }

    // The example: an empty name beside constraints that are not an array.
    await expect400(
      '/api/admin/segments',
      { name: '', constraints: 'x' },
      report(
        ['/body/constraints', 'The `/body/constraints` property must be array. You sent "x".'],
        ['/body/name', 'The `/body/name` property must not be empty or only whitespace. You sent "".'],
      ),
    )
    // Inside a list: a constraint with a wrong type does not hide another's bad value.
    await expect400(
      '/api/admin/segments',
      {
        name: 'ok',
        constraints: [
          { contextName: 'a', operator: 'NUM_GT', value: 'x' },
          { contextName: 5, operator: 'IN', values: ['a'] },
        ],
      },
      report(
        ['/body/constraints/1/contextName', 'The `/body/constraints/1/contextName` property must be string. You sent 5.'],
        [
          '/body/constraints/0/value',
          'The `/body/constraints/0/value` property must be a finite number (optional sign, digits with an optional fraction, optional exponent, e.g. -1.5 or 1e3) for the NUM_GT operator. You sent "x".',
        ],
      ),
    )
    await expect400(
      '/api/admin/projects/default/features',
      { name: 'bad name', type: 'nope' },
      report(
        [
          '/body/type',
          'The `/body/type` property must be one of "release", "experiment", "operational", "kill-switch", "permission", "sunset". You sent "nope".',
        ],
        ['/body/name', `The \`/body/name\` property ${URL_FRIENDLY}. You sent "bad name".`],
      ),
    )
    await expect400(
      '/api/admin/projects',
      { id: 'a b', name: 5 },
      report(
        ['/body/name', 'The `/body/name` property must be string. You sent 5.'],
        ['/body/id', `The \`/body/id\` property ${URL_FRIENDLY}. You sent "a b".`],
      ),
    )
    // Two field rules broken, no schema fault: both, from the service.
    await expect400(
      '/api/admin/environments',
      { name: 'a b', type: 'c d' },
      report(
        ['/body/name', `The \`/body/name\` property ${URL_FRIENDLY}. You sent "a b".`],
        ['/body/type', `The \`/body/type\` property ${URL_FRIENDLY}. You sent "c d".`],
      ),
    )
    await expect400(
      '/api/admin/api-tokens',
      { tokenName: 5, type: 'client', expiresAt: '2000-01-01T00:00:00Z' },
      report(
        ['/body/tokenName', 'The `/body/tokenName` property must be string. You sent 5.'],
        ['/body/expiresAt', 'The `/body/expiresAt` property must be in the future. You sent "2000-01-01T00:00:00Z".'],
      ),
    )
    const strategies = '/api/admin/projects/default/features/flag/environments/development/strategies'
    await expect400(
      strategies,
      { name: 'flexibleRollout', parameters: { rollout: '101' }, variants: [{ name: 'a', weight: 10, weightType: 'fix' }], title: 5 },
      report(
        ['/body/title', 'The `/body/title` property must be string or null. You sent 5.'],
        ['/body/parameters/rollout', 'The `/body/parameters/rollout` property must be a whole percentage from 0 to 100. You sent "101".'],
        [
          '/body/variants',
          "The `/body/variants` property's weights must sum to 1000 when every variant's weight is fixed. Yours sum to 10.",
        ],
      ),
    )
    // A patched strategy is reported the same way.
    const created = await call(pennon, 'POST', strategies, { name: 'default' })
    const patched = await call(pennon, 'PATCH', `${strategies}/${created.body.id}`, [
      { op: 'replace', path: '/title', value: 5 },
      { op: 'replace', path: '/name', value: 'nope' },
    ])
    assert.equal(patched.status, 400)
    assert.deepEqual(
      withoutId(patched.body),
      report(
        ['/body/title', 'The `/body/title` property must be string or null. You sent 5.'],
        [
          '/body/name',
          'The `/body/name` property must name a strategy this instance knows ("applicationHostname", "default", "flexibleRollout", "gradualRolloutRandom", "gradualRolloutSessionId", "gradualRolloutUserId", "remoteAddress", "userWithId"). You sent "nope".',
        ],
      ),
    )
  })
})
