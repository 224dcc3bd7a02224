import assert from 'node:assert/strict'
import { test } from 'node:test'
import { quote } from '../../http/errors.ts'
import {
  allEvents,
  call,
  createTestApp,
  createTestStorage,
  errorOf,
  onEachDatabase,
  useTestApp,
  withoutId,
  type ApiResponse,
  type TestApp,
} from '../../../test/test-app.ts'

const post = (pennon: Pick<TestApp, 'app' | 'adminToken'>, body: unknown) => call(pennon, 'POST', '/api/admin/segments', body)
const withConstraint = (constraint: Record<string, unknown>) => ({ name: 'seg', constraints: [constraint] })

interface Detail {
  path: string
  message: string
}
const at = (path: string, message: string): Detail => ({ path, message })

/** 400 ValidationError: the message is the first detail's, plus how many more there are. */
function assertInvalid(response: ApiResponse, ...details: Detail[]): void {
  assert.equal(response.status, 400, response.text)
  const more = details.length > 1 ? ` (${details.length - 1} more problem${details.length > 2 ? 's' : ''} listed in details)` : ''
  assert.deepEqual(withoutId(response.body), { name: 'ValidationError', message: details[0]!.message + more, details })
}

const badValue = (operator: string, expected: string, sent: string, index = 0): Detail =>
  at(
    `/body/constraints/${index}/value`,
    `The \`/body/constraints/${index}/value\` property must be ${expected} for the ${operator} operator. You sent ${quote(sent)}.`,
  )
const NUMBER = 'a finite number (optional sign, digits with an optional fraction, optional exponent, e.g. -1.5 or 1e3)'
const DATE = 'an ISO-8601 date or date-time that exists (e.g. 2024-05-31 or 2024-05-31T12:00:00Z)'
const SEMVER = 'a strict semantic version MAJOR.MINOR.PATCH[-prerelease][+build] (e.g. 1.2.3 or 2.0.0-beta.1)'

onEachDatabase('segment validation', (database) => {
  test('name: required string, trimmed, then 1–255 characters (code points)', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const name of ['', '   ', '\n\t ']) {
      assertInvalid(
        await post(pennon, { name, constraints: [] }),
        at('/body/name', `The \`/body/name\` property must not be empty or only whitespace. You sent ${JSON.stringify(name)}.`),
      )
    }
    const long = ` ${'n'.repeat(256)} `
    assertInvalid(
      await post(pennon, { name: long, constraints: [] }),
      at(
        '/body/name',
        `The \`/body/name\` property must be at most 255 characters long once outer whitespace is trimmed. You sent ${quote(long)}.`,
      ),
    )
    assertInvalid(
      await post(pennon, { constraints: [] }),
      at('/body/name', 'The `/body/name` property is required. It was not present on the data you sent.'),
    )
    assertInvalid(
      await post(pennon, { name: 5, constraints: [] }),
      at('/body/name', 'The `/body/name` property must be string. You sent 5.'),
    )

    const longest = await post(pennon, { name: `  ${'😀'.repeat(255)}  `, constraints: [] })
    assert.equal(longest.status, 201)
    assert.equal(longest.body.name, '😀'.repeat(255))
  })

  test('constraints: a required array of objects with known properties of the right types, no coercion', async (t) => {
    const pennon = await useTestApp(t, database)
    assertInvalid(
      await post(pennon, { name: 's' }),
      at('/body/constraints', 'The `/body/constraints` property is required. It was not present on the data you sent.'),
    )
    assertInvalid(
      await post(pennon, { name: 's', constraints: {} }),
      at('/body/constraints', 'The `/body/constraints` property must be array. You sent {}.'),
    )
    assertInvalid(
      await post(pennon, withConstraint({ contextName: 'c', operator: 'IN', values: ['a'], colour: 'red' })),
      at(
        '/body/constraints/0/colour',
        'The `/body/constraints/0` object does not allow the property `/body/constraints/0/colour`. Remove it.',
      ),
    )
    assertInvalid(
      await post(pennon, withConstraint({ contextName: 'c', operator: 'LIKE', values: ['a'] })),
      at(
        '/body/constraints/0/operator',
        'The `/body/constraints/0/operator` property must be one of "NOT_IN", "IN", "STR_ENDS_WITH", "STR_STARTS_WITH", "STR_CONTAINS", "NUM_EQ", "NUM_GT", "NUM_GTE", "NUM_LT", "NUM_LTE", "DATE_AFTER", "DATE_BEFORE", "SEMVER_EQ", "SEMVER_GT", "SEMVER_LT", "SEMVER_GTE", "SEMVER_LTE", "REGEX", "IN_CIDR". You sent "LIKE".',
      ),
    )
    assertInvalid(
      await post(pennon, withConstraint({ operator: 'IN', values: ['a'] })),
      at(
        '/body/constraints/0/contextName',
        'The `/body/constraints/0/contextName` property is required. It was not present on the data you sent.',
      ),
    )
    assertInvalid(
      await post(pennon, withConstraint({ contextName: '', operator: 'NUM_EQ', value: '' })),
      at(
        '/body/constraints/0/contextName',
        'The `/body/constraints/0/contextName` property must NOT have fewer than 1 characters. You sent "".',
      ),
      at('/body/constraints/0/value', 'The `/body/constraints/0/value` property must NOT have fewer than 1 characters. You sent "".'),
    )
    const tooLong = 'v'.repeat(101)
    assertInvalid(
      await post(pennon, withConstraint({ contextName: 'c', operator: 'IN', values: ['v'.repeat(100), '', tooLong] })),
      at('/body/constraints/0/values/1', 'The `/body/constraints/0/values/1` property must NOT have fewer than 1 characters. You sent "".'),
      at(
        '/body/constraints/0/values/2',
        `The \`/body/constraints/0/values/2\` property must NOT have more than 100 characters. You sent ${quote(tooLong)}.`,
      ),
    )
    assertInvalid(
      await post(pennon, withConstraint({ contextName: 'c', operator: 'NUM_EQ', value: 42, values: [1], inverted: 'yes' })),
      at('/body/constraints/0/inverted', 'The `/body/constraints/0/inverted` property must be boolean. You sent "yes".'),
      at('/body/constraints/0/values/0', 'The `/body/constraints/0/values/0` property must be string. You sent 1.'),
      at('/body/constraints/0/value', 'The `/body/constraints/0/value` property must be string. You sent 42.'),
    )
  })

  test('IN, NOT_IN and STR_* need at least one value; single-value operators need value', async (t) => {
    const pennon = await useTestApp(t, database)
    assertInvalid(
      await post(pennon, withConstraint({ contextName: 'c', operator: 'IN', value: 'a' })),
      at(
        '/body/constraints/0/values',
        'The `/body/constraints/0/values` property is required for the IN operator: it needs at least one value. It was not present on the data you sent.',
      ),
    )
    for (const operator of ['NOT_IN', 'STR_ENDS_WITH', 'STR_STARTS_WITH', 'STR_CONTAINS']) {
      assertInvalid(
        await post(pennon, withConstraint({ contextName: 'c', operator, values: [] })),
        at(
          '/body/constraints/0/values',
          `The \`/body/constraints/0/values\` property must hold at least one value for the ${operator} operator. You sent [].`,
        ),
      )
    }
    for (const operator of ['NUM_LTE', 'DATE_BEFORE', 'SEMVER_GTE', 'REGEX']) {
      assertInvalid(
        await post(pennon, withConstraint({ contextName: 'c', operator, values: ['1'] })),
        at(
          '/body/constraints/0/value',
          `The \`/body/constraints/0/value\` property is required for the ${operator} operator. It was not present on the data you sent.`,
        ),
      )
    }
  })

  test('NUM_*, DATE_* and SEMVER_* values follow their grammar; dates must exist', async (t) => {
    const pennon = await useTestApp(t, database)
    const cases: Array<[string, string, string[], string[]]> = [
      ['NUM_GTE', NUMBER, ['-1.5', '1e3', '.5', '5.', '+5'], ['0x10', 'Infinity', 'NaN', '1,5', ' 1', '1e999']],
      [
        'DATE_AFTER',
        DATE,
        ['2024-02-29', '2024-01-01T10:00', '2024-01-01T10:00:00.5+01:00'],
        ['2023-02-29', '2024-04-31', '2024-01-01T25:00', '1700000000000', 'tomorrow'],
      ],
      ['SEMVER_EQ', SEMVER, ['1.2.3', '1.2.3-rc.1+build.5'], ['1.2', 'v1.2.3', '01.2.3', '1.2.3.4', '1.2.3-']],
    ]
    for (const [operator, expected, good, bad] of cases) {
      for (const value of good)
        assert.equal(
          (await post(pennon, { name: `${operator} ${value}`, constraints: [{ contextName: 'c', operator, value }] })).status,
          201,
          value,
        )
      for (const value of bad)
        assertInvalid(await post(pennon, withConstraint({ contextName: 'c', operator, value })), badValue(operator, expected, value))
    }
  })

  test('REGEX must be a pattern SDKs can evaluate (RE2) and cannot be inverted', async (t) => {
    const pennon = await useTestApp(t, database)
    assertInvalid(
      await post(pennon, withConstraint({ contextName: 'c', operator: 'REGEX', value: '((' })),
      at(
        '/body/constraints/0/value',
        'The `/body/constraints/0/value` property must be a regular expression that compiles (missing closing ): `((`). You sent "((".',
      ),
    )
    assertInvalid(
      await post(pennon, withConstraint({ contextName: 'c', operator: 'REGEX', value: '(?=a)b' })),
      at(
        '/body/constraints/0/value',
        'The `/body/constraints/0/value` property must be a regular expression that compiles (invalid or unsupported Perl syntax: `(?=`). You sent "(?=a)b".',
      ),
    )
    assertInvalid(
      await post(pennon, withConstraint({ contextName: 'c', operator: 'REGEX', value: '^a$', inverted: true })),
      at(
        '/body/constraints/0/inverted',
        'The `/body/constraints/0/inverted` property must not be true: a REGEX constraint cannot be inverted. You sent true.',
      ),
    )
  })

  test('every violation is listed, the project one included', async (t) => {
    const pennon = await useTestApp(t, database)
    const response = await post(pennon, {
      name: ' ',
      project: 'ghost',
      constraints: [
        { contextName: 'ok', operator: 'IN', values: ['a'] },
        { contextName: 'c', operator: 'NUM_EQ', value: 'one' },
        { contextName: 'c', operator: 'STR_CONTAINS' },
        { contextName: 'c', operator: 'REGEX', value: '[', inverted: true },
      ],
    })
    assertInvalid(
      response,
      at('/body/name', 'The `/body/name` property must not be empty or only whitespace. You sent " ".'),
      at('/body/project', 'The `/body/project` property must name an existing project. You sent "ghost".'),
      badValue('NUM_EQ', NUMBER, 'one', 1),
      {
        path: '/body/constraints/2/values',
        message:
          'The `/body/constraints/2/values` property is required for the STR_CONTAINS operator: it needs at least one value. It was not present on the data you sent.',
      },
      at(
        '/body/constraints/3/value',
        'The `/body/constraints/3/value` property must be a regular expression that compiles (missing closing ]: `[`). You sent "[".',
      ),
      at(
        '/body/constraints/3/inverted',
        'The `/body/constraints/3/inverted` property must not be true: a REGEX constraint cannot be inverted. You sent true.',
      ),
    )
    assert.deepEqual(
      (await allEvents(pennon)).filter((e) => e.type.startsWith('segment-')),
      [],
    )
  })

  test('values limit: 1000 summed over the constraints is accepted, 1001 is refused at /body/constraints', async (t) => {
    const pennon = await useTestApp(t, database)
    const values = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}${i}`)
    const split = (total: number) => [
      { contextName: 'userId', operator: 'IN', values: values(600, 'u') },
      { contextName: 'email', operator: 'NUM_EQ', value: '1', values: values(total - 600, 'e') },
    ]
    const accepted = await post(pennon, { name: 'thousand', constraints: split(1000) })
    assert.equal(accepted.status, 201)
    assert.equal(accepted.body.constraints[1].values.length, 400)
    assertInvalid(
      await post(pennon, { name: 'too many', constraints: split(1001) }),
      at(
        '/body/constraints',
        'The `/body/constraints` property holds 1001 values in all; a segment may hold at most 1000. You sent 1001 values across 2 constraints.',
      ),
    )
  })

  test('values limit is configurable (SEGMENT_VALUES_LIMIT)', async (t) => {
    const pennon = await useTestApp(t, database, { env: { SEGMENT_VALUES_LIMIT: '3' } })
    assert.equal((await post(pennon, withConstraint({ contextName: 'c', operator: 'IN', values: ['a', 'b', 'c'] }))).status, 201)
    assertInvalid(
      await post(pennon, { name: 'four', constraints: [{ contextName: 'c', operator: 'IN', values: ['a', 'b', 'c', 'd'] }] }),
      at(
        '/body/constraints',
        'The `/body/constraints` property holds 4 values in all; a segment may hold at most 3. You sent 4 values across 1 constraint.',
      ),
    )
  })

  test('an unknown project is a 400 at /body/project, never a 500', async (t) => {
    const pennon = await useTestApp(t, database)
    assertInvalid(
      await post(pennon, { name: 's', project: 'ghost', constraints: [] }),
      at('/body/project', 'The `/body/project` property must name an existing project. You sent "ghost".'),
    )
    const long = 'p'.repeat(200)
    assertInvalid(
      await post(pennon, { name: 's', project: long, constraints: [] }),
      at('/body/project', `The \`/body/project\` property must name an existing project. You sent ${quote(long)}.`),
    )
    assert.equal((await post(pennon, { name: 's', project: 42, constraints: [] })).status, 400)
    assert.equal((await call(pennon, 'PUT', '/api/admin/segments/1', { name: 's', project: 'ghost', constraints: [] })).status, 404)
    assert.equal((await post(pennon, { name: 's', constraints: [] })).body.id, 1, 'refused creates used no id')
    assertInvalid(
      await call(pennon, 'PUT', '/api/admin/segments/1', { name: 's', project: 'ghost', constraints: [] }),
      at('/body/project', 'The `/body/project` property must name an existing project. You sent "ghost".'),
    )
  })

  test('a taken name is a 409 (after trimming, case-sensitively)', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await post(pennon, { name: 'dup', constraints: [] })).status, 201)
    const again = await post(pennon, { name: '  dup ', constraints: [] })
    assert.equal(again.status, 409)
    assert.deepEqual(withoutId(again.body), errorOf('NameExistsError', 'A segment named "dup" already exists.'))
    assert.equal((await post(pennon, { name: 'DUP', constraints: [] })).status, 201)
  })

  test('count limit (SEGMENTS_LIMIT) is a 400 ExceedsLimitError', async (t) => {
    const pennon = await useTestApp(t, database, { env: { SEGMENTS_LIMIT: '2' } })
    assert.equal((await post(pennon, { name: 'one', constraints: [] })).status, 201)
    assert.equal((await post(pennon, { name: 'two', constraints: [] })).status, 201)
    const third = await post(pennon, { name: 'three', constraints: [] })
    assert.equal(third.status, 400)
    assert.deepEqual(
      withoutId(third.body),
      errorOf('ExceedsLimitError', 'Failed to create the segment: this instance already holds the maximum of 2 segments.'),
    )
    assert.equal(
      (await call(pennon, 'PUT', '/api/admin/segments/2', { name: 'two, renamed', constraints: [] })).status,
      204,
      'updates are not limited',
    )
  })

  test('many creates at once (written together): each outcome as if one by one; ids and events gap-free', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await post(pennon, { name: 'stored', constraints: [] })).status, 201)
    const names = [...Array.from({ length: 30 }, (_, i) => `seg-${i}`), 'stored', 'seg-3', 'seg-3', 'seg-3']
    const responses = await Promise.all(
      names.map((name) => post(pennon, { name, constraints: [{ contextName: 'userId', operator: 'IN', values: [name] }] })),
    )

    for (const [index, response] of responses.entries()) {
      const name = names[index]!
      if (name === 'stored' || name === 'seg-3') continue
      assert.equal(response.status, 201, name)
      assert.equal(response.body.name, name)
    }
    const outcomes = (name: string) => responses.filter((_, index) => names[index] === name)
    assert.deepEqual(
      outcomes('stored').map((r) => [r.status, withoutId(r.body)]),
      [[409, errorOf('NameExistsError', 'A segment named "stored" already exists.')]],
    )
    assert.deepEqual(
      outcomes('seg-3')
        .map((r) => r.status)
        .sort(),
      [201, 409, 409, 409],
    )
    for (const refused of outcomes('seg-3').filter((r) => r.status === 409)) {
      assert.deepEqual(withoutId(refused.body), errorOf('NameExistsError', 'A segment named "seg-3" already exists.'))
    }

    const created = responses.filter((r) => r.status === 201).map((r) => r.body)
    assert.deepEqual(
      created.map((s) => s.id).sort((a, b) => a - b),
      Array.from({ length: 30 }, (_, i) => i + 2),
      'segment ids gap-free',
    )
    const events = await allEvents(pennon)
    assert.deepEqual(
      events.map((e) => e.id),
      Array.from({ length: events.length }, (_, i) => i + 1),
      'event ids gap-free',
    )
    const creations = events.filter((e) => e.type === 'segment-created')
    assert.deepEqual(
      creations.map((e) => e.data.id),
      Array.from({ length: 31 }, (_, i) => i + 1),
      'one event per segment, in id order',
    )
    for (const segment of created) assert.deepEqual(creations[segment.id - 1].data, segment)
    const listed = await call(pennon, 'GET', '/api/admin/segments')
    assert.equal(listed.body.segments.length, 31)
  })

  test('many creates at once past the count limit: exactly the places left are taken', async (t) => {
    const pennon = await useTestApp(t, database, { env: { SEGMENTS_LIMIT: '10' } })
    assert.equal((await post(pennon, { name: 'stored', constraints: [] })).status, 201)
    const responses = await Promise.all(Array.from({ length: 15 }, (_, i) => post(pennon, { name: `seg-${i}`, constraints: [] })))
    assert.equal(responses.filter((r) => r.status === 201).length, 9)
    const refused = responses.filter((r) => r.status !== 201)
    assert.equal(refused.length, 6)
    for (const response of refused) {
      assert.equal(response.status, 400)
      assert.deepEqual(
        withoutId(response.body),
        errorOf('ExceedsLimitError', 'Failed to create the segment: this instance already holds the maximum of 10 segments.'),
      )
    }
    const ids = responses
      .filter((r) => r.status === 201)
      .map((r) => r.body.id)
      .sort((a, b) => a - b)
    assert.deepEqual(ids, [2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert.equal((await allEvents(pennon)).filter((e) => e.type === 'segment-created').length, 10)
  })

  test('concurrency: two instances on one database, the same name at once → one 201, one 409; the limit holds exactly', async (t) => {
    const storage = await createTestStorage(database)
    const first = await createTestApp(database, { storage, env: { SEGMENTS_LIMIT: '7' } })
    const second = await createTestApp(database, { storage, env: { SEGMENTS_LIMIT: '7' } })
    t.after(async () => {
      await first.close()
      await second.close()
      await storage.drop()
    })
    // The admin token was stored by the first instance; the second shares its database.
    const viaSecond = { app: second.app, adminToken: first.adminToken }
    for (let round = 0; round < 5; round++) {
      const body = { name: `race-${round}`, constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b', 'c'] }] }
      const responses = await Promise.all([post(first, body), post(viaSecond, body)])
      assert.deepEqual(responses.map((r) => r.status).sort(), [201, 409])
      const conflict = responses.find((r) => r.status === 409)!
      assert.deepEqual(withoutId(conflict.body), errorOf('NameExistsError', `A segment named "race-${round}" already exists.`))
    }
    const list = await call(first, 'GET', '/api/admin/segments')
    const ids = list.body.segments.map((s: { id: number }) => s.id)
    if (database.name === 'sqlite') assert.deepEqual(ids, [1, 2, 3, 4, 5], 'ids stay gap-free')
    else {
      // A sequence: the loser's statement drew an id before its name clashed, and gave nothing back.
      assert.equal(ids.length, 5)
      assert.deepEqual(
        ids,
        [...ids].sort((a: number, b: number) => a - b),
        'ascending in creation order',
      )
    }

    // Two places left; four creates at once get exactly two.
    const creates = ['w', 'x', 'y', 'z'].map((name, i) => post(i % 2 === 0 ? first : viaSecond, { name, constraints: [] }))
    const statuses = (await Promise.all(creates)).map((r) => r.status)
    assert.deepEqual(statuses.sort(), [201, 201, 400, 400])
    assert.equal((await allEvents(first)).filter((e) => e.type === 'segment-created').length, 7)
  })
})
