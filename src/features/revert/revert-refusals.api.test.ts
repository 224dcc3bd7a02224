/**
 * What a revert refuses, through the real app: later events that changed the same things (409
 * naming them, unless force=true), an event type that cannot be reverted (400), an unknown event
 * (404), a read-only credential (403), an archived or deleted flag, a segment that is gone; and a
 * revert with nothing left to change (an empty diff, no event).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, apiToken, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { archive, createFlag, deleteFlags, projectPath } from '../../../test/helpers/flags.ts'
import { addStrategy, placePath, strategiesPath } from '../../../test/helpers/strategies.ts'
import { REVERT_PERMISSIONS } from './revert-diff.ts'
import { dryRunThenApply, lastEvent, revert } from '../../../test/helpers/revert.ts'

const variant = (name: string, weight = 1000) => ({ name, weight, weightType: 'variable', stickiness: 'default', overrides: [] })

onEachDatabase('revert refusals', (database) => {
  test('a later event that changed the same thing: 409 naming it (dry run too); force=true reverts anyway; other fields or places are no conflict', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const variants = `${placePath('checkout', 'development')}/variants`
    assert.equal((await call(pennon, 'PUT', variants, [{ name: 'blue' }])).status, 200)
    const first = await lastEvent(pennon, 'feature-environment-variants-updated')
    assert.equal((await call(pennon, 'PUT', variants, [{ name: 'red' }])).status, 200)
    const second = await lastEvent(pennon, 'feature-environment-variants-updated')
    // Not the same things: another environment's variants, the switch.
    assert.equal((await call(pennon, 'PUT', `${placePath('checkout', 'production')}/variants`, [{ name: 'green' }])).status, 200)

    const message = `Event ${first.id} cannot be reverted: later events changed the same things (event ${second.id}, feature-environment-variants-updated). Send force=true to revert anyway.`
    const refused = {
      name: 'InvalidOperationError',
      message,
      details: [
        {
          message: `Event ${second.id} (feature-environment-variants-updated) by "admin" at ${second.createdAt} changed the same variants in "development" since.`,
          eventId: second.id,
          eventType: second.type,
        },
      ],
    }
    const count = (await allEvents(pennon)).length
    for (const query of ['', '?dryRun=true', '?force=false']) {
      const response = await revert(pennon, first.id, query)
      assert.equal(response.status, 409, response.text)
      assert.deepEqual(withoutId(response.body), refused)
    }
    assert.equal((await allEvents(pennon)).length, count)
    await dryRunThenApply(pennon, first, [{ kind: 'variants', environment: 'development', from: [variant('red')], to: [] }], 'force=true')
    assert.deepEqual((await call(pennon, 'GET', variants)).body, { version: 1, variants: [] })

    // Metadata conflicts field by field: a later type change does not touch the description.
    assert.equal(
      (await call(pennon, 'PATCH', `${projectPath()}/features/checkout`, [{ op: 'replace', path: '/description', value: 'Pay' }])).status,
      200,
    )
    const described = await lastEvent(pennon, 'feature-metadata-updated')
    assert.equal(
      (await call(pennon, 'PATCH', `${projectPath()}/features/checkout`, [{ op: 'replace', path: '/type', value: 'experiment' }])).status,
      200,
    )
    await dryRunThenApply(pennon, described, [{ kind: 'metadata', field: 'description', from: 'Pay', to: null }])
  })

  test('nothing left to change (already reverted, forced): 200 with an empty diff and no event', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    assert.equal((await call(pennon, 'PUT', `${projectPath()}/features/checkout`, { description: 'Pay' })).status, 200)
    const described = await lastEvent(pennon, 'feature-metadata-updated')
    assert.equal((await revert(pennon, described.id)).status, 200)
    // Its own revert is a later change of the description: a conflict, and forced, nothing to do.
    assert.equal((await revert(pennon, described.id)).status, 409)
    assert.deepEqual(await dryRunThenApply(pennon, described, [], 'force=true'), [])
  })

  test('an event that cannot be reverted: 400; an unknown event: 404; a malformed id: 400', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const created = await lastEvent(pennon, 'feature-created')
    const response = await revert(pennon, created.id, '?dryRun=true')
    assert.equal(response.status, 400, response.text)
    const message =
      `Event ${created.id} is a "feature-created" event, which cannot be reverted. Revertible: feature-metadata-updated, feature-stale-on, feature-stale-off, ` +
      'feature-environment-enabled, feature-environment-disabled, feature-strategy-add, feature-strategy-update, feature-strategy-remove, ' +
      'feature-environment-variants-updated, feature-dependency-added, feature-dependency-removed, feature-dependencies-removed.'
    assert.deepEqual(withoutId(response.body), { name: 'ValidationError', message, details: [{ path: '/params/id', message }] })

    const missing = await revert(pennon, 999999)
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'Event 999999 does not exist.'))
    const malformed = await call(pennon, 'POST', '/api/admin/events/abc/revert')
    assert.equal(malformed.status, 400)
    assert.equal(malformed.body.details[0].path, '/params/id')
    const badQuery = await revert(pennon, created.id, '?dryRun=yes')
    assert.equal(badQuery.status, 400)
  })

  test('permissions: a read-only service account and a client token get 403; an editor may revert', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    assert.equal((await call(pennon, 'PUT', `${projectPath()}/features/checkout`, { description: 'Pay' })).status, 200)
    const described = await lastEvent(pennon, 'feature-metadata-updated')
    const viewer = await revert(pennon, described.id, '?dryRun=true', await serviceAccountToken(pennon, 3))
    assert.equal(viewer.status, 403)
    const needed = `Missing permission: this operation needs one of ${REVERT_PERMISSIONS.map((p) => `"${p}"`).join(', ')}.`
    assert.deepEqual(withoutId(viewer.body), errorOf('NoAccessError', needed, { permissions: [...REVERT_PERMISSIONS] }))
    assert.equal((await revert(pennon, described.id, '', await apiToken(pennon, 'client'))).status, 403)
    const editor = await revert(pennon, described.id, '', await serviceAccountToken(pennon, 2))
    assert.equal(editor.status, 200, editor.text)
    assert.equal(editor.body.changes.length, 1)
  })

  test('an archived flag: 400 (revive it first); a deleted flag: 409 naming its deletion', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    assert.equal((await call(pennon, 'PUT', `${projectPath()}/features/checkout`, { description: 'Pay' })).status, 200)
    const described = await lastEvent(pennon, 'feature-metadata-updated')
    assert.equal((await archive(pennon, ['checkout'])).status, 202)
    const archived = await revert(pennon, described.id)
    assert.equal(archived.status, 400)
    assert.deepEqual(
      withoutId(archived.body),
      errorOf('ArchivedFeatureError', 'Flag "checkout" is archived: revive it before changing it.'),
    )

    assert.equal((await deleteFlags(pennon, ['checkout'])).status, 200)
    const deletion = await lastEvent(pennon, 'feature-deleted')
    // A new flag of the same name is another flag: the old one's events stay unrevertible.
    await createFlag(pennon, 'checkout')
    const deleted = await revert(pennon, described.id, '?force=true')
    assert.equal(deleted.status, 409)
    assert.deepEqual(withoutId(deleted.body), {
      name: 'InvalidOperationError',
      message: `Event ${described.id} cannot be reverted: flag "checkout" was deleted since (event ${deletion.id}).`,
      details: [{ message: 'Flag "checkout" was deleted.', eventId: deletion.id, eventType: 'feature-deleted' }],
    })
  })

  test('a strategy whose segment is gone cannot be restored: 409; nor a state in an environment the project no longer has', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const segment = await call(pennon, 'POST', '/api/admin/segments', { name: 'nordics', constraints: [] })
    const strategy = await addStrategy(pennon, 'checkout', 'development', { name: 'default', segments: [segment.body.id] })
    assert.equal((await call(pennon, 'DELETE', `${strategiesPath('checkout', 'development')}/${strategy.id}`)).status, 200)
    const removed = await lastEvent(pennon, 'feature-strategy-remove')
    assert.equal((await call(pennon, 'DELETE', `/api/admin/segments/${segment.body.id}`)).status, 204)
    const response = await revert(pennon, removed.id, '?dryRun=true')
    assert.equal(response.status, 409)
    assert.deepEqual(
      withoutId(response.body),
      errorOf(
        'InvalidOperationError',
        `Event ${removed.id} cannot be reverted: the strategy "${strategy.id}" it would restore uses segment ${segment.body.id}, which no longer exists.`,
      ),
    )

    assert.equal((await call(pennon, 'POST', `${placePath('checkout', 'production')}/on`)).status, 200)
    const enabled = await lastEvent(pennon, 'feature-environment-enabled')
    assert.equal((await call(pennon, 'DELETE', `${projectPath()}/environments/production`)).status, 200)
    const gone = await revert(pennon, enabled.id)
    assert.equal(gone.status, 409)
    assert.match(gone.body.message, new RegExp(`^Event ${enabled.id} cannot be reverted: `))
  })
})
