/**
 * An import's strategy constraints on context fields with legal values: checked against the values
 * the fields have inside the import's own transaction — those of a field the same import creates
 * (as the reference creates context fields before it adds strategies), never a copy remembered
 * from before — and a refused import leaves nothing behind, not even in what is remembered. An
 * import that would add legal values to an existing field is refused, as the reference refuses it.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { clientFeatures, importFlags, validateImport } from '../../../test/helpers/export-import.ts'

const CONTEXT = '/api/admin/context'

/** One flag with one strategy per constraint list, for the development environment. */
function importBody(flag: string, constraintLists: unknown[][], contextFields: unknown[]) {
  return {
    project: 'default',
    environment: 'development',
    data: {
      features: [{ name: flag, type: 'release', description: null, impressionData: false }],
      featureStrategies: constraintLists.map((constraints) => ({
        name: 'default',
        featureName: flag,
        parameters: {},
        constraints,
        segments: [],
      })),
      featureEnvironments: [{ name: flag, featureName: flag, environment: 'development', enabled: true, variants: [] }],
      featureTags: [],
      contextFields,
      tagTypes: [],
      segments: [],
      dependencies: [],
    },
  }
}

/**
 * A segment create refused for a value outside plan's legal values: it reads the legal values
 * (and may remember them) and writes nothing. Twice, so that what is remembered is of the latest
 * version whatever the change watch had seen of the last write.
 */
async function readLegalValuesWithoutWriting(pennon: TestApp): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const refused = await call(pennon, 'POST', '/api/admin/segments', {
      name: 'warm',
      constraints: [{ contextName: 'plan', operator: 'IN', values: ['gold'] }],
    })
    assert.equal(refused.status, 400, refused.text)
  }
}

const segmentOn = (pennon: TestApp, name: string, field: string, value: string) =>
  call(pennon, 'POST', '/api/admin/segments', { name, constraints: [{ contextName: field, operator: 'IN', values: [value] }] })

const planField = { name: 'plan', legalValues: [{ value: 'free' }, { value: 'pro' }] }
const tierField = {
  name: 'tier',
  description: 'support tier',
  stickiness: false,
  sortOrder: 0,
  legalValues: [{ value: 'gold' }, { value: 'silver' }],
}

onEachDatabase('import: constraints on context fields with legal values', (database) => {
  test('a field the import creates: a value outside its legal values is refused, though the legal values were read just before; nothing stays', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', CONTEXT, planField)).status, 201)
    await readLegalValuesWithoutWriting(pennon)
    const events = (await allEvents(pennon)).length

    const body = importBody('imp.tier', [[{ contextName: 'tier', operator: 'IN', values: ['gold', 'platinum'] }]], [tierField])
    // The strategy service's message, its place in the file as the path.
    const message =
      'The `/body/constraints/0/values/1` property must be a legal value of context field "tier" ("gold", "silver"). You sent "platinum".'
    // Validate tries the import (rolled back): the same refusal.
    assert.deepEqual((await validateImport(pennon, body)).body, {
      errors: [
        {
          message: `Strategy 0 (of flag "imp.tier"): ${message}`,
          affectedItems: [`/body/data/featureStrategies/0/constraints/0/values/1: ${message}`],
        },
      ],
      warnings: [],
      permissions: [],
    })
    const refused = await importFlags(pennon, body)
    assert.equal(refused.status, 400, refused.text)
    assert.deepEqual(withoutId(refused.body), {
      name: 'ValidationError',
      message: `Strategy 0 (of flag "imp.tier"): ${message}`,
      details: [{ path: '/body/data/featureStrategies/0/constraints/0/values/1', message }],
    })
    assert.equal((await call(pennon, 'GET', `${CONTEXT}/tier`)).status, 404)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/default/features/imp.tier')).status, 404)
    assert.equal((await allEvents(pennon)).length, events)
    // No field tier: a constraint on it takes anything.
    assert.equal((await segmentOn(pennon, 'platinum-tier', 'tier', 'platinum')).status, 201)
  })

  test("a refused import whose first strategy read the new field's legal values leaves none of them remembered", async (t) => {
    const pennon = await useTestApp(t, database)
    // Just written: what was remembered is out of date, so the import's first check reads in its transaction.
    assert.equal((await call(pennon, 'POST', CONTEXT, planField)).status, 201)
    const refused = await importFlags(
      pennon,
      importBody(
        'imp.tier',
        [[{ contextName: 'tier', operator: 'IN', values: ['gold'] }], [{ contextName: 'tier', operator: 'IN', values: ['platinum'] }]],
        [tierField],
      ),
    )
    assert.equal(refused.status, 400, refused.text)
    assert.equal(refused.body.details[0].path, '/body/data/featureStrategies/1/constraints/0/values/0')
    assert.equal((await call(pennon, 'GET', `${CONTEXT}/tier`)).status, 404)
    const segment = await segmentOn(pennon, 'platinum-tier', 'tier', 'platinum')
    assert.equal(segment.status, 201, segment.text)
  })

  test("a field the import creates: constraints using its legal values are imported and served; after it, the field's values hold for the admin API", async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', CONTEXT, planField)).status, 201)
    await readLegalValuesWithoutWriting(pennon)

    const constraints = [
      { contextName: 'tier', operator: 'IN', values: ['gold', 'silver'], inverted: false, caseInsensitive: false },
      { contextName: 'plan', operator: 'NOT_IN', values: ['free'], inverted: false, caseInsensitive: false },
    ]
    const imported = await importFlags(pennon, importBody('imp.tier', [constraints], [tierField]))
    assert.equal(imported.status, 200, imported.text)
    assert.deepEqual((await call(pennon, 'GET', `${CONTEXT}/tier`)).body.legalValues, tierField.legalValues)
    const served = (await clientFeatures(pennon, 'development')).features
    assert.deepEqual(
      served.map((flag: any) => [flag.name, flag.strategies.map((s: any) => s.constraints)]),
      [['imp.tier', [constraints]]],
    )

    const segment = await segmentOn(pennon, 'platinum-tier', 'tier', 'platinum')
    assert.equal(segment.status, 400)
    assert.equal(
      segment.body.message,
      'The `/body/constraints/0/values/0` property must be a legal value of context field "tier" ("gold", "silver"). You sent "platinum".',
    )
  })

  test('an existing field whose legal values the file extends: refused by validate and import, as the reference; once the value is added on the target, the same file imports', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', CONTEXT, planField)).status, 201)
    await readLegalValuesWithoutWriting(pennon)
    const events = (await allEvents(pennon)).length

    const extended = {
      name: 'plan',
      description: '',
      stickiness: false,
      sortOrder: 0,
      legalValues: [{ value: 'free' }, { value: 'pro' }, { value: 'enterprise' }],
    }
    const constraints = [{ contextName: 'plan', operator: 'IN', values: ['enterprise'], inverted: false, caseInsensitive: false }]
    const body = importBody('imp.plan', [constraints], [extended])
    assert.deepEqual((await validateImport(pennon, body)).body, {
      errors: [
        {
          message: 'We detected the following context fields that do not have matching legal values with the imported ones:',
          affectedItems: ['plan'],
        },
      ],
      warnings: [],
      permissions: [],
    })
    const refused = await importFlags(pennon, body)
    assert.equal(refused.status, 400)
    assert.deepEqual(withoutId(refused.body), {
      name: 'ValidationError',
      message: 'Some of the context fields you are trying to import are not supported.',
      details: [{ message: 'plan is not supported.' }],
    })
    // The file listing the field as the target has it: the constraint's value is still not one of them.
    const asIs = await importFlags(pennon, importBody('imp.plan', [constraints], [{ ...extended, legalValues: planField.legalValues }]))
    assert.equal(asIs.status, 400)
    assert.deepEqual(asIs.body.details, [
      {
        path: '/body/data/featureStrategies/0/constraints/0/values/0',
        message:
          'The `/body/constraints/0/values/0` property must be a legal value of context field "plan" ("free", "pro"). You sent "enterprise".',
      },
    ])
    assert.deepEqual((await call(pennon, 'GET', `${CONTEXT}/plan`)).body.legalValues, planField.legalValues)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/default/features/imp.plan')).status, 404)
    assert.equal((await allEvents(pennon)).length, events)

    assert.equal((await call(pennon, 'POST', `${CONTEXT}/plan/legal-values`, { value: 'enterprise' })).status, 200)
    assert.deepEqual((await validateImport(pennon, body)).body, { errors: [], warnings: [], permissions: [] })
    const imported = await importFlags(pennon, body)
    assert.equal(imported.status, 200, imported.text)
    const served = (await clientFeatures(pennon, 'development')).features
    assert.deepEqual(
      served.map((flag: any) => [flag.name, flag.strategies.map((s: any) => s.constraints)]),
      [['imp.plan', [constraints]]],
    )
  })
})
