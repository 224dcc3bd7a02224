import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  apiToken,
  call,
  errorOf,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import { eventMark } from '../../../test/helpers/flags.ts'
import { assertEmpty, at, fromOneRequestIn, jsonOk, validationError } from '../../../test/helpers/strategies.ts'

const CONTEXT = '/api/admin/context'
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/** What a fresh instance has, as the reference's migrations seed it (by name, as listed). */
const BUILT_IN = [
  { name: 'appName', description: 'Allows you to constrain on application name', stickiness: false, sortOrder: 2 },
  { name: 'currentTime', description: 'Allows you to constrain on date values', stickiness: false, sortOrder: 3 },
  { name: 'environment', description: 'Allows you to constrain on application environment', stickiness: false, sortOrder: 0 },
  { name: 'sessionId', description: 'Allows you to constrain on sessionId', stickiness: true, sortOrder: 4 },
  { name: 'userId', description: 'Allows you to constrain on userId', stickiness: false, sortOrder: 1 },
]

/** An event of a field, as fromOneRequestIn leaves it. */
const fieldEvent = (type: string, data: unknown, preData: unknown = null) => ({
  type,
  featureName: null,
  project: null,
  environment: null,
  data,
  preData,
})

/** A field's createdAt is the instance's; everything else is compared exactly. */
function withoutCreatedAt(field: { createdAt?: unknown }): Record<string, unknown> {
  const { createdAt, ...rest } = field
  assert.match(String(createdAt), ISO)
  return rest
}

async function createField(pennon: TestApp, body: Record<string, unknown>): Promise<any> {
  const response = await call(pennon, 'POST', CONTEXT, body)
  assert.equal(response.status, 201, response.text)
  return response.body
}

async function getField(pennon: TestApp, name: string): Promise<any> {
  return jsonOk(await call(pennon, 'GET', `${CONTEXT}/${name}`))
}

onEachDatabase('context fields', (database) => {
  test('a fresh instance lists the built-in fields, by name, each unused; GET one; an unknown one is a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    const list = jsonOk(await call(pennon, 'GET', CONTEXT))
    for (const field of list)
      assert.deepEqual(Object.keys(field), [
        'name',
        'description',
        'stickiness',
        'sortOrder',
        'legalValues',
        'createdAt',
        'usedInProjects',
        'usedInFeatures',
      ])
    assert.deepEqual(
      list.map(withoutCreatedAt),
      BUILT_IN.map((field) => ({ ...field, legalValues: [], usedInProjects: 0, usedInFeatures: 0 })),
    )

    const userId = await getField(pennon, 'userId')
    assert.deepEqual(Object.keys(userId), ['name', 'description', 'stickiness', 'sortOrder', 'legalValues', 'createdAt'])
    assert.deepEqual(withoutCreatedAt(userId), { ...BUILT_IN[4], legalValues: [] })
    const unknown = await call(pennon, 'GET', `${CONTEXT}/nope`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Context field "nope" does not exist.'))
  })

  test('create: 201, Location, the field and its event; defaults; other properties ignored; listed by name', async (t) => {
    const pennon = await useTestApp(t, database)
    const mark = await eventMark(pennon)
    const body = {
      name: 'plan',
      description: 'Billing plan',
      stickiness: true,
      sortOrder: 7,
      legalValues: [{ value: 'pro', description: 'Paid, self-serve' }, { value: 'free' }, { value: 'enterprise', description: '' }],
      // A field read back and sent again: what only the server says is ignored.
      usedInFeatures: 12,
      createdAt: '2020-01-01T00:00:00.000Z',
    }
    const created = await call(pennon, 'POST', CONTEXT, body)
    assert.equal(created.status, 201, created.text)
    assert.equal(created.headers.location, 'context/plan')
    assert.deepEqual(Object.keys(created.body), ['name', 'description', 'stickiness', 'sortOrder', 'legalValues', 'createdAt'])
    assert.notEqual(created.body.createdAt, body.createdAt)
    const expected = {
      name: 'plan',
      description: 'Billing plan',
      stickiness: true,
      sortOrder: 7,
      legalValues: body.legalValues,
      createdAt: created.body.createdAt,
    }
    assert.deepEqual(created.body, expected)
    const events = fromOneRequestIn(await mark.since())
    assert.deepEqual(events, [fieldEvent('context-field-created', expected)])
    assert.equal((await mark.since())[0].createdAt, created.body.createdAt)
    assert.deepEqual(await getField(pennon, 'plan'), expected)

    // Only the name is needed.
    const bare = await createField(pennon, { name: 'Tenant_id.v2' })
    assert.deepEqual(withoutCreatedAt(bare), { name: 'Tenant_id.v2', description: null, stickiness: false, sortOrder: 0, legalValues: [] })
    await createField(pennon, { name: 'zone', description: null, legalValues: [] })
    // By code point: upper case first, on both databases.
    assert.deepEqual(
      jsonOk(await call(pennon, 'GET', CONTEXT)).map((field: { name: string }) => field.name),
      ['Tenant_id.v2', 'appName', 'currentTime', 'environment', 'plan', 'sessionId', 'userId', 'zone'],
    )
    const listed = jsonOk(await call(pennon, 'GET', CONTEXT)).find((field: { name: string }) => field.name === 'plan')
    assert.deepEqual(listed, { ...expected, usedInProjects: 0, usedInFeatures: 0 })
  })

  test('create refuses: a taken name (built-in or not) with 409; every fault of a body in one 400; nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    await createField(pennon, { name: 'plan' })
    const mark = await eventMark(pennon)
    for (const name of ['plan', 'userId']) {
      const taken = await call(pennon, 'POST', CONTEXT, { name })
      assert.equal(taken.status, 409)
      assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', `A context field named "${name}" already exists.`))
    }

    const refuse = async (body: unknown, ...details: Array<{ path: string; message: string }>) => {
      const response = await call(pennon, 'POST', CONTEXT, body)
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.deepEqual(withoutId(response.body), validationError(...details))
    }
    await refuse(
      {
        name: 'my field',
        description: 'd'.repeat(251),
        stickiness: 'yes',
        sortOrder: 1.5,
        legalValues: [{ value: 'a' }, { value: '' }, { value: 'a', description: 'again' }, { value: 'b', colour: 'red' }],
      },
      at('/body/description', `The \`/body/description\` property must NOT have more than 250 characters. You sent "${'d'.repeat(99)}….`),
      at('/body/stickiness', 'The `/body/stickiness` property must be boolean. You sent "yes".'),
      at('/body/sortOrder', 'The `/body/sortOrder` property must be integer. You sent 1.5.'),
      at('/body/legalValues/1/value', 'The `/body/legalValues/1/value` property must NOT have fewer than 1 characters. You sent "".'),
      at(
        '/body/legalValues/3/colour',
        'The `/body/legalValues/3` object does not allow the property `/body/legalValues/3/colour`. Remove it.',
      ),
      at(
        '/body/name',
        `The \`/body/name\` property must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or ".."). You sent "my field".`,
      ),
      at(
        '/body/legalValues/2/value',
        'The `/body/legalValues/2/value` property must be unique among the legal values: legal value 0 is "a" too.',
      ),
    )
    await refuse(
      { description: 'no name' },
      at('/body/name', 'The `/body/name` property is required. It was not present on the data you sent.'),
    )
    await refuse({ name: '' }, at('/body/name', 'The `/body/name` property must not be empty.'))
    await refuse(
      { name: 'x'.repeat(101) },
      at('/body/name', `The \`/body/name\` property must be at most 100 characters long. You sent "${'x'.repeat(99)}….`),
    )
    await refuse(
      { name: 'big', sortOrder: 2 ** 31 },
      at('/body/sortOrder', 'The `/body/sortOrder` property must be <= 2147483647. You sent 2147483648.'),
    )
    await refuse(
      { name: 'long', legalValues: [{ value: 'v'.repeat(101) }] },
      at(
        '/body/legalValues/0/value',
        `The \`/body/legalValues/0/value\` property must NOT have more than 100 characters. You sent "${'v'.repeat(99)}….`,
      ),
    )
    await refuse(
      { name: 'many', legalValues: Array.from({ length: 1001 }, (_, i) => ({ value: `v${i}` })) },
      at(
        '/body/legalValues',
        `The \`/body/legalValues\` property must NOT have more than 1000 items. You sent ${JSON.stringify(Array.from({ length: 15 }, (_, i) => ({ value: `v${i}` }))).slice(0, 100)}….`,
      ),
    )
    await refuse(
      { name: 'elsewhere', project: 'ghost' },
      at('/body/project', 'The `/body/project` property must name an existing project. You sent "ghost".'),
    )
    assert.deepEqual(await mark.since(), [])
    assert.equal(jsonOk(await call(pennon, 'GET', CONTEXT)).length, BUILT_IN.length + 1)
  })

  test('PUT: legal values and stickiness replaced, description and sortOrder kept unless sent; 200 and empty; no event when nothing changes', async (t) => {
    const pennon = await useTestApp(t, database)
    const before = await createField(pennon, {
      name: 'plan',
      description: 'Billing plan',
      stickiness: true,
      sortOrder: 5,
      legalValues: [{ value: 'free' }],
    })
    const mark = await eventMark(pennon)
    // A name in the body is no rename: the path names the field.
    assertEmpty(
      await call(pennon, 'PUT', `${CONTEXT}/plan`, {
        name: 'other',
        legalValues: [{ value: 'pro', description: 'Paid' }, { value: 'free' }],
      }),
    )
    const after = { ...before, stickiness: false, legalValues: [{ value: 'pro', description: 'Paid' }, { value: 'free' }] }
    assert.deepEqual(await getField(pennon, 'plan'), after)
    assert.deepEqual(fromOneRequestIn(await mark.since()), [fieldEvent('context-field-updated', after, before)])

    const again = await eventMark(pennon)
    assertEmpty(await call(pennon, 'PUT', `${CONTEXT}/plan`, { legalValues: after.legalValues }))
    assert.deepEqual(await again.since(), [])

    const last = await eventMark(pennon)
    assertEmpty(await call(pennon, 'PUT', `${CONTEXT}/plan`, { description: null, stickiness: true, sortOrder: -3 }))
    const cleared = { ...after, description: null, stickiness: true, sortOrder: -3, legalValues: [] }
    assert.deepEqual(await getField(pennon, 'plan'), cleared)
    assert.deepEqual(fromOneRequestIn(await last.since()), [fieldEvent('context-field-updated', cleared, after)])

    // Built-in fields are fields like any other (as the reference).
    assertEmpty(await call(pennon, 'PUT', `${CONTEXT}/userId`, { description: 'Who is signed in', stickiness: true }))
    assert.deepEqual(withoutCreatedAt(await getField(pennon, 'userId')), {
      name: 'userId',
      description: 'Who is signed in',
      stickiness: true,
      sortOrder: 1,
      legalValues: [],
    })

    const unknown = await call(pennon, 'PUT', `${CONTEXT}/ghost`, {})
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Context field "ghost" does not exist.'))
    const duplicate = await call(pennon, 'PUT', `${CONTEXT}/plan`, { legalValues: [{ value: 'x' }, { value: 'x' }] })
    assert.equal(duplicate.status, 400)
    assert.deepEqual(
      withoutId(duplicate.body),
      validationError(
        at(
          '/body/legalValues/1/value',
          'The `/body/legalValues/1/value` property must be unique among the legal values: legal value 0 is "x" too.',
        ),
      ),
    )
  })

  test('legal values one at a time: a new one goes last, an existing one is described in its place, removing one; each an event, nothing to change none', async (t) => {
    const pennon = await useTestApp(t, database)
    const field = await createField(pennon, { name: 'region', legalValues: [{ value: 'eu', description: 'Europe' }, { value: 'us' }] })
    const legal = `${CONTEXT}/region/legal-values`
    const steps: Array<[() => Promise<unknown>, Array<{ value: string; description?: string }>]> = [
      [
        () => call(pennon, 'POST', legal, { value: 'ap', description: 'Asia' }),
        [{ value: 'eu', description: 'Europe' }, { value: 'us' }, { value: 'ap', description: 'Asia' }],
      ],
      [
        () => call(pennon, 'POST', legal, { value: 'us', description: 'Virginia' }),
        [
          { value: 'eu', description: 'Europe' },
          { value: 'us', description: 'Virginia' },
          { value: 'ap', description: 'Asia' },
        ],
      ],
      // Sent without a description, an existing value loses its description (it is replaced, as the reference).
      [
        () => call(pennon, 'POST', legal, { value: 'eu' }),
        [{ value: 'eu' }, { value: 'us', description: 'Virginia' }, { value: 'ap', description: 'Asia' }],
      ],
      [() => call(pennon, 'DELETE', `${legal}/us`), [{ value: 'eu' }, { value: 'ap', description: 'Asia' }]],
    ]
    let previous = field
    for (const [step, legalValues] of steps) {
      const mark = await eventMark(pennon)
      assertEmpty((await step()) as any)
      const now = { ...field, legalValues }
      assert.deepEqual(await getField(pennon, 'region'), now)
      assert.deepEqual(fromOneRequestIn(await mark.since()), [fieldEvent('context-field-updated', now, previous)])
      previous = now
    }
    const mark = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', `${legal}/nowhere`))
    assertEmpty(await call(pennon, 'POST', legal, { value: 'ap', description: 'Asia' }))
    assert.deepEqual(await mark.since(), [])
    // A value is a path segment, encoded as any other.
    assertEmpty(await call(pennon, 'POST', legal, { value: 'a/b c' }))
    assertEmpty(await call(pennon, 'DELETE', `${legal}/${encodeURIComponent('a/b c')}`))
    assert.deepEqual((await getField(pennon, 'region')).legalValues, previous.legalValues)

    for (const [body, detail] of [
      [{ value: '' }, at('/body/value', 'The `/body/value` property must NOT have fewer than 1 characters. You sent "".')],
      [{ description: 'none' }, at('/body/value', 'The `/body/value` property is required. It was not present on the data you sent.')],
      [{ value: 'x', extra: 1 }, at('/body/extra', 'The `/body` object does not allow the property `/body/extra`. Remove it.')],
    ] as const) {
      const refused = await call(pennon, 'POST', legal, body)
      assert.equal(refused.status, 400, JSON.stringify(body))
      assert.deepEqual(withoutId(refused.body), validationError(detail))
    }
    for (const [method, url, body] of [
      ['POST', `${CONTEXT}/ghost/legal-values`, { value: 'x' }],
      ['DELETE', `${CONTEXT}/ghost/legal-values/x`, undefined],
    ] as const) {
      const unknown = await call(pennon, method, url, body)
      assert.equal(unknown.status, 404)
      assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Context field "ghost" does not exist.'))
    }
  })

  test('a field has at most 1000 legal values: the 1001st is refused, a known one still described', async (t) => {
    const pennon = await useTestApp(t, database)
    await createField(pennon, { name: 'many', legalValues: Array.from({ length: 1000 }, (_, i) => ({ value: `v${i}` })) })
    const mark = await eventMark(pennon)
    const refused = await call(pennon, 'POST', `${CONTEXT}/many/legal-values`, { value: 'one-more' })
    assert.equal(refused.status, 400)
    assert.deepEqual(
      withoutId(refused.body),
      errorOf('ExceedsLimitError', 'Context field "many" has 1000 legal values already, the most a field can have.'),
    )
    assert.deepEqual(await mark.since(), [])
    assertEmpty(await call(pennon, 'POST', `${CONTEXT}/many/legal-values`, { value: 'v999', description: 'The last' }))
    assert.deepEqual((await getField(pennon, 'many')).legalValues.at(-1), { value: 'v999', description: 'The last' })
  })

  test('validate: 200 for a free URL-friendly name; 409 for a taken one, built-ins included; 400 for a bad one', async (t) => {
    const pennon = await useTestApp(t, database)
    await createField(pennon, { name: 'plan' })
    const validate = (body: unknown) => call(pennon, 'POST', `${CONTEXT}/validate`, body)
    assertEmpty(await validate({ name: 'tier' }))
    for (const name of ['plan', 'sessionId']) {
      const taken = await validate({ name })
      assert.equal(taken.status, 409)
      assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', `A context field named "${name}" already exists.`))
    }
    for (const [body, detail] of [
      [
        { name: 'a b' },
        at(
          '/body/name',
          `The \`/body/name\` property must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or ".."). You sent "a b".`,
        ),
      ],
      [
        { name: '..' },
        at(
          '/body/name',
          `The \`/body/name\` property must be URL-friendly (letters, digits and - _ . ! ~ * ' ( ) only, not "." or ".."). You sent "..".`,
        ),
      ],
      [{}, at('/body/name', 'The `/body/name` property is required. It was not present on the data you sent.')],
      [{ name: 'ok', extra: true }, at('/body/extra', 'The `/body` object does not allow the property `/body/extra`. Remove it.')],
    ] as const) {
      const refused = await validate(body)
      assert.equal(refused.status, 400, JSON.stringify(body))
      assert.deepEqual(withoutId(refused.body), validationError(detail))
    }
  })

  test('delete: 200 and the event with the field as preData; built-ins too; unknown a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    const field = await createField(pennon, { name: 'plan', legalValues: [{ value: 'free' }] })
    const mark = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', `${CONTEXT}/plan`))
    assert.deepEqual(fromOneRequestIn(await mark.since()), [fieldEvent('context-field-deleted', null, field)])
    assert.equal((await call(pennon, 'GET', `${CONTEXT}/plan`)).status, 404)
    assertEmpty(await call(pennon, 'DELETE', `${CONTEXT}/currentTime`))
    assert.deepEqual(
      jsonOk(await call(pennon, 'GET', CONTEXT)).map((f: { name: string }) => f.name),
      ['appName', 'environment', 'sessionId', 'userId'],
    )
    const unknown = await call(pennon, 'DELETE', `${CONTEXT}/plan`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Context field "plan" does not exist.'))
    // A deleted name is free again.
    assert.deepEqual(withoutCreatedAt(await createField(pennon, { name: 'currentTime' })), {
      name: 'currentTime',
      description: null,
      stickiness: false,
      sortOrder: 0,
      legalValues: [],
    })
  })

  test('permissions: Viewers read; Editors create, change and delete; client and frontend tokens read nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    await createField(pennon, { name: 'plan' })
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2, 'editor')
    const client = await apiToken(pennon, 'client')
    const frontend = await apiToken(pennon, 'frontend')
    for (const url of [CONTEXT, `${CONTEXT}/plan`, `${CONTEXT}/plan/strategies`, '/api/admin/projects/default/context']) {
      assert.equal((await call(pennon, 'GET', url, undefined, { token: viewer })).status, 200, url)
      for (const token of [client, frontend]) {
        const refused = await call(pennon, 'GET', url, undefined, { token })
        assert.equal(refused.status, 403)
        const message =
          'This endpoint needs an admin API token or a service-account token: client and frontend tokens cannot use the admin API.'
        assert.deepEqual(withoutId(refused.body), errorOf('NoAccessError', message, { permissions: [] }))
      }
    }
    const P = '/api/admin/projects/default/context'
    const writes = [
      ['POST', CONTEXT, { name: 'tier' }, ['CREATE_CONTEXT_FIELD'], 201],
      ['PUT', `${CONTEXT}/tier`, { description: 'x' }, ['UPDATE_CONTEXT_FIELD'], 200],
      ['POST', `${CONTEXT}/tier/legal-values`, { value: 'gold' }, ['UPDATE_CONTEXT_FIELD'], 200],
      ['DELETE', `${CONTEXT}/tier/legal-values/gold`, undefined, ['UPDATE_CONTEXT_FIELD'], 200],
      ['POST', `${CONTEXT}/validate`, { name: 'free' }, ['UPDATE_CONTEXT_FIELD'], 200],
      ['DELETE', `${CONTEXT}/tier`, undefined, ['DELETE_CONTEXT_FIELD'], 200],
      ['POST', P, { name: 'own' }, ['CREATE_CONTEXT_FIELD', 'UPDATE_PROJECT_CONTEXT'], 201],
      ['PUT', `${P}/own`, {}, ['UPDATE_CONTEXT_FIELD', 'UPDATE_PROJECT_CONTEXT'], 200],
      ['POST', `${P}/own/legal-values`, { value: 'a' }, ['UPDATE_CONTEXT_FIELD', 'UPDATE_PROJECT_CONTEXT'], 200],
      ['DELETE', `${P}/own/legal-values/a`, undefined, ['UPDATE_CONTEXT_FIELD', 'UPDATE_PROJECT_CONTEXT'], 200],
      ['POST', `${P}/validate`, { name: 'free' }, ['UPDATE_CONTEXT_FIELD', 'UPDATE_PROJECT_CONTEXT'], 200],
      ['DELETE', `${P}/own`, undefined, ['DELETE_CONTEXT_FIELD', 'UPDATE_PROJECT_CONTEXT'], 200],
    ] as const
    const mark = await eventMark(pennon)
    for (const [method, url, body, permissions] of writes) {
      for (const token of [viewer, client]) {
        const refused = await call(pennon, method, url, body, { token })
        assert.equal(refused.status, 403, `${method} ${url}`)
        const needs = permissions.length === 1 ? `"${permissions[0]}"` : `one of ${permissions.map((p) => `"${p}"`).join(', ')}`
        assert.deepEqual(
          withoutId(refused.body),
          errorOf('NoAccessError', `Missing permission: this operation needs ${needs}.`, { permissions }),
        )
      }
    }
    assert.deepEqual(await mark.since(), [])
    for (const [method, url, body, , status] of writes) {
      const response = await call(pennon, method, url, body, { token: editor })
      assert.equal(response.status, status, `${method} ${url}: ${response.text}`)
    }
    assert.deepEqual(
      (await mark.since()).map((e) => [e.type, e.createdBy]),
      [
        ['context-field-created', 'editor'],
        ['context-field-updated', 'editor'],
        ['context-field-updated', 'editor'],
        ['context-field-updated', 'editor'],
        ['context-field-deleted', 'editor'],
        ['context-field-created', 'editor'],
        ['context-field-updated', 'editor'],
        ['context-field-updated', 'editor'],
        ['context-field-deleted', 'editor'],
      ],
    )
  })
})
