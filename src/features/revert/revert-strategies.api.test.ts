/**
 * Reverting strategy events: an addition is deleted (the switch going off with the last active
 * strategy, in the diff too), an update goes back field by field, a removal is restored under its
 * own id with its segments; each checked through its dry run, its events and the client API.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { createFlag } from '../../../test/helpers/flags.ts'
import { addStrategy, listStrategies, placeEvent, strategiesPath, toggle } from '../../../test/helpers/strategies.ts'
import { clientFlag, dryRunThenApply, lastEvent } from '../../../test/helpers/revert.ts'

async function createSegment(pennon: TestApp, name: string): Promise<number> {
  const response = await call(pennon, 'POST', '/api/admin/segments', {
    name,
    constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }],
  })
  assert.equal(response.status, 201, response.text)
  return response.body.id
}

const rollout = (segment: number) => ({
  name: 'flexibleRollout',
  title: 'Nordics',
  parameters: { rollout: '50', stickiness: 'userId', groupId: 'checkout' },
  constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'], caseInsensitive: false, inverted: false }],
  variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }],
  segments: [segment],
})

/** A strategy as the client API shows it to an SDK that does not ask for segments apart: its segment's constraint inlined. */
const served = ({ id: _id, title: _t, disabled: _d, sortOrder: _s, segments: _g, ...strategy }: any) => ({
  ...strategy,
  constraints: [...strategy.constraints, { contextName: 'country', operator: 'IN', values: ['NO'] }],
})

onEachDatabase('revert strategies', (database) => {
  test('feature-strategy-add: the strategy is deleted; the last active one going switches the environment off, in the diff and the events', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'checkout')
    const strategy = await addStrategy(pennon, 'checkout', 'development', rollout(await createSegment(pennon, 'nordics')))
    const added = await lastEvent(pennon, 'feature-strategy-add', 'checkout')
    assert.equal((await toggle(pennon, 'checkout', 'development', 'on')).status, 200)

    assert.deepEqual(
      await dryRunThenApply(pennon, added, [
        { kind: 'strategy-removed', environment: 'development', strategy },
        { kind: 'enabled', environment: 'development', from: true, to: false },
      ]),
      [
        placeEvent('feature-strategy-remove', 'checkout', 'development', null, strategy),
        placeEvent('feature-environment-disabled', 'checkout', 'development'),
      ],
    )
    const seen = await clientFlag(pennon, client, 'checkout')
    assert.deepEqual([seen.enabled, seen.strategies], [false, []])
  })

  test('feature-strategy-update: every field it changed goes back (title, disabled, parameters, constraints, variants, segments)', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'checkout')
    const [nordics, everyone] = [await createSegment(pennon, 'nordics'), await createSegment(pennon, 'everyone')]
    const before = await addStrategy(pennon, 'checkout', 'development', rollout(nordics))
    const put = await call(pennon, 'PUT', `${strategiesPath('checkout', 'development')}/${before.id}`, {
      title: 'Everyone',
      disabled: true,
      parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' },
      constraints: [],
      variants: [],
      segments: [everyone],
    })
    assert.equal(put.status, 200, put.text)
    const after = put.body
    const updated = await lastEvent(pennon, 'feature-strategy-update', 'checkout')
    const fields = ['title', 'disabled', 'parameters', 'constraints', 'variants', 'segments'].map((field) => ({
      field,
      from: after[field],
      to: before[field],
    }))
    assert.deepEqual(
      await dryRunThenApply(pennon, updated, [{ kind: 'strategy-updated', environment: 'development', strategyId: before.id, fields }]),
      [placeEvent('feature-strategy-update', 'checkout', 'development', before, after)],
    )
    assert.deepEqual(await listStrategies(pennon, 'checkout', 'development'), [before])
    assert.equal((await toggle(pennon, 'checkout', 'development', 'on')).status, 200)
    assert.deepEqual((await clientFlag(pennon, client, 'checkout')).strategies, [served(before)])
  })

  test('feature-strategy-remove: the strategy comes back under its own id, with its segments', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'checkout')
    const strategy = await addStrategy(pennon, 'checkout', 'development', rollout(await createSegment(pennon, 'nordics')))
    await addStrategy(pennon, 'checkout', 'development', { name: 'default' })
    assert.equal((await call(pennon, 'DELETE', `${strategiesPath('checkout', 'development')}/${strategy.id}`)).status, 200)
    const removed = await lastEvent(pennon, 'feature-strategy-remove', 'checkout')
    assert.deepEqual(await dryRunThenApply(pennon, removed, [{ kind: 'strategy-added', environment: 'development', strategy }]), [
      placeEvent('feature-strategy-add', 'checkout', 'development', strategy),
    ])
    const [first] = await listStrategies(pennon, 'checkout', 'development')
    assert.deepEqual(first, strategy)
    assert.equal((await toggle(pennon, 'checkout', 'development', 'on')).status, 200)
    assert.deepEqual((await clientFlag(pennon, client, 'checkout')).strategies[0], served(strategy))
  })
})
