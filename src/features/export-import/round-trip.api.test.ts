/**
 * Pennon to Pennon: an export imported into another fresh Pennon serves the same flags; a
 * re-import changes nothing that is already so; an import writes the events of the equivalent
 * admin calls, is all or nothing, and asks for the permissions the reference's validate lists.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, onEachDatabase, serviceAccountToken, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { clientFeatures, exportFlags, fixture, importFlags, prepareTarget, validateImport } from '../../../test/helpers/export-import.ts'

/** A Pennon holding the fixtures' source state in both environments (imported from Unleash's files). */
async function sourceLike(t: Parameters<typeof useTestApp>[0], database: Parameters<typeof useTestApp>[1]): Promise<TestApp> {
  const pennon = await useTestApp(t, database)
  await prepareTarget(pennon)
  for (const environment of ['development', 'production']) {
    const response = await importFlags(pennon, { project: 'default', environment, data: fixture(`export-${environment}.json`) })
    assert.equal(response.status, 200, response.text)
  }
  return pennon
}

/** An export's links without their ids (each server makes its own). */
const linksWithoutIds = (body: any) =>
  body.links.map(({ feature, links }: any) => ({ feature, links: links.map(({ id: _id, ...link }: any) => link) }))

const served = async (pennon: TestApp, environment: string) => (await clientFeatures(pennon, environment)).features

onEachDatabase('export and import between Pennons', (database) => {
  test('export → import into a fresh Pennon: the same client features, flag by flag, in both environments', async (t) => {
    const source = await sourceLike(t, database)
    const target = await useTestApp(t, database)
    await prepareTarget(target)
    for (const environment of ['development', 'production']) {
      const exported = await exportFlags(source, { environment, project: 'default' })
      assert.equal(exported.status, 200, exported.text)
      assert.equal(exported.body.features.length, 40)
      // The links imported from Unleash's file (ids are Pennon's own).
      assert.deepEqual(linksWithoutIds(exported.body), linksWithoutIds(fixture(`export-${environment}.json`)))
      const response = await importFlags(target, { project: 'default', environment, data: exported.body })
      assert.equal(response.status, 200, response.text)
    }
    // Strategy order is kept (the export lists them in evaluation order), so the answers are equal as they are.
    for (const environment of ['development', 'production'])
      assert.deepEqual(await served(target, environment), await served(source, environment))
    // Exported again, the target says what the source said, but for the new strategy and link ids.
    const withoutIds = (body: any) => ({
      ...body,
      featureStrategies: body.featureStrategies.map(({ id: _id, ...rest }: any) => rest),
      links: linksWithoutIds(body),
    })
    const again = await exportFlags(target, { environment: 'production', features: [] })
    assert.deepEqual(withoutIds(again.body), withoutIds((await exportFlags(source, { environment: 'production' })).body))
  })

  test('a migration keeps the links: exported with them, imported into a fresh Pennon, the flags read the same links', async (t) => {
    const source = await useTestApp(t, database)
    const target = await useTestApp(t, database)
    const flagPath = '/api/admin/projects/default/features'
    for (const name of ['linked', 'plain']) assert.equal((await call(source, 'POST', flagPath, { name })).status, 201)
    for (const link of [
      { url: 'https://issues.example.com/T-1', title: 'Ticket' },
      { url: 'dashboards.example.com/d/42?from=now-1h' },
      { url: 'http://wiki.example.com/flags#linked', title: null },
    ])
      assert.equal((await call(source, 'POST', `${flagPath}/linked/link`, link)).status, 204)
    const exported = await exportFlags(source, { environment: 'development', project: 'default' })
    const sourceLinks = (await call(source, 'GET', `${flagPath}/linked`)).body.links
    assert.deepEqual(exported.body.links, [{ feature: 'linked', links: sourceLinks.map(({ feature: _f, ...link }: any) => link) }])
    assert.deepEqual(linksWithoutIds(exported.body), [
      {
        feature: 'linked',
        links: [
          { url: 'https://issues.example.com/T-1', title: 'Ticket' },
          { url: 'https://dashboards.example.com/d/42?from=now-1h', title: null },
          { url: 'http://wiki.example.com/flags#linked', title: null },
        ],
      },
    ])

    const imported = await importFlags(target, { project: 'default', environment: 'development', data: exported.body })
    assert.equal(imported.status, 200, imported.text)
    const targetLinks = (await call(target, 'GET', `${flagPath}/linked`)).body.links
    // New ids, the same links in the same order.
    assert.equal(targetLinks.length, 3)
    assert.ok(targetLinks.every((link: any, i: number) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(link.id) && link.id !== sourceLinks[i].id))
    const withoutId = ({ id: _id, ...link }: any) => link
    assert.deepEqual(targetLinks.map(withoutId), sourceLinks.map(withoutId))
    assert.deepEqual((await call(target, 'GET', `${flagPath}/plain`)).body.links, [])
    assert.deepEqual(
      (await allEvents(target)).filter((e) => e.type.startsWith('feature-link')).map((e) => [e.type, e.featureName, e.data]),
      [
        ['feature-link-added', 'linked', { url: 'https://issues.example.com/T-1', title: 'Ticket' }],
        ['feature-link-added', 'linked', { url: 'https://dashboards.example.com/d/42?from=now-1h' }],
        ['feature-link-added', 'linked', { url: 'http://wiki.example.com/flags#linked' }],
      ],
    )
    // Imported again: already so, nothing written.
    const before = (await allEvents(target)).length
    assert.equal((await importFlags(target, { project: 'default', environment: 'development', data: exported.body })).status, 200)
    assert.deepEqual(
      (await allEvents(target)).slice(before).map((e) => e.type),
      ['features-imported'],
    )
    assert.deepEqual((await call(target, 'GET', `${flagPath}/linked`)).body.links, targetLinks)
  })

  test('a re-import of the same file: validate warns of the flags it overwrites; strategies are replaced, nothing else changes', async (t) => {
    const pennon = await sourceLike(t, database)
    const exported = (
      await exportFlags(pennon, { environment: 'development', features: ['release.checkout-01', 'operational.onboarding-03'] })
    ).body
    assert.deepEqual(
      exported.features.map((f: { name: string }) => f.name),
      ['operational.onboarding-03', 'release.checkout-01'],
    )
    const body = { project: 'default', environment: 'development', data: exported }
    assert.deepEqual((await validateImport(pennon, body)).body.warnings, [
      {
        message: 'The following features already exist in this project and will be overwritten:',
        affectedItems: ['operational.onboarding-03', 'release.checkout-01'],
      },
    ])
    const before$ = await served(pennon, 'development')
    const before = (await allEvents(pennon)).length
    assert.equal((await importFlags(pennon, body)).status, 200)
    const events = (await allEvents(pennon)).slice(before)
    const strategies = exported.featureStrategies.length
    assert.deepEqual(
      events.map((e) => e.type),
      [...Array(strategies).fill('feature-strategy-add'), ...Array(strategies).fill('feature-strategy-remove'), 'features-imported'],
    )
    assert.ok(events.every((e) => e.groupId === events[0].groupId && e.createdBy === 'admin'))
    assert.deepEqual(events.at(-1).project, 'default')
    assert.deepEqual(events.at(-1).environment, 'development')
    assert.deepEqual(await served(pennon, 'development'), before$)
  })

  test('an import into a fresh Pennon writes the events of the equivalent admin calls, in one group', async (t) => {
    const source = await sourceLike(t, database)
    const data = (
      await exportFlags(source, { environment: 'development', features: ['experiment.search-02', 'kill-switch.notifications-14'] })
    ).body
    const target = await useTestApp(t, database)
    assert.equal((await importFlags(target, { project: 'default', environment: 'development', data })).status, 200)
    const all = await allEvents(target)
    const events = all.filter((e) => e.groupId === all.at(-1).groupId)
    const types = events.map((e) => `${e.type}${e.featureName ? ` ${e.featureName}` : ''}`)
    assert.deepEqual(types, [
      'feature-created experiment.search-02',
      'feature-created kill-switch.notifications-14',
      'feature-environment-variants-updated experiment.search-02',
      ...(data.featureTags.length > 0 ? types.filter((type) => type.startsWith('tag-') || type.startsWith('feature-tagged')) : []),
      ...types.filter((type) => type.startsWith('context-field-created')),
      ...data.featureStrategies.map((s: { featureName: string }) => `feature-strategy-add ${s.featureName}`),
      ...data.featureEnvironments
        .filter((e: { enabled: boolean }) => e.enabled)
        .map((e: { name: string }) => `feature-environment-enabled ${e.name}`),
      'feature-dependency-added kill-switch.notifications-14',
      'features-imported',
    ])
    assert.equal(new Set(events.map((e) => e.groupId)).size, 1)
  })

  test('all or nothing: a refusal found late (a strategy the rules refuse) leaves nothing behind, and says where in the file', async (t) => {
    const pennon = await useTestApp(t, database)
    const data = {
      features: [{ name: 'first' }, { name: 'second' }],
      featureStrategies: [
        { name: 'default', featureName: 'first' },
        { name: 'flexibleRollout', featureName: 'second', parameters: { rollout: '150' } },
      ],
      tagTypes: [],
    }
    const response = await importFlags(pennon, { project: 'default', environment: 'development', data })
    assert.equal(response.status, 400, response.text)
    assert.match(response.body.message, /^Strategy 1 \(of flag "second"\): /)
    assert.ok(
      response.body.details.every((d: { path?: string }) => d.path === undefined || d.path.startsWith('/body/data/featureStrategies/1')),
      response.text,
    )
    assert.deepEqual(
      (await allEvents(pennon)).map((e) => e.type),
      ['api-token-created'],
    )
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/default/features/first')).status, 404)
  })

  test('permissions: validate lists what a viewer lacks by display name; the import is a 403; an editor may import', async (t) => {
    const pennon = await useTestApp(t, database)
    const body = {
      project: 'default',
      environment: 'development',
      data: { features: [{ name: 'new-one' }], featureStrategies: [{ name: 'default', featureName: 'new-one' }], tagTypes: [] },
    }
    const viewer = await serviceAccountToken(pennon, 3)
    assert.deepEqual((await validateImport(pennon, body, viewer)).body.permissions, [
      {
        message: 'We detected you are missing the following permissions:',
        affectedItems: ['Update feature flags', 'Create activation strategies', 'Create feature flags'],
      },
    ])
    const refused = await importFlags(pennon, body, viewer)
    assert.equal(refused.status, 403)
    const editor = await serviceAccountToken(pennon, 2)
    assert.deepEqual((await validateImport(pennon, body, editor)).body, { errors: [], warnings: [], permissions: [] })
    assert.equal((await importFlags(pennon, body, editor)).status, 200)
  })

  test('export selection: by tag value across types with archived flags; downloadFile; the bounds', async (t) => {
    const pennon = await sourceLike(t, database)
    assert.equal(
      (await call(pennon, 'POST', '/api/admin/projects/default/features/release.search-26/environments/development/off')).status,
      200,
    )
    const tagged = await exportFlags(pennon, { environment: 'production', tag: 'payments', downloadFile: true })
    assert.equal(tagged.status, 200)
    assert.match(String(tagged.headers['content-disposition']), /^attachment; filename="export-\d{4}-\d{2}-\d{2}\.json"$/)
    const unleash = fixture('export-by-tag-payments.json')
    // The archived flag of Unleash's answer is not on this Pennon; the others are, tagged team:payments or component:payments.
    assert.deepEqual(
      tagged.body.features.map((f: any) => f.name),
      unleash.features.filter((f: any) => !f.archived).map((f: any) => f.name),
    )
    const tooMany = await exportFlags(pennon, { environment: 'development', features: Array.from({ length: 1001 }, (_, i) => `f${i}`) })
    assert.equal(tooMany.status, 400)
    const bad = await exportFlags(pennon, { environment: 'development', features: [1] })
    assert.equal(bad.status, 400)
    assert.equal(withoutId(bad.body).name, 'ValidationError')
  })
})
