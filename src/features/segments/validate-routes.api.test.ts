/** POST /segments/validate (a segment name free?) and POST /constraints/validate (one constraint valid?): they write nothing. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { eventMark } from '../../../test/helpers/flags.ts'

const SEGMENTS = '/api/admin/segments/validate'
const CONSTRAINTS = '/api/admin/constraints/validate'

/** A 400 whose details are `problems`, its message the first one's. */
const invalid = (...problems: Array<{ path: string; message: string }>) => ({
  name: 'ValidationError',
  message: problems[0]!.message,
  details: problems,
})

onEachDatabase('validation routes', (database) => {
  test('POST /segments/validate: 204 for a free name; 409 for a taken one (outer whitespace trimmed); 400 for an empty one', async (t) => {
    const pennon = await useTestApp(t, database)
    const created = await call(pennon, 'POST', '/api/admin/segments', { name: 'beta', constraints: [] })
    assert.equal(created.status, 201)
    const viewer = await serviceAccountToken(pennon, 3)
    const mark = await eventMark(pennon)
    const free = await call(pennon, 'POST', SEGMENTS, { name: 'gamma' }, { token: viewer })
    assert.equal(free.status, 204)
    assert.equal(free.text, '')
    // Names are case-sensitive, as segment creation's.
    assert.equal((await call(pennon, 'POST', SEGMENTS, { name: 'Beta' })).status, 204)

    for (const name of ['beta', '  beta ']) {
      const taken = await call(pennon, 'POST', SEGMENTS, { name })
      assert.equal(taken.status, 409)
      assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', 'A segment named "beta" already exists.'))
    }
    const empty = await call(pennon, 'POST', SEGMENTS, { name: ' ' })
    assert.equal(empty.status, 400)
    assert.deepEqual(
      withoutId(empty.body),
      invalid({ path: '/body/name', message: 'The `/body/name` property must not be empty or only whitespace. You sent " ".' }),
    )
    // The reference's nameSchema takes nothing else.
    const extra = await call(pennon, 'POST', SEGMENTS, { name: 'x', constraints: [] })
    assert.equal(extra.status, 400)
    assert.equal(extra.body.details[0].path, '/body/constraints')
    assert.deepEqual(await mark.since(), [])
  })

  test('POST /constraints/validate: 204 for a valid constraint; 400 naming every rule broken, legal values included', async (t) => {
    const pennon = await useTestApp(t, database)
    const field = await call(pennon, 'POST', '/api/admin/context', { name: 'plan', legalValues: [{ value: 'free' }, { value: 'pro' }] })
    assert.equal(field.status, 201)
    const viewer = await serviceAccountToken(pennon, 3)
    const mark = await eventMark(pennon)
    for (const constraint of [
      { contextName: 'plan', operator: 'IN', values: ['free', 'pro'] },
      { contextName: 'appVersion', operator: 'SEMVER_GT', value: '1.2.3', inverted: true },
      { contextName: 'unknownField', operator: 'NUM_LT', value: '42', caseInsensitive: false },
    ]) {
      const valid = await call(pennon, 'POST', CONSTRAINTS, constraint, { token: viewer })
      assert.equal(valid.status, 204, JSON.stringify(constraint))
      assert.equal(valid.text, '')
    }

    const illegal = await call(pennon, 'POST', CONSTRAINTS, { contextName: 'plan', operator: 'IN', values: ['free', 'gold'] })
    assert.equal(illegal.status, 400)
    assert.deepEqual(
      withoutId(illegal.body),
      invalid({
        path: '/body/values/1',
        message: 'The `/body/values/1` property must be a legal value of context field "plan" ("free", "pro"). You sent "gold".',
      }),
    )
    const semver = await call(pennon, 'POST', CONSTRAINTS, { contextName: 'appVersion', operator: 'SEMVER_EQ', value: '1.2' })
    assert.equal(semver.status, 400)
    assert.deepEqual(
      withoutId(semver.body),
      invalid({
        path: '/body/value',
        message:
          'The `/body/value` property must be a strict semantic version MAJOR.MINOR.PATCH[-prerelease][+build] (e.g. 1.2.3 or 2.0.0-beta.1) for the SEMVER_EQ operator. You sent "1.2".',
      }),
    )
    const noValues = await call(pennon, 'POST', CONSTRAINTS, { contextName: 'userId', operator: 'IN' })
    assert.equal(noValues.status, 400)
    assert.deepEqual(
      withoutId(noValues.body),
      invalid({
        path: '/body/values',
        message:
          'The `/body/values` property is required for the IN operator: it needs at least one value. It was not present on the data you sent.',
      }),
    )
    // Unknown properties are refused, as the reference's.
    const extra = await call(pennon, 'POST', CONSTRAINTS, { contextName: 'userId', operator: 'IN', values: ['a'], name: 'x' })
    assert.equal(extra.status, 400)
    assert.equal(extra.body.details[0].path, '/body/name')
    assert.deepEqual(await mark.since(), [])
  })
})
