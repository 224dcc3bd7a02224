import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  allEvents,
  apiToken,
  call,
  errorOf,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import {
  addDependency,
  archive,
  createFlag,
  createFlags,
  createProject,
  depend,
  dependencyRows,
  projectPath,
  validate,
} from '../../../test/helpers/flags.ts'

/** The setup of docs/contract.md §4's examples: c1→p1, c2→p1, c3→p2, `lone` free; `o1`→`op` in project "other". */
async function referenceFlags(pennon: TestApp): Promise<void> {
  await createProject(pennon, 'other')
  await createFlags(pennon, ['p1', 'c1', 'c2', 'p2', 'c3', 'lone'])
  await depend(pennon, 'c1', 'p1')
  await depend(pennon, 'c2', 'p1')
  await depend(pennon, 'c3', 'p2')
  await createFlags(pennon, ['op', 'o1'], 'other')
  await depend(pennon, 'o1', 'op', 'other')
}

const answer = (parentsWithChildFeatures: string[], hasDeletedDependencies: boolean) =>
  JSON.stringify({ parentsWithChildFeatures, hasDeletedDependencies })

async function expectAnswer(pennon: TestApp, features: string[], expected: string, project = 'default'): Promise<void> {
  const response = await validate(pennon, features, project)
  assert.equal(response.status, 200, response.text)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  assert.equal(response.text, expected, `${project}: ${JSON.stringify(features)}`)
}

const schemaError = (path: string, message: string) => ({ name: 'ValidationError', message, details: [{ path, message }] })

onEachDatabase('archive validation', (database) => {
  test('the reference examples', async (t) => {
    const pennon = await useTestApp(t, database)
    await referenceFlags(pennon)
    await expectAnswer(pennon, ['p1'], answer(['p1'], true))
    await expectAnswer(pennon, ['p1', 'c1'], answer(['p1'], true))
    await expectAnswer(pennon, ['p1', 'c1', 'c2'], answer([], true))
    await expectAnswer(pennon, ['c1'], answer([], true))
    await expectAnswer(pennon, ['lone'], answer([], false))
    await expectAnswer(pennon, [], answer([], false))
    await expectAnswer(pennon, ['ghost'], answer([], false))
    await expectAnswer(pennon, ['p2', 'p1'], answer(['p1', 'p2'], true))
  })

  test('combinations: whole families, duplicates, unknown names, case, disabled dependencies', async (t) => {
    const pennon = await useTestApp(t, database)
    await referenceFlags(pennon)
    await expectAnswer(pennon, ['p1', 'c1', 'c2', 'p2', 'c3', 'lone'], answer([], true))
    await expectAnswer(pennon, ['p1', 'p2', 'c3'], answer(['p1'], true))
    await expectAnswer(pennon, ['c1', 'c2', 'c3'], answer([], true))
    await expectAnswer(pennon, ['p2', 'p2', 'p1', 'p1', 'c1', 'c1'], answer(['p1', 'p2'], true))
    await expectAnswer(pennon, ['lone', 'ghost', 'lone', ''], answer([], false))
    await expectAnswer(pennon, ['P1', 'C1', 'p1 ', ' lone'], answer([], false))
    await expectAnswer(pennon, ['c3', 'ghost', 'p2'], answer([], true))
    // A disabled dependency is still a dependency.
    await createFlags(pennon, ['dp', 'dc'])
    assert.equal((await addDependency(pennon, 'dc', { feature: 'dp', enabled: false })).status, 200)
    await expectAnswer(pennon, ['dp'], answer(['dp'], true))
    await expectAnswer(pennon, ['dc'], answer([], true))
    // A parent whose children are all named is no orphan-maker, whatever the order.
    await expectAnswer(pennon, ['c2', 'dc', 'c1', 'dp', 'p1'], answer([], true))
  })

  test('project-scoped: flags of another project, and an unknown project, count for nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    await referenceFlags(pennon)
    await expectAnswer(pennon, ['op'], answer([], false))
    await expectAnswer(pennon, ['o1', 'op', 'lone'], answer([], false))
    await expectAnswer(pennon, ['op', 'p1'], answer(['p1'], true))
    await expectAnswer(pennon, ['op'], answer(['op'], true), 'other')
    await expectAnswer(pennon, ['op', 'o1', 'p1'], answer([], true), 'other')
    await expectAnswer(pennon, ['p1', 'op'], answer([], false), 'nowhere')
  })

  test('archived flags are outside every batch: archive, then validate', async (t) => {
    const pennon = await useTestApp(t, database)
    await referenceFlags(pennon)
    assert.equal((await archive(pennon, ['c1'])).status, 202)
    await expectAnswer(pennon, ['c1'], answer([], false))
    await expectAnswer(pennon, ['p1'], answer(['p1'], true))
    await expectAnswer(pennon, ['p1', 'c2'], answer([], true))
    assert.equal((await archive(pennon, ['c2', 'p1'])).status, 202)
    await expectAnswer(pennon, ['p1', 'c1', 'c2'], answer([], false))
    await expectAnswer(pennon, ['p1', 'p2'], answer(['p2'], true))
    assert.equal((await archive(pennon, ['p2', 'c3', 'lone'])).status, 202)
    await expectAnswer(pennon, ['p1', 'c1', 'c2', 'p2', 'c3', 'lone'], answer([], false))
  })

  test('read-only: no event, no change', async (t) => {
    const pennon = await useTestApp(t, database)
    await referenceFlags(pennon)
    const events = await allEvents(pennon)
    const rows = await dependencyRows(pennon)
    const flags = await pennon.database.db.selectFrom('features').selectAll().orderBy('name').execute()
    for (const features of [['p1'], ['p1', 'c1', 'c2'], ['c3'], []]) assert.equal((await validate(pennon, features)).status, 200)
    assert.deepEqual(await allEvents(pennon), events)
    assert.deepEqual(await dependencyRows(pennon), rows)
    assert.deepEqual(await pennon.database.db.selectFrom('features').selectAll().orderBy('name').execute(), flags)
  })

  test('a batch of 40,000 names (more than SQLite binds in one statement) is one answer', async (t) => {
    const pennon = await useTestApp(t, database)
    await referenceFlags(pennon)
    const names = Array.from({ length: 40_000 }, (_, i) => `unknown-flag-${i}`)
    await expectAnswer(pennon, [...names, 'p2'], answer(['p2'], true))
    await expectAnswer(pennon, [...names, 'c1', 'c2', 'p1'], answer([], true))
    await expectAnswer(pennon, names, answer([], false))
  })

  test('400 for anything but an object with an array of strings, naming the property', async (t) => {
    const pennon = await useTestApp(t, database)
    const post = (raw: string) =>
      call(pennon, 'POST', `${projectPath()}/archive/validate`, undefined, { raw, headers: { 'content-type': 'application/json' } })
    const cases: Array<[string, Record<string, unknown>]> = [
      ['{"features":[1]}', schemaError('/body/features/0', 'The `/body/features/0` property must be string. You sent 1.')],
      ['{"features":[null]}', schemaError('/body/features/0', 'The `/body/features/0` property must be string. You sent null.')],
      ['{"features":"x"}', schemaError('/body/features', 'The `/body/features` property must be array. You sent "x".')],
      ['{"features":{"a":1}}', schemaError('/body/features', 'The `/body/features` property must be array. You sent {"a":1}.')],
      ['{}', schemaError('/body/features', 'The `/body/features` property is required. It was not present on the data you sent.')],
      [
        '{"feature":["p1"]}',
        schemaError('/body/features', 'The `/body/features` property is required. It was not present on the data you sent.'),
      ],
      ['[]', schemaError('/body', 'The `/body` property must be object. You sent [].')],
      ['["p1"]', schemaError('/body', 'The `/body` property must be object. You sent ["p1"].')],
      ['null', schemaError('/body', 'The `/body` property must be object. You sent null.')],
    ]
    for (const [raw, expected] of cases) {
      const response = await post(raw)
      assert.equal(response.status, 400, raw)
      assert.deepEqual(withoutId(response.body), expected, raw)
    }
    const many = await post('{"features":["ok",2,["x"],{"y":1}]}')
    assert.equal(many.status, 400)
    assert.equal(many.body.message, 'The `/body/features/1` property must be string. You sent 2. (2 more problems listed in details)')
    assert.deepEqual(
      many.body.details.map((detail: { path: string }) => detail.path),
      ['/body/features/1', '/body/features/2', '/body/features/3'],
    )
    const broken = await post('{"features":[')
    assert.equal(broken.status, 400)
    assert.equal(broken.body.name, 'ValidationError')
    assert.match(broken.body.message, /^The request body is not valid JSON: /)
    // Unknown top-level properties are ignored, as in the reference.
    assert.equal((await post('{"features":[],"extra":true}')).text, answer([], false))
  })

  test('401, 403 and 415 in the order of §0', async (t) => {
    const pennon = await useTestApp(t, database)
    await referenceFlags(pennon)
    const viewer = await serviceAccountToken(pennon, 3)
    const client = await apiToken(pennon, 'client')
    const needs = errorOf('NoAccessError', 'Missing permission: this operation needs "DELETE_FEATURE".', {
      permissions: ['DELETE_FEATURE'],
    })
    for (const token of [viewer, client]) {
      const refused = await validate(pennon, ['p1'], 'default', token)
      assert.equal(refused.status, 403)
      assert.deepEqual(withoutId(refused.body), needs)
      // Without permission, a bad body is not even looked at.
      const badBody = await call(pennon, 'POST', `${projectPath()}/archive/validate`, undefined, {
        token,
        raw: '{"features":[1]}',
        headers: { 'content-type': 'text/plain' },
      })
      assert.equal(badBody.status, 403)
    }
    for (const rootRole of [1, 2] as const) {
      const token = await serviceAccountToken(pennon, rootRole)
      const allowed = await validate(pennon, ['p1'], 'default', token)
      assert.equal(allowed.status, 200)
      assert.equal(allowed.text, answer(['p1'], true))
    }
    const anonymous = await validate(pennon, ['p1'], 'default', null)
    assert.equal(anonymous.status, 401)
    assert.equal(anonymous.body.name, 'AuthenticationRequired')
    const unknownToken = await call(pennon, 'POST', `${projectPath()}/archive/validate`, { features: [1] }, { token: '*:*.not-a-token' })
    assert.equal(unknownToken.status, 401)

    const noType = await call(pennon, 'POST', `${projectPath()}/archive/validate`, undefined, { raw: '{"features":["p1"]}' })
    assert.equal(noType.status, 415)
    assert.deepEqual(
      withoutId(noType.body),
      errorOf('ContentTypeerror', 'No content type was sent. Accepted content types: application/json.'),
    )
    const form = await call(pennon, 'POST', `${projectPath()}/archive/validate`, undefined, {
      raw: 'features=p1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    assert.equal(form.status, 415)
    const withCharset = await call(pennon, 'POST', `${projectPath()}/archive/validate`, undefined, {
      raw: '{"features":["p1"]}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    })
    assert.equal(withCharset.text, answer(['p1'], true))
  })

  test('flags named like SQL or JSON metacharacters are matched literally', async (t) => {
    const pennon = await useTestApp(t, database)
    const names = ["it's", '(x)', '*', 'a.b', '~', "')--", '!']
    await createFlags(pennon, names)
    await createFlag(pennon, 'kid')
    await depend(pennon, 'kid', "it's")
    await expectAnswer(pennon, ["it's"], answer(["it's"], true))
    await expectAnswer(pennon, ['"', '\\', "it''s", '%', '_', '{}', '[]', ',', '{"a"}'], answer([], false))
    await expectAnswer(pennon, [...names, 'kid'], answer([], true))
  })
})
