import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, eventually, onEachDatabase, useTestApp, useTwoInstances, withoutId } from '../../../test/test-app.ts'
import { createFlag, eventMark } from '../../../test/helpers/flags.ts'
import { addStrategy, assertEmpty, at, listStrategies, strategiesPath, validationError } from '../../../test/helpers/strategies.ts'

const CONTEXT = '/api/admin/context'

onEachDatabase('legal values in constraints', (database) => {
  test('a constraint on a field with legal values uses only those, in strategies (POST, PUT, PATCH) and segments; other fields take anything', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const body of [
      { name: 'plan', legalValues: [{ value: 'free' }, { value: 'pro', description: 'Paid' }] },
      { name: 'age', legalValues: ['18', '21', '30', '40', '50', '65', '80'].map((value) => ({ value })) },
      { name: 'open' },
    ])
      assert.equal((await call(pennon, 'POST', CONTEXT, body)).status, 201)
    await createFlag(pennon, 'f')
    const path = strategiesPath('f', 'development')
    const mark = await eventMark(pennon)

    const refused = await call(pennon, 'POST', path, {
      name: 'default',
      constraints: [
        { contextName: 'plan', operator: 'IN', values: ['free', 'gold', 'pro', 'Free'] },
        { contextName: 'age', operator: 'NUM_GT', value: '19' },
        { contextName: 'plan', operator: 'STR_CONTAINS', values: ['fr'] },
        { contextName: 'region', operator: 'IN', values: ['anything'] },
        { contextName: 'open', operator: 'IN', values: ['anything'] },
      ],
    })
    assert.equal(refused.status, 400)
    assert.deepEqual(
      withoutId(refused.body),
      validationError(
        at(
          '/body/constraints/0/values/1',
          'The `/body/constraints/0/values/1` property must be a legal value of context field "plan" ("free", "pro"). You sent "gold".',
        ),
        at(
          '/body/constraints/0/values/3',
          'The `/body/constraints/0/values/3` property must be a legal value of context field "plan" ("free", "pro"). You sent "Free".',
        ),
        at(
          '/body/constraints/1/value',
          'The `/body/constraints/1/value` property must be a legal value of context field "age" ("18", "21", "30", "40", "50" and 2 more). You sent "19".',
        ),
        at(
          '/body/constraints/2/values/0',
          'The `/body/constraints/2/values/0` property must be a legal value of context field "plan" ("free", "pro"). You sent "fr".',
        ),
      ),
    )
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(await listStrategies(pennon, 'f', 'development'), [])

    const constraints = [
      { contextName: 'plan', operator: 'NOT_IN', values: ['pro'] },
      { contextName: 'age', operator: 'NUM_GTE', value: '21' },
      { contextName: 'region', operator: 'IN', values: ['anything'] },
    ]
    const strategy = await addStrategy(pennon, 'f', 'development', { name: 'default', constraints })
    const put = await call(pennon, 'PUT', `${path}/${strategy.id}`, {
      name: 'default',
      constraints: [{ contextName: 'age', operator: 'NUM_LT', value: '99' }],
    })
    assert.equal(put.status, 400)
    assert.deepEqual(
      withoutId(put.body),
      validationError(
        at(
          '/body/constraints/0/value',
          'The `/body/constraints/0/value` property must be a legal value of context field "age" ("18", "21", "30", "40", "50" and 2 more). You sent "99".',
        ),
      ),
    )
    const patch = await call(pennon, 'PATCH', `${path}/${strategy.id}`, [{ op: 'add', path: '/constraints/0/values/-', value: 'gold' }])
    assert.equal(patch.status, 400)
    assert.equal(
      patch.body.details[0].message,
      'The `/body/constraints/0/values/1` property must be a legal value of context field "plan" ("free", "pro"). You sent "gold".',
    )

    // A legal value removed stays where constraints use it (as the reference), until they change.
    assertEmpty(await call(pennon, 'DELETE', `${CONTEXT}/plan/legal-values/pro`))
    // (A stored constraint always has `values`.)
    assert.deepEqual((await listStrategies(pennon, 'f', 'development'))[0].constraints, [
      constraints[0],
      { values: [], ...constraints[1] },
      constraints[2],
    ])
    const again = await call(pennon, 'PUT', `${path}/${strategy.id}`, { name: 'default', constraints })
    assert.equal(again.status, 400)
    assert.equal(
      again.body.message,
      'The `/body/constraints/0/values/0` property must be a legal value of context field "plan" ("free"). You sent "pro".',
    )

    const segment = await call(pennon, 'POST', '/api/admin/segments', {
      name: 'payers',
      constraints: [
        { contextName: 'open', operator: 'IN', values: ['x'] },
        { contextName: 'plan', operator: 'IN', values: ['pro'] },
      ],
    })
    assert.equal(segment.status, 400)
    assert.deepEqual(
      withoutId(segment.body),
      validationError(
        at(
          '/body/constraints/1/values/0',
          'The `/body/constraints/1/values/0` property must be a legal value of context field "plan" ("free"). You sent "pro".',
        ),
      ),
    )
    const created = await call(pennon, 'POST', '/api/admin/segments', {
      name: 'payers',
      constraints: [{ contextName: 'plan', operator: 'IN', values: ['free'] }],
    })
    assert.equal(created.status, 201, created.text)
    const updated = await call(pennon, 'PUT', `/api/admin/segments/${created.body.id}`, {
      name: 'payers',
      constraints: [{ contextName: 'plan', operator: 'IN', values: ['gold'] }],
    })
    assert.equal(updated.status, 400)
    assert.equal(
      updated.body.message,
      'The `/body/constraints/0/values/0` property must be a legal value of context field "plan" ("free"). You sent "gold".',
    )
  })

  test('the legal values a check remembers are read again after a change: by this instance, another one, or by hand', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    assert.equal((await call(first, 'POST', CONTEXT, { name: 'plan' })).status, 201)
    let n = 0
    const segment = (pennon: typeof first, value: string) =>
      call(pennon, 'POST', '/api/admin/segments', {
        name: `s${++n}`,
        constraints: [{ contextName: 'plan', operator: 'IN', values: [value] }],
      })
    // Both instances check (and remember) the field without legal values.
    for (const pennon of [first, second]) assert.equal((await segment(pennon, 'gold')).status, 201)
    assertEmpty(await call(first, 'POST', `${CONTEXT}/plan/legal-values`, { value: 'free' }))
    assert.equal((await segment(first, 'gold')).status, 400)
    await eventually(async () => (await segment(second, 'gold')).status === 400, 'the other instance refuses the value')
    assert.equal((await segment(second, 'free')).status, 201)
    // By hand: no event, but the database says it changed.
    await first.database.db.updateTable('context_fields').set({ legal_values: '[]' }).where('name', '=', 'plan').execute()
    await eventually(async () => (await segment(second, 'gold')).status === 201, 'the other instance takes any value again')
  })
})
