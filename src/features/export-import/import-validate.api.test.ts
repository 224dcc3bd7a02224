/**
 * Validate answers as the import does: a file whose import a rule refuses only while it writes (a
 * strategy's parameters, constraints or variants, environment variants, a segment id, a parent,
 * a tag type, a name, the project…) is an error in validate's answer too, with the import's
 * message and details, and validate writes nothing. A file the import takes validates clean.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  allEvents,
  call,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type ApiResponse,
  type TestApp,
} from '../../../test/test-app.ts'
import { importFlags, validateImport } from '../../../test/helpers/export-import.ts'

const flag = (name: string) => ({ name, type: 'release', description: null, impressionData: false })

/** An import of `data` (its lists defaulting to empty) into default/development. */
const fileOf = (data: Record<string, unknown>, into: { project?: string } = {}) => ({
  project: into.project ?? 'default',
  environment: 'development',
  data: {
    features: [],
    featureStrategies: [],
    featureEnvironments: [],
    featureTags: [],
    contextFields: [],
    tagTypes: [],
    segments: [],
    dependencies: [],
    ...data,
  },
})

const ok = async (response: Promise<ApiResponse>, status = 200) => {
  const answer = await response
  assert.equal(answer.status, status, answer.text)
}

/** The refusal's details as validate lists them: each placed in the file where it has a place. */
const listed = (details: Array<{ path?: string; message: string }>) =>
  details.map((d) => (d.path === undefined ? d.message : `${d.path}: ${d.message}`))

interface Case {
  name: string
  given?: (pennon: TestApp) => Promise<void>
  file: ReturnType<typeof fileOf>
  status: number
  /** The import's error body, without its id. */
  refusal: { name: string; message: string; details: Array<{ path?: string; message: string }> }
}

const ruled = (message: string, path: string, prefix = '') => ({
  name: 'ValidationError',
  message: `${prefix}${message}`,
  details: [{ path, message }],
})
const plain = (name: string, message: string) => ({ name, message, details: [{ message }] })

const CASES: Case[] = [
  {
    name: "a strategy's parameters (a rollout over 100%)",
    file: fileOf({
      features: [flag('imp.rollout')],
      featureStrategies: [{ name: 'flexibleRollout', featureName: 'imp.rollout', parameters: { rollout: '150' } }],
    }),
    status: 400,
    refusal: ruled(
      'The `/body/parameters/rollout` property must be a whole percentage from 0 to 100. You sent "150".',
      '/body/data/featureStrategies/0/parameters/rollout',
      'Strategy 0 (of flag "imp.rollout"): ',
    ),
  },
  {
    name: "a constraint's value (not a number for NUM_EQ)",
    file: fileOf({
      features: [flag('imp.num')],
      featureStrategies: [
        { name: 'default', featureName: 'imp.num', constraints: [{ contextName: 'age', operator: 'NUM_EQ', value: 'abc' }] },
      ],
    }),
    status: 400,
    refusal: ruled(
      'The `/body/constraints/0/value` property must be a finite number (optional sign, digits with an optional fraction, optional exponent, e.g. -1.5 or 1e3) for the NUM_EQ operator. You sent "abc".',
      '/body/data/featureStrategies/0/constraints/0/value',
      'Strategy 0 (of flag "imp.num"): ',
    ),
  },
  {
    name: "a constraint's value outside its field's legal values",
    given: (pennon) =>
      ok(call(pennon, 'POST', '/api/admin/context', { name: 'plan', legalValues: [{ value: 'free' }, { value: 'pro' }] }), 201),
    file: fileOf({
      features: [flag('imp.plan')],
      featureStrategies: [
        { name: 'default', featureName: 'imp.plan', constraints: [{ contextName: 'plan', operator: 'IN', values: ['gold'] }] },
      ],
    }),
    status: 400,
    refusal: ruled(
      'The `/body/constraints/0/values/0` property must be a legal value of context field "plan" ("free", "pro"). You sent "gold".',
      '/body/data/featureStrategies/0/constraints/0/values/0',
      'Strategy 0 (of flag "imp.plan"): ',
    ),
  },
  {
    name: "a strategy's variants (a name twice)",
    file: fileOf({
      features: [flag('imp.variants')],
      featureStrategies: [
        {
          name: 'flexibleRollout',
          featureName: 'imp.variants',
          variants: [
            { name: 'x', weight: 500, weightType: 'variable', stickiness: 'default' },
            { name: 'x', weight: 500, weightType: 'variable', stickiness: 'default' },
          ],
        },
      ],
    }),
    status: 400,
    refusal: ruled(
      'The `/body/variants/1/name` property must be unique among the variants: "x" is there twice.',
      '/body/data/featureStrategies/0/variants/1/name',
      'Strategy 0 (of flag "imp.variants"): ',
    ),
  },
  {
    name: 'environment variants (fixed weights over 1000)',
    file: fileOf({
      features: [flag('imp.env-variants')],
      featureEnvironments: [
        {
          name: 'imp.env-variants',
          enabled: false,
          variants: [
            { name: 'x', weight: 600, weightType: 'fix', stickiness: 'default' },
            { name: 'y', weight: 600, weightType: 'fix', stickiness: 'default' },
          ],
        },
      ],
    }),
    status: 400,
    refusal: ruled("The `/body` property's weights must sum to 1000 when every variant's weight is fixed. Yours sum to 1200.", '/body'),
  },
  {
    name: "a strategy's segment id the file's segments list does not name",
    file: fileOf({ features: [flag('imp.segment')], featureStrategies: [{ name: 'default', featureName: 'imp.segment', segments: [5] }] }),
    status: 400,
    refusal: {
      name: 'ValidationError',
      message: 'Strategy 0 (of flag "imp.segment"): Segment 5 is not in the file\'s segments list.',
      details: [
        {
          path: '/body/data/featureStrategies/0/segments/0',
          message: "The `/body/segments/0` property must be the id of a segment the file's `segments` list names. You sent 5.",
        },
      ],
    },
  },
  {
    name: 'a parent not in the file that is a flag of another project',
    given: async (pennon) => {
      await ok(call(pennon, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' }), 201)
      await ok(call(pennon, 'POST', '/api/admin/projects/other/features', { name: 'other.parent' }), 201)
    },
    file: fileOf({ features: [flag('imp.child')], dependencies: [{ feature: 'imp.child', dependencies: [{ feature: 'other.parent' }] }] }),
    status: 404,
    refusal: plain('NotFoundError', 'There\'s no active flag named "other.parent" in project "default" to depend on.'),
  },
  {
    name: 'a parent not in the file that is archived',
    given: async (pennon) => {
      await ok(call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'old.parent' }), 201)
      await ok(call(pennon, 'DELETE', '/api/admin/projects/default/features/old.parent'), 202)
    },
    file: fileOf({ features: [flag('imp.child')], dependencies: [{ feature: 'imp.child', dependencies: [{ feature: 'old.parent' }] }] }),
    status: 404,
    refusal: plain('NotFoundError', 'There\'s no active flag named "old.parent" in project "default" to depend on.'),
  },
  {
    name: 'parents two levels deep within the file',
    file: fileOf({
      features: [flag('imp.a'), flag('imp.b'), flag('imp.c')],
      dependencies: [
        { feature: 'imp.b', dependencies: [{ feature: 'imp.a' }] },
        { feature: 'imp.c', dependencies: [{ feature: 'imp.b' }] },
      ],
    }),
    status: 409,
    refusal: plain(
      'InvalidOperationError',
      'Flag "imp.b" cannot be a parent: it depends on "imp.a" itself, and dependencies are only one level deep.',
    ),
  },
  {
    name: 'a tag of a type neither the file nor this server has',
    file: fileOf({ features: [flag('imp.tagged')], featureTags: [{ featureName: 'imp.tagged', tagType: 'nope', tagValue: 'v1' }] }),
    status: 400,
    refusal: ruled('The `/body/data/featureTags` property must name an existing tag type. You sent "nope".', '/body/data/featureTags'),
  },
  {
    name: 'a flag name that is not URL-friendly',
    file: fileOf({ features: [flag('bad name')] }),
    status: 400,
    refusal: ruled(
      'The `/body/name` property must be URL-friendly (letters, digits and - _ . ! ~ * \' ( ) only, not "." or ".."). You sent "bad name".',
      '/body/data/features/0/name',
      'Flag "bad name": ',
    ),
  },
  {
    name: 'a new context field whose name is not URL-friendly',
    file: fileOf({ features: [flag('imp.field')], contextFields: [{ name: 'bad field' }] }),
    status: 400,
    refusal: ruled(
      'The `/body/name` property must be URL-friendly (letters, digits and - _ . ! ~ * \' ( ) only, not "." or ".."). You sent "bad field".',
      '/body/name',
    ),
  },
  {
    name: 'a project that does not exist',
    file: fileOf({ features: [flag('imp.nowhere')] }, { project: 'no-such-project' }),
    status: 404,
    refusal: plain('NotFoundError', 'Project "no-such-project" does not exist.'),
  },
  {
    name: 'a strategy of a flag the file does not list',
    file: fileOf({ features: [flag('imp.listed')], featureStrategies: [{ name: 'default', featureName: 'imp.unlisted' }] }),
    status: 404,
    refusal: plain('NotFoundError', 'There\'s no flag named "imp.unlisted" in project "default".'),
  },
]

onEachDatabase('import validation: validate refuses what the import refuses', (database) => {
  for (const { name, given, file, status, refusal } of CASES) {
    test(`${name}: the same refusal from both, nothing written`, async (t) => {
      const pennon = await useTestApp(t, database)
      await given?.(pennon)
      const events = (await allEvents(pennon)).length

      const validated = await validateImport(pennon, file)
      const imported = await importFlags(pennon, file)
      assert.equal(imported.status, status, imported.text)
      assert.equal(imported.headers['content-type'], 'application/json; charset=utf-8')
      assert.deepEqual(withoutId(imported.body), refusal)
      assert.equal(validated.status, 200, validated.text)
      assert.equal(validated.headers['content-type'], 'application/json; charset=utf-8')
      assert.deepEqual(validated.body, {
        errors: [{ message: refusal.message, affectedItems: listed(refusal.details) }],
        warnings: [],
        permissions: [],
      })
      assert.equal((await allEvents(pennon)).length, events, 'neither wrote anything')
    })
  }

  test('a file the import takes: validate answers no errors and writes nothing, not even a context field it would create; then the import', async (t) => {
    const pennon = await useTestApp(t, database)
    const file = fileOf({
      features: [flag('imp.tier')],
      contextFields: [{ name: 'tier', legalValues: [{ value: 'gold' }] }],
      featureStrategies: [
        {
          name: 'flexibleRollout',
          featureName: 'imp.tier',
          parameters: { rollout: '50' },
          constraints: [{ contextName: 'tier', operator: 'IN', values: ['gold'] }],
        },
      ],
      featureEnvironments: [{ name: 'imp.tier', enabled: true, variants: [] }],
    })
    const events = (await allEvents(pennon)).length
    const validated = await validateImport(pennon, file)
    assert.equal(validated.status, 200, validated.text)
    assert.deepEqual(validated.body, { errors: [], warnings: [], permissions: [] })
    assert.equal((await allEvents(pennon)).length, events)
    assert.equal((await call(pennon, 'GET', '/api/admin/projects/default/features/imp.tier')).status, 404)
    assert.equal((await call(pennon, 'GET', '/api/admin/context/tier')).status, 404)
    // The trial's field is not remembered either: a constraint on tier takes any value.
    await ok(
      call(pennon, 'POST', '/api/admin/segments', {
        name: 'platinum',
        constraints: [{ contextName: 'tier', operator: 'IN', values: ['platinum'] }],
      }),
      201,
    )

    const imported = await importFlags(pennon, file)
    assert.equal(imported.status, 200, imported.text)
    assert.equal(imported.text, '')
    assert.deepEqual((await call(pennon, 'GET', '/api/admin/context/tier')).body.legalValues, [{ value: 'gold' }])
  })

  test('a caller who may not import: validate lists the permissions it lacks and does not try the import; the import is a 403', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    const file = CASES[0]!.file
    const validated = await validateImport(pennon, file, viewer)
    assert.equal(validated.status, 200, validated.text)
    assert.deepEqual(validated.body, {
      errors: [],
      warnings: [],
      permissions: [
        {
          message: 'We detected you are missing the following permissions:',
          affectedItems: ['Update feature flags', 'Create activation strategies', 'Create feature flags'],
        },
      ],
    })
    const imported = await importFlags(pennon, file, viewer)
    assert.equal(imported.status, 403, imported.text)
  })
})
