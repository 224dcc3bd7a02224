/**
 * Unleash 8.2's own export files (recorded from a real server, test/helpers/export-import.ts)
 * imported into a fresh Pennon serve SDKs, flag by flag, what that Unleash served; and validate,
 * import and export answer as it did, following the recorded sequence: validate on a fresh target,
 * the prerequisites made, validate again, import, then the answers on the imported target.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, onEachDatabase, useTestApp, withoutId } from '../../../test/test-app.ts'
import {
  byName,
  clientFeatures,
  comparable,
  exportFlags,
  fixture,
  importFlags,
  prepareTarget,
  validateImport,
} from '../../../test/helpers/export-import.ts'

const development = fixture('export-development.json')
const recorded = (name: string) => fixture(name).body

/** Each of the source's served flags that the file holds is served alike (normalised as comparable() says), in both client-spec forms. */
async function assertServedAsSource(
  pennon: Parameters<typeof clientFeatures>[0],
  environment: string,
  names: readonly string[],
  source = `client-features-${environment}`,
) {
  for (const spec of [undefined, '5.2.0']) {
    const unleash = byName(fixture(`${source}${spec ? `.spec-${spec}` : ''}.json`))
    const served = byName(await clientFeatures(pennon, environment, spec))
    const expected = names.filter((name) => unleash.has(name))
    assert.ok(expected.length > 0)
    for (const name of expected)
      assert.deepEqual(comparable(served.get(name)), comparable(unleash.get(name)), `${name} in ${environment} (spec ${spec ?? 'none'})`)
  }
}

onEachDatabase('import of Unleash 8.2 export files', (database) => {
  test('the recorded sequence: validate fresh, prepare, validate, import, then validate and export on the target', async (t) => {
    const pennon = await useTestApp(t, database)
    const body = { project: 'default', environment: 'production', data: development }
    const fresh = await validateImport(pennon, body)
    assert.equal(fresh.status, 200, fresh.text)
    assert.deepEqual(fresh.body, recorded('import-validate-fresh.json'))

    const unprepared = await importFlags(pennon, body)
    assert.equal(unprepared.status, 400)
    const refusal = recorded('import-fresh-unprepared-result.json')
    // Pennon's one error shape: details carry the message only (the reference repeats it as `description`).
    assert.deepEqual(withoutId(unprepared.body), {
      name: 'ValidationError',
      message: 'Some of the strategies you are trying to import are not supported.',
      details: refusal.details.map(({ message }: { message: string }) => ({ message })),
    })

    await prepareTarget(pennon)
    assert.deepEqual((await validateImport(pennon, body)).body, recorded('import-validate-fresh-prepared.json'))
    const imported = await importFlags(pennon, body)
    assert.equal(imported.status, 200, imported.text)
    assert.equal(imported.text, '')

    // The development file went to production: what the target serves there is what the source served in development…
    await assertServedAsSource(
      pennon,
      'production',
      development.features.map((f: { name: string }) => f.name),
      'client-features-development',
    )
    // …and what the reference's target served after the same import.
    const after = byName(fixture('after-import-client-features-production.json'))
    const served = byName(await clientFeatures(pennon, 'production'))
    assert.deepEqual([...served.keys()].sort(), [...after.keys()].sort())
    for (const [name, flag] of after) assert.deepEqual(comparable(served.get(name)), comparable(flag), name)

    // Its export of production is the reference target's, but for the ids it made (strategies, links) and strategy order.
    const exported = await exportFlags(pennon, { ...fixture('export-production.request.json') })
    assert.equal(exported.status, 200, exported.text)
    assert.deepEqual(normalisedExport(exported.body), normalisedExport(fixture('after-import-export-production.json')))

    // Validate answers on the imported target.
    assert.deepEqual((await validateImport(pennon, body)).body, recorded('import-validate-reimport-existing.json'))
    const features = [
      ...development.features,
      { ...development.features.find((f: { name: string }) => f.name === 'experiment.billing-12') },
    ]
    features.push({
      name: 'old.banner-2019',
      description: 'archived on the source',
      type: 'release',
      project: 'default',
      stale: false,
      impressionData: false,
      archived: true,
    })
    assert.deepEqual(
      (await validateImport(pennon, { ...body, data: { ...development, features } })).body,
      recorded('import-validate-error-duplicate-and-archived.json'),
    )
    // (The recorded request carried no custom strategies: its answer has no warning about them.)
    const illegal = {
      ...development,
      featureStrategies: [],
      contextFields: [{ name: 'region', description: 'Region', stickiness: false, sortOrder: 0, legalValues: [{ value: 'mars-1' }] }],
    }
    assert.deepEqual(
      (await validateImport(pennon, { ...body, data: illegal })).body,
      recorded('import-validate-error-illegal-context-value.json'),
    )
    const unknownRefs = {
      ...development,
      features: [
        ...development.features,
        {
          name: 'release.unknown-refs',
          description: null,
          type: 'release',
          project: 'default',
          stale: false,
          impressionData: false,
          archived: false,
        },
      ],
      featureStrategies: [
        ...development.featureStrategies,
        {
          name: 'noSuchStrategy',
          featureName: 'release.unknown-refs',
          parameters: {},
          constraints: [{ contextName: 'noSuchField', operator: 'IN', values: ['x'] }],
          segments: [9999],
        },
      ],
      segments: [...development.segments, { id: 9999, name: 'no-such-segment' }],
      dependencies: [...development.dependencies, { feature: 'release.unknown-refs', dependencies: [{ feature: 'missing.parent' }] }],
    }
    assert.deepEqual(
      (await validateImport(pennon, { ...body, data: unknownRefs })).body,
      recorded('import-validate-error-unknown-refs.json'),
    )
    assert.deepEqual(
      (await validateImport(pennon, { ...body, project: 'no-such-project', environment: 'staging' })).body,
      recorded('import-validate-unknown-project-env.json'),
    )

    const missing = fixture('import-validate-error-bad-body-missing-required.json')
    const bad = await validateImport(pennon, missing.request)
    assert.equal(bad.status, 400)
    assert.deepEqual(
      bad.body.details.map((d: { path: string }) => d.path),
      missing.body.details.map((d: { path: string }) => d.path),
    )
  })

  for (const [file, environment] of [
    ['export-development.json', 'development'],
    ['export-production.json', 'production'],
    ['export-by-tag-web.json', 'development'],
    ['export-by-tag-payments.json', 'production'],
  ] as const) {
    test(`${file} into a fresh Pennon's ${environment}: each flag served as the source served it`, async (t) => {
      const pennon = await useTestApp(t, database)
      await prepareTarget(pennon)
      const data = fixture(file)
      // A parent the file lacks must exist first, here as on the reference.
      for (const { dependencies } of data.dependencies) {
        for (const { feature } of dependencies) {
          if (data.features.some((f: { name: string }) => f.name === feature)) continue
          const validation = await validateImport(pennon, { project: 'default', environment, data })
          assert.deepEqual(validation.body.errors, [
            { message: 'We detected the following dependencies that need to be created first:', affectedItems: [feature] },
          ])
          assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features', { name: feature })).status, 201)
        }
      }
      const response = await importFlags(pennon, { project: 'default', environment, data })
      assert.equal(response.status, 200, response.text)
      const names = data.features.map((f: { name: string }) => f.name)
      await assertServedAsSource(pennon, environment, names)
      // A flag archived on the source is not archived here: it is imported as an active flag, as the reference does.
      const served = byName(await clientFeatures(pennon, environment))
      assert.ok(names.every((name: string) => served.has(name)))
    })
  }

  test('an export by tag TYPE:VALUE matches nothing (the reference matches the value alone)', async (t) => {
    const pennon = await useTestApp(t, database)
    const response = await exportFlags(pennon, fixture('export-by-tag-type-colon-value.request.json'))
    assert.equal(response.status, 200, response.text)
    assert.deepEqual(response.body, fixture('export-by-tag-type-colon-value.json'))
    assert.equal((await call(pennon, 'POST', '/api/admin/features-batch/export', { environment: 'development', features: [] })).status, 200)
  })
})

/** An export without what a target makes anew: strategy ids, segment ids (names kept), link ids; strategies as a set per flag. */
function normalisedExport(result: any): any {
  const segmentName = new Map<number, string>(result.segments.map((s: { id: number; name: string }) => [s.id, s.name]))
  const strategies = result.featureStrategies
    .map(({ id: _id, segments, ...rest }: any) => ({ ...rest, segments: segments.map((id: number) => segmentName.get(id)).sort() }))
    .sort((a: any, b: any) => (JSON.stringify([a.featureName, a]) < JSON.stringify([b.featureName, b]) ? -1 : 1))
  return {
    ...result,
    featureStrategies: strategies,
    // Environment variants without an empty `overrides` (as comparable()).
    featureEnvironments: result.featureEnvironments.map((environment: any) => ({
      ...environment,
      variants: environment.variants.map(({ overrides, ...variant }: any) => (overrides?.length ? { ...variant, overrides } : variant)),
    })),
    segments: result.segments.map((s: { name: string }) => s.name).sort(),
    featureTags: [...result.featureTags].sort((a: any, b: any) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
    tagTypes: [...result.tagTypes].sort((a: any, b: any) => (a.name < b.name ? -1 : 1)),
    dependencies: [...result.dependencies].sort((a: any, b: any) => (a.feature < b.feature ? -1 : 1)),
    // Link ids are each server's own ULIDs: everything else, order included, is compared.
    links: result.links.map(({ feature, links }: any) => ({ feature, links: links.map(({ id: _id, ...link }: any) => link) })),
  }
}
