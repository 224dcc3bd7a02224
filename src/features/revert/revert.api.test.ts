/**
 * POST /api/admin/events/:id/revert for a flag's metadata, stale marks, switches, variants and
 * dependencies: each dry run's exact diff, then the revert itself, the events it writes (those
 * of the equivalent admin calls) and what the client API shows afterwards.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, onEachDatabase, useTestApp } from '../../../test/test-app.ts'
import { addDependency, createFlag, projectPath } from '../../../test/helpers/flags.ts'
import { placeEvent, placePath, toggle } from '../../../test/helpers/strategies.ts'
import { clientFlag, dryRunThenApply, lastEvent } from '../../../test/helpers/revert.ts'

const flagEvent = (type: string, featureName: string, data: unknown = null, preData: unknown = null) =>
  placeEvent(type, featureName, null as unknown as string, data, preData)
const variant = (name: string) => ({ name, weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [] })

onEachDatabase('revert', (database) => {
  test('feature-metadata-updated: the fields it changed go back (description, type, stale), with the events of a PUT; feature-stale-on: the flag is not stale', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    const created = await createFlag(pennon, 'checkout', 'default', { description: 'Old', impressionData: true })
    const put = await call(pennon, 'PUT', `${projectPath()}/features/checkout`, {
      description: 'New',
      type: 'experiment',
      stale: true,
      impressionData: true,
    })
    assert.equal(put.status, 200, put.text)
    const updated = await lastEvent(pennon, 'feature-metadata-updated', 'checkout')
    const changed = { ...created, description: 'New', type: 'experiment', stale: true }

    const written = await dryRunThenApply(pennon, updated, [
      { kind: 'metadata', field: 'description', from: 'New', to: 'Old' },
      { kind: 'metadata', field: 'type', from: 'experiment', to: 'release' },
      { kind: 'metadata', field: 'stale', from: true, to: false },
    ])
    assert.deepEqual(written, [
      flagEvent('feature-metadata-updated', 'checkout', created, changed),
      flagEvent('feature-stale-off', 'checkout'),
    ])
    const seen = await clientFlag(pennon, client, 'checkout')
    assert.deepEqual([seen.description, seen.type, seen.stale, seen.impressionData], ['Old', 'release', false, true])

    // Marked stale through the bulk route: its revert is the same route's unmarking, one event.
    assert.equal((await call(pennon, 'POST', `${projectPath()}/stale`, { features: ['checkout'], stale: true })).status, 202)
    const staleOn = await lastEvent(pennon, 'feature-stale-on', 'checkout')
    assert.deepEqual(await dryRunThenApply(pennon, staleOn, [{ kind: 'metadata', field: 'stale', from: true, to: false }]), [
      flagEvent('feature-stale-off', 'checkout'),
    ])
    assert.equal((await clientFlag(pennon, client, 'checkout')).stale, false)
    // And the unmarking reverted: stale again.
    const staleOff = await lastEvent(pennon, 'feature-stale-off', 'checkout')
    assert.deepEqual(await dryRunThenApply(pennon, staleOff, [{ kind: 'metadata', field: 'stale', from: false, to: true }]), [
      flagEvent('feature-stale-on', 'checkout'),
    ])
    assert.equal((await clientFlag(pennon, client, 'checkout')).stale, true)
  })

  test('feature-environment-enabled/disabled: the switch goes back; switching on where no strategy is active adds the default one, in the diff too', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'checkout')
    assert.equal((await toggle(pennon, 'checkout', 'development', 'on')).status, 200)
    const enabled = await lastEvent(pennon, 'feature-environment-enabled', 'checkout')
    assert.deepEqual(await dryRunThenApply(pennon, enabled, [{ kind: 'enabled', environment: 'development', from: true, to: false }]), [
      placeEvent('feature-environment-disabled', 'checkout', 'development'),
    ])
    assert.equal((await clientFlag(pennon, client, 'checkout')).enabled, false)
    // The revert's own event reverted: on again, its strategy still there.
    const disabled = await lastEvent(pennon, 'feature-environment-disabled', 'checkout')
    assert.deepEqual(await dryRunThenApply(pennon, disabled, [{ kind: 'enabled', environment: 'development', from: false, to: true }]), [
      placeEvent('feature-environment-enabled', 'checkout', 'development'),
    ])
    assert.equal((await clientFlag(pennon, client, 'checkout')).enabled, true)

    // Off, then its only strategy deleted: switching back on adds the default strategy (a new id each time).
    assert.equal((await toggle(pennon, 'checkout', 'development', 'off')).status, 200)
    const off = await lastEvent(pennon, 'feature-environment-disabled', 'checkout')
    const [strategy] = (await call(pennon, 'GET', `${placePath('checkout', 'development')}/strategies`)).body
    assert.equal((await call(pennon, 'DELETE', `${placePath('checkout', 'development')}/strategies/${strategy.id}`)).status, 200)
    const dry = await call(pennon, 'POST', `/api/admin/events/${off.id}/revert?dryRun=true`)
    assert.equal(dry.status, 200, dry.text)
    const added = (id: string) => ({ kind: 'strategy-added', environment: 'development', strategy: { ...strategy, id } })
    assert.deepEqual(dry.body.changes, [
      added(dry.body.changes[0].strategy.id),
      { kind: 'enabled', environment: 'development', from: false, to: true },
    ])
    const applied = await call(pennon, 'POST', `/api/admin/events/${off.id}/revert`)
    assert.equal(applied.status, 200, applied.text)
    const newId = applied.body.changes[0].strategy.id
    assert.deepEqual(applied.body.changes, [added(newId), { kind: 'enabled', environment: 'development', from: false, to: true }])
    const seen = await clientFlag(pennon, client, 'checkout')
    assert.deepEqual([seen.enabled, seen.strategies.length], [true, 1])
  })

  test('feature-environment-variants-updated: the variants before, with the event of a PUT', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'checkout')
    const variants = `${placePath('checkout', 'development')}/variants`
    assert.equal((await call(pennon, 'PUT', variants, [{ name: 'blue' }])).status, 200)
    assert.equal((await call(pennon, 'PUT', variants, [{ name: 'red' }, { name: 'green' }])).status, 200)
    const second = await lastEvent(pennon, 'feature-environment-variants-updated', 'checkout')
    const [blue, red, green] = [variant('blue'), { ...variant('red'), weight: 500 }, { ...variant('green'), weight: 500 }]
    assert.deepEqual(
      await dryRunThenApply(pennon, second, [{ kind: 'variants', environment: 'development', from: [green, red], to: [blue] }]),
      [placeEvent('feature-environment-variants-updated', 'checkout', 'development', { variants: [blue] }, { variants: [green, red] })],
    )
    assert.deepEqual((await call(pennon, 'GET', variants)).body, { version: 1, variants: [blue] })
    assert.deepEqual((await clientFlag(pennon, client, 'checkout')).variants, [blue])
  })

  test('feature-dependency-added/removed and feature-dependencies-removed: the dependency before, as the event log says it was', async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await createFlag(pennon, 'parent')
    await createFlag(pennon, 'child')
    assert.equal((await addDependency(pennon, 'child', { feature: 'parent', variants: ['v'] })).status, 200)
    const added = await lastEvent(pennon, 'feature-dependency-added', 'child')
    assert.deepEqual(await dryRunThenApply(pennon, added, [{ kind: 'dependency-removed', parent: 'parent' }]), [
      flagEvent('feature-dependency-removed', 'child', { feature: 'parent' }),
    ])
    assert.equal((await clientFlag(pennon, client, 'child')).dependencies, undefined)

    // The removal reverted: enabled and variants come from the addition before it.
    const removed = await lastEvent(pennon, 'feature-dependency-removed', 'child')
    const restored = [{ kind: 'dependency-added', parent: 'parent', enabled: true, variants: ['v'] }]
    assert.deepEqual(await dryRunThenApply(pennon, removed, restored), [
      flagEvent('feature-dependency-added', 'child', { feature: 'parent', enabled: true, variants: ['v'] }),
    ])
    assert.deepEqual((await clientFlag(pennon, client, 'child')).dependencies, [{ feature: 'parent', enabled: true, variants: ['v'] }])

    assert.equal((await call(pennon, 'DELETE', `${projectPath()}/features/child/dependencies`)).status, 200)
    const all = await lastEvent(pennon, 'feature-dependencies-removed', 'child')
    assert.deepEqual(await dryRunThenApply(pennon, all, restored), [
      flagEvent('feature-dependency-added', 'child', { feature: 'parent', enabled: true, variants: ['v'] }),
    ])
    assert.deepEqual((await clientFlag(pennon, client, 'child')).dependencies, [{ feature: 'parent', enabled: true, variants: ['v'] }])
  })
})
